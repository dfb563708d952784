// The packed stream against a plain model: a list of nodes of entry objects, filled and freed
// by Redis's rules (stream-node-max-entries; the byte limit is checked by the differential
// tests against redis-server). Random appends, XDELs and trims, then every read must agree.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compareIds, formatId, incrementId, MAX_ID, MIN_ID, type StreamId } from '../../src/engine/stream-id.js';
import { Stream, type NodeLimits, type StoredEntry } from '../../src/engine/stream.js';
import { idOf, isCanonicalId } from '../support/ids.js';

interface ModelEntry {
  id: StreamId;
  fields: Buffer[];
  deleted: boolean;
}

class ModelStream {
  nodes: ModelEntry[][] = [];
  length = 0;
  constructor(readonly maxEntries: number) {}

  append(id: StreamId, fields: Buffer[]): void {
    const tail = this.nodes.at(-1);
    if (tail === undefined || tail.length >= this.maxEntries) this.nodes.push([{ id, fields, deleted: false }]);
    else tail.push({ id, fields, deleted: false });
    this.length++;
  }

  live(): ModelEntry[] {
    return this.nodes.flat().filter((e) => !e.deleted);
  }

  delete(id: StreamId): boolean {
    for (let n = 0; n < this.nodes.length; n++) {
      const e = this.nodes[n]!.find((x) => !x.deleted && compareIds(x.id, id) === 0);
      if (e === undefined) continue;
      e.deleted = true;
      this.length--;
      if (this.nodes[n]!.every((x) => x.deleted)) this.nodes.splice(n, 1);
      return true;
    }
    return false;
  }

  /** Redis's streamTrim over the model's nodes. */
  trim(maxLen: number | null, minId: StreamId | null, approx: boolean, limit: number): number {
    let deleted = 0;
    while (this.nodes.length > 0) {
      if (maxLen !== null && this.length <= maxLen) break;
      const node = this.nodes[0]!;
      const entries = node.filter((e) => !e.deleted).length;
      if (limit > 0 && deleted + entries > limit) break;
      const whole = maxLen !== null ? this.length - entries >= maxLen : compareIds(node.at(-1)!.id, minId!) < 0;
      if (whole) {
        this.nodes.shift();
        this.length -= entries;
        deleted += entries;
        continue;
      }
      if (approx) break;
      for (const e of node) {
        if (maxLen !== null ? this.length <= maxLen : compareIds(e.id, minId!) >= 0) break;
        if (!e.deleted) {
          e.deleted = true;
          this.length--;
          deleted++;
        }
      }
      break;
    }
    return deleted;
  }
}

type Op =
  | { kind: 'append'; msStep: number; seq: number; values: string[]; sameFields: boolean }
  | { kind: 'delete'; back: number }
  | { kind: 'trimMaxLen'; maxLen: number; approx: boolean; limit: number }
  | { kind: 'trimMinId'; back: number; approx: boolean; limit: number }
  | { kind: 'read'; from: number; to: number; count: number; reverse: boolean };

const valueArb = fc.oneof(
  fc.nat(1_000_000).map(String),
  fc.constantFrom('', '007', '-5', '12345678901234567890', 'héllo', '\u0000bin'),
  fc.string({ maxLength: 80 }),
  // Around the node's byte-by-byte copy limit (SHORT_COPY, 64 bytes) and past it.
  fc.string({ minLength: 28, maxLength: 72 }),
  fc.uint8Array({ minLength: 60, maxLength: 140 }).map((b) => Buffer.from(b).toString('latin1')),
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), msStep: fc.nat(3), seq: fc.nat(5), values: fc.array(valueArb, { minLength: 1, maxLength: 3 }), sameFields: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), back: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trimMaxLen' as const), maxLen: fc.nat(60), approx: fc.boolean(), limit: fc.constantFrom(0, 0, 1, 5, 10) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trimMinId' as const), back: fc.nat(60), approx: fc.boolean(), limit: fc.constantFrom(0, 0, 1, 5, 10) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), from: fc.nat(80), to: fc.nat(80), count: fc.constantFrom(0, 1, 2, 7, 100), reverse: fc.boolean() }) },
);

const show = (entries: Array<StoredEntry | ModelEntry>) => entries.map((e) => `${formatId(e.id)}:${e.fields.map((f) => f.toString('latin1')).join(',')}`);

function modelRange(m: ModelStream, start: StreamId, end: StreamId, count: number, reverse: boolean): ModelEntry[] {
  let out = m.live().filter((e) => compareIds(e.id, start) >= 0 && compareIds(e.id, end) <= 0);
  if (reverse) out = out.reverse();
  return count > 0 ? out.slice(0, count) : out;
}

function runOps(ops: Op[], maxEntries: number): void {
  const limits: NodeLimits = { maxBytes: 0, maxEntries };
  const s = new Stream();
  const m = new ModelStream(maxEntries);
  const added: StreamId[] = [];
  let ms = 1000;
  let seq = 0;
  // An id near the recent ones: exact hits, misses between entries, and ones past the end.
  const recentId = (back: number): StreamId => {
    if (added.length === 0) return MIN_ID;
    const base = added[Math.max(0, added.length - 1 - (back >> 1))]!;
    return back % 2 === 0 ? base : incrementId(base)!;
  };
  for (const op of ops) {
    switch (op.kind) {
      case 'append': {
        if (op.msStep > 0) {
          ms += op.msStep;
          seq = op.seq;
        } else seq += op.seq + 1;
        const id = { ms, seq };
        const fields = op.values.flatMap((v, i) => [Buffer.from(op.sameFields ? `f${i}` : `g${v.length}`), Buffer.from(v)]);
        s.append(id, fields, limits);
        m.append(id, fields);
        added.push(id);
        break;
      }
      case 'delete': {
        const id = recentId(op.back);
        assert.equal(s.delete(id), m.delete(id), `XDEL ${formatId(id)}`);
        break;
      }
      case 'trimMaxLen':
        assert.equal(s.trimByMaxLen(op.maxLen, op.approx, op.limit), m.trim(op.maxLen, null, op.approx, op.limit));
        break;
      case 'trimMinId': {
        const id = recentId(op.back);
        assert.equal(s.trimByMinId(id, op.approx, op.limit), m.trim(null, id, op.approx, op.limit));
        break;
      }
      case 'read': {
        const start = op.from > 75 ? MIN_ID : recentId(op.from);
        const end = op.to > 75 ? MAX_ID : recentId(op.to);
        assert.deepEqual(show(s.range(start, end, op.count, op.reverse)), show(modelRange(m, start, end, op.count, op.reverse)));
        break;
      }
    }
    assert.equal(s.length, m.length);
    assert.equal(s.nodeCount(), m.nodes.length);
    // The shortcuts XREADGROUP uses (no fields decoded) agree with the model after every op.
    const liveNow = m.live();
    assert.deepEqual(s.firstLiveId(), liveNow[0]?.id);
    assert.deepEqual(s.lastLiveId(), liveNow.at(-1)?.id);
  }
  const live = m.live();
  assert.deepEqual(show(s.range(MIN_ID, MAX_ID, 0, false)), show(live));
  assert.deepEqual(show(s.range(MIN_ID, MAX_ID, 0, true)), show([...live].reverse()));
  assert.deepEqual(s.firstEntry()?.id, live[0]?.id);
  assert.deepEqual(s.lastEntry()?.id, live.at(-1)?.id);
  for (const e of live) assert.deepEqual(show([{ id: e.id, fields: s.get(e.id)! }]), show([e]));
}

describe('Stream storage', () => {
  test('random appends, deletes, trims and reads match the model (small nodes)', () => {
    fc.assert(fc.property(fc.array(opArb, { maxLength: 200 }), fc.constantFrom(1, 2, 3, 5, 10), (ops, maxEntries) => runOps(ops, maxEntries)), { numRuns: 300 });
  });

  test('random operations match the model with 100-entry nodes', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 100, maxLength: 600 }), (ops) => runOps(ops, 100)), { numRuns: 40 });
  });

  test('exact MAXLEN trimming leaves exactly N entries, the newest ones', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.nat(600), fc.constantFrom(1, 7, 100), (n, maxLen, maxEntries) => {
        const s = new Stream();
        for (let i = 1; i <= n; i++) s.append(idOf(BigInt(i), 0n), [Buffer.from('f'), Buffer.from(String(i))], { maxBytes: 0, maxEntries });
        const removed = s.trimByMaxLen(maxLen, false, 0);
        assert.equal(s.length, Math.min(n, maxLen));
        assert.equal(removed, n - s.length);
        assert.deepEqual(s.firstEntry()?.id, s.length > 0 ? idOf(BigInt(n - s.length + 1), 0n) : undefined);
      }),
    );
  });

  test('"~" trimming never goes below the threshold and removes whole nodes only', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 800 }), fc.nat(900), fc.constantFrom(3, 10, 100), (n, maxLen, maxEntries) => {
        const s = new Stream();
        for (let i = 1; i <= n; i++) s.append(idOf(BigInt(i), 0n), [Buffer.from('f'), Buffer.from('v')], { maxBytes: 0, maxEntries });
        const removed = s.trimByMaxLen(maxLen, true, 0);
        assert.ok(s.length >= Math.min(n, maxLen));
        // Nodes hold exactly maxEntries here (the last may hold fewer): whole nodes went.
        assert.ok(removed % maxEntries === 0 || s.length === 0);
        // It stopped because the next node would cut below the threshold.
        assert.ok(s.length <= maxLen || s.length - Math.min(maxEntries, s.length) < maxLen);
        const first = s.firstEntry();
        if (first !== undefined) assert.equal((Number(first.id.ms) - 1) % maxEntries, 0); // starts a node
      }),
    );
  });

  test('"~" with LIMIT stops before a node that would exceed the limit', () => {
    const s = new Stream();
    for (let i = 1; i <= 1000; i++) s.append(idOf(BigInt(i), 0n), [Buffer.from('f'), Buffer.from('v')]);
    assert.equal(s.trimByMaxLen(0, true, 250), 200);
    assert.equal(s.trimByMaxLen(0, true, 99), 0);
    assert.equal(s.trimByMaxLen(0, true, 0), 800);
    assert.equal(s.length, 0);
    assert.equal(s.nodeCount(), 0);
  });

  test('XDEL of a node\'s last live entry frees the node; maxDeletedId only grows', () => {
    const s = new Stream();
    for (let i = 1; i <= 3; i++) s.append(idOf(BigInt(i), 0n), [Buffer.from('f'), Buffer.from('v')], { maxBytes: 0, maxEntries: 2 });
    assert.equal(s.nodeCount(), 2);
    assert.equal(s.delete(idOf(3n, 0n)), true);
    assert.equal(s.nodeCount(), 1);
    assert.equal(s.delete(idOf(1n, 0n)), true);
    assert.equal(s.delete(idOf(1n, 0n)), false);
    assert.deepEqual(s.maxDeletedId, idOf(3n, 0n));
    assert.deepEqual(s.firstIdWithTombstones(), idOf(1n, 0n));
    assert.deepEqual(s.firstEntry()?.id, idOf(2n, 0n));
    assert.deepEqual(s.lastId, idOf(3n, 0n));
  });

  test('ids and values at the extremes survive packing', () => {
    const s = new Stream();
    const big = 'x'.repeat(70_000);
    const ids: StreamId[] = [
      idOf(0n, 1n),
      idOf(0n, 2n ** 63n),
      idOf(1n, 18446744073709551614n),
      idOf(2n ** 53n + 1n, 0n),
      idOf(18446744073709551615n, 18446744073709551615n),
    ];
    const values = ['0', '999999999999999', '1000000000000000', '-1', big];
    ids.forEach((id, i) => s.append(id, [Buffer.from('k'), Buffer.from(values[i]!)]));
    const back = s.range(MIN_ID, MAX_ID, 0, false);
    assert.deepEqual(back.map((e) => e.id), ids);
    assert.ok(back.every((e) => isCanonicalId(e.id)));
    assert.deepEqual(back.map((e) => e.fields[1]!.toString()), values);
  });

  test('appends stay cheap: node buffers are bounded and sealed nodes are trimmed to size', () => {
    const s = new Stream();
    for (let i = 0; i < 20_000; i++) s.append(idOf(1_700_000_000_000n + BigInt(i >> 4), BigInt(i & 15)), [Buffer.from('order_id'), Buffer.from(String(i)), Buffer.from('total'), Buffer.from(String(i * 3))]);
    assert.equal(s.nodeCount(), 200);
    // ~10 bytes per entry in the packed form plus bookkeeping: far below Redis's ~20.
    assert.ok(s.estimatedBytes() / 20_000 < 16, `estimated ${s.estimatedBytes() / 20_000} bytes per entry`);
  });
});

describe('Stream ranges that start inside a node', () => {
  test('every start, on and between ids, near 0 and around 2^53 and 2^64, in ms and in seq', () => {
    const edges = [0n, 1n, 2n ** 53n - 2n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 2n, 2n ** 64n - 1n];
    const ids: StreamId[] = [];
    for (const ms of edges) for (const seq of edges) ids.push(idOf(ms, seq));
    for (const maxEntries of [1, 3, 100]) {
      const s = new Stream();
      for (const id of ids) s.append(id, [Buffer.from('f'), Buffer.from(formatId(id))], { maxBytes: 0, maxEntries });
      const starts = [...ids, ...ids.map((id) => incrementId(id)).filter((id) => id !== undefined)];
      for (const start of starts) {
        const expected = ids.filter((id) => compareIds(id, start) >= 0).slice(0, 5);
        const got = s.range(start, MAX_ID, 5, false);
        assert.deepEqual(got.map((e) => formatId(e.id)), expected.map(formatId), `from ${formatId(start)}`);
        assert.deepEqual(got.map((e) => e.id), expected, `from ${formatId(start)}`); // canonical U64s: same type too
      }
    }
  });
});
