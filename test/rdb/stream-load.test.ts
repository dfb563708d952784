// Loading a stream from its RDB listpacks (stream-codec.ts readNode) writes each node's bytes
// straight from the listpack for SAMEFIELDS entries (StreamNode.loadHeader / loadInt /
// loadString) and through append() for the others. Either way the loaded node must be the node
// XADD built: the same bytes, the same Redis listpack size (lpBytes, which "~" trimming and
// node boundaries go by), the same counts and ids, and the same RDB bytes when saved again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Stream, type NodeLimits } from '../../src/engine/stream.js';
import { MAX_ID, MIN_ID, type StreamId, u64 } from '../../src/engine/stream-id.js';
import { RdbReader } from '../../src/rdb/rdb-reader.js';
import { RdbWriter } from '../../src/rdb/rdb-writer.js';
import { readStream, StreamLoading, writeStream } from '../../src/rdb/stream-codec.js';
import { StreamNode } from '../../src/engine/stream-node.js';
import { TYPE_STREAM_LISTPACKS_2 } from '../../src/rdb/constants.js';

// Values around every boundary the two encodings have: the node's 15-digit varint limit, the
// listpack's integer widths, negatives (text in the node, integers in the listpack), int64's
// edges, non-canonical digits, text starting with a digit, long strings (copied natively).
const valueArb = fc.oneof(
  fc.integer({ min: -9_000_000, max: 9_000_000 }).map(String),
  fc.constantFrom('0', '-0', '007', '-1', '127', '128', '-4096', '-4097', '4095', '4096', '32767', '32768', '-32769', '8388607', '8388608', '-2147483649'),
  fc.constantFrom('999999999999999', '1000000000000000', '-999999999999999', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '12345678901234567890'),
  fc.constantFrom('', '1a', '-', '-x', 'order-17', ' 5', '5 '),
  fc.string({ maxLength: 70 }),
  fc.uint8Array({ minLength: 60, maxLength: 5000 }).map((b) => Buffer.from(b).toString('latin1')),
);

const entryArb = fc.record({
  msStep: fc.constantFrom(0, 0, 1, 2, 1000),
  seq: fc.nat(3),
  // Names: the stream's usual ones (SAMEFIELDS), others, or the usual ones in another number.
  names: fc.constantFrom('usual', 'usual', 'usual', 'other', 'fewer'),
  values: fc.array(valueArb, { minLength: 3, maxLength: 3 }),
  deleted: fc.boolean(),
});

function namesFor(kind: string): string[] {
  if (kind === 'usual') return ['a', 'b', 'c'];
  if (kind === 'other') return ['x', 'b', '12'];
  return ['a'];
}

interface EntrySpec {
  msStep: number;
  seq: number;
  names: string;
  values: string[];
  deleted: boolean;
}

function build(entries: EntrySpec[], start: StreamId, maxEntries: number): Stream {
  const limits: NodeLimits = { maxBytes: 0, maxEntries };
  const s = new Stream();
  let ms = start.ms;
  let seq = start.seq;
  const ids: StreamId[] = [];
  for (const e of entries) {
    if (e.msStep > 0) {
      ms = u64(BigInt(ms) + BigInt(e.msStep));
      seq = e.seq;
    } else seq = u64(BigInt(seq) + BigInt(e.seq) + 1n);
    const id = { ms, seq };
    const names = namesFor(e.names);
    s.append(id, names.flatMap((n, i) => [Buffer.from(n), Buffer.from(e.values[i]!, 'latin1')]), limits);
    ids.push(id);
    s.lastId = id;
  }
  entries.forEach((e, i) => {
    if (e.deleted) s.delete(ids[i]!);
  });
  return s;
}

function saved(s: Stream): Buffer {
  const w = new RdbWriter();
  writeStream(w, s);
  return Buffer.from(w.buf.subarray(0, w.pos));
}

function nodesOf(s: Stream) {
  return s.storedNodes().map((stored) => {
    const n = stored instanceof StreamNode ? stored : stored.unpack();
    return {
    bytes: n.buf.subarray(0, n.used).toString('hex'),
    lpBytes: n.lpBytes(),
    live: n.live,
    deleted: n.deleted,
    master: n.masterId,
    last: n.lastId,
    };
  });
}

test('a stream loaded from its RDB listpacks has the nodes XADD built, byte for byte', () => {
  fc.assert(
    fc.property(
      fc.array(entryArb, { minLength: 1, maxLength: 120 }),
      // Ids as XADD makes them, and near 2^53 and 2^64, where they stop being numbers.
      fc.constantFrom<StreamId>({ ms: 1, seq: 0 }, { ms: 1_700_000_000_000, seq: 5 }, { ms: 2 ** 53 - 3, seq: 2 ** 53 - 2 }, { ms: u64(2n ** 64n - 200_000n), seq: u64(2n ** 64n - 1000n) }),
      fc.constantFrom(1, 3, 100),
      (entries, start, maxEntries) => {
        const s = build(entries, start, maxEntries);
        const rdb = saved(s);
        const loaded = readStream(new RdbReader(rdb), TYPE_STREAM_LISTPACKS_2);
        assert.deepEqual(nodesOf(loaded), nodesOf(s));
        assert.equal(loaded.length, s.length);
        assert.deepEqual(loaded.range(MIN_ID, MAX_ID, 0, false), s.range(MIN_ID, MAX_ID, 0, false));
        assert.ok(saved(loaded).equals(rdb));
      },
    ),
    { numRuns: 300 },
  );
});

test('entries out of order in a listpack are refused', () => {
  const s = build(
    [0, 1, 2].map((i) => ({ msStep: 1, seq: i, names: 'usual', values: ['p', 'q', 'r'], deleted: false })),
    { ms: 10, seq: 0 },
    100,
  );
  const rdb = saved(s);
  // Ids 11-0 (the master), 12-1, 13-2. The third entry's header (flags SAMEFIELDS, ms-diff 2,
  // seq-diff 2: one-byte integers, each with its backlen) gets ms-diff 0: 11-2, below 12-1.
  const at = rdb.indexOf(Buffer.from([0x02, 0x01, 0x02, 0x01, 0x02, 0x01]));
  assert.ok(at > 0);
  assert.doesNotThrow(() => readStream(new RdbReader(rdb), TYPE_STREAM_LISTPACKS_2));
  rdb[at + 2] = 0x00;
  assert.throws(() => readStream(new RdbReader(rdb), TYPE_STREAM_LISTPACKS_2), /Stream entries out of order/);
});

// A file's or a full sync's streams keep their nodes as the listpacks read (StreamLoading(true))
// until an operation needs the entries: whatever runs on such a stream must do what it does on
// the stream unpacked at load, and a packed node saves as the very bytes it was loaded from.
const opArb = fc.oneof(
  fc.record({ op: fc.constant('range' as const), from: fc.nat(130), count: fc.nat(20), reverse: fc.boolean() }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(130) }),
  fc.record({ op: fc.constant('maxlen' as const), keep: fc.nat(130), approx: fc.boolean() }),
  fc.record({ op: fc.constant('minid' as const), at: fc.nat(130), approx: fc.boolean() }),
  fc.record({ op: fc.constant('append' as const) }),
  fc.record({ op: fc.constant('edges' as const) }),
);

test('a stream loaded with its nodes packed behaves as one unpacked at load', () => {
  fc.assert(
    fc.property(
      fc.array(entryArb, { minLength: 1, maxLength: 120 }),
      fc.constantFrom(1, 3, 100),
      fc.array(opArb, { maxLength: 12 }),
      (entries, maxEntries, ops) => {
        const limits: NodeLimits = { maxBytes: 0, maxEntries };
        const rdb = saved(build(entries, { ms: 1_700_000_000_000, seq: 5 }, maxEntries));
        const eager = readStream(new RdbReader(rdb), TYPE_STREAM_LISTPACKS_2);
        const packed = readStream(new RdbReader(rdb), TYPE_STREAM_LISTPACKS_2, new StreamLoading(true));
        assert.ok(packed.storedNodes().every((n) => !(n instanceof StreamNode)), 'nodes stay packed at load');
        assert.ok(saved(packed).equals(rdb), 'a packed node saves as the bytes it was loaded from');
        const ids = eager.range(MIN_ID, MAX_ID, 0, false).map((e) => e.id);
        const idAt = (i: number): StreamId => ids[i % Math.max(1, ids.length)] ?? MIN_ID;
        for (const o of ops) {
          if (o.op === 'range') {
            const from = idAt(o.from);
            assert.deepEqual(packed.range(from, MAX_ID, o.count, o.reverse), eager.range(from, MAX_ID, o.count, o.reverse));
          } else if (o.op === 'delete') {
            assert.equal(packed.delete(idAt(o.at)), eager.delete(idAt(o.at)));
          } else if (o.op === 'maxlen') {
            assert.equal(packed.trimByMaxLen(o.keep, o.approx, 0), eager.trimByMaxLen(o.keep, o.approx, 0));
          } else if (o.op === 'minid') {
            assert.equal(packed.trimByMinId(idAt(o.at), o.approx, 0), eager.trimByMinId(idAt(o.at), o.approx, 0));
          } else if (o.op === 'append') {
            const id = { ms: u64(BigInt(eager.lastId.ms) + 1n), seq: 0 };
            for (const s of [eager, packed]) {
              s.append(id, [Buffer.from('a'), Buffer.from('new')], limits);
            }
          } else {
            assert.deepEqual(packed.firstLiveId(), eager.firstLiveId());
            assert.deepEqual(packed.lastLiveId(), eager.lastLiveId());
            assert.deepEqual(packed.firstIdWithTombstones(), eager.firstIdWithTombstones());
          }
          assert.equal(packed.length, eager.length);
          assert.deepEqual(packed.listpackBytes(), eager.listpackBytes());
        }
        assert.deepEqual(packed.range(MIN_ID, MAX_ID, 0, false), eager.range(MIN_ID, MAX_ID, 0, false));
        assert.deepEqual(nodesOf(packed), nodesOf(eager));
        assert.ok(saved(packed).equals(saved(eager)));
      },
    ),
    { numRuns: 300 },
  );
});

test('a packed node out of order with the one before is refused at load; a bad entry when unpacked', () => {
  const s = build(
    [0, 1, 2, 3].map((i) => ({ msStep: 1, seq: i, names: 'usual', values: ['p', 'q', 'r'], deleted: false })),
    { ms: 10, seq: 0 },
    2,
  );
  const rdb = saved(s);
  const load = () => readStream(new RdbReader(rdb), TYPE_STREAM_LISTPACKS_2, new StreamLoading(true));
  // Nodes 11-0 (11-0, 12-1) and 13-2 (13-2, 14-3). The second node's second entry (flags
  // SAMEFIELDS, ms-diff 1, seq-diff 1) gets ms-diff 0: 13-3 is fine; seq-diff 0 too: 13-2, a duplicate.
  const at = rdb.lastIndexOf(Buffer.from([0x02, 0x01, 0x01, 0x01, 0x01, 0x01]));
  assert.ok(at > 0);
  rdb[at + 2] = 0x00;
  rdb[at + 4] = 0x00;
  const loaded = load();
  assert.equal(loaded.length, 4);
  assert.throws(() => loaded.range(MIN_ID, MAX_ID, 0, false), /Stream entries out of order/);
  // The second node's key (its master id, 128-bit big-endian) made equal to the first's.
  const key = Buffer.alloc(16);
  key.writeBigUInt64BE(13n, 0);
  key.writeBigUInt64BE(2n, 8);
  const keyAt = rdb.indexOf(key);
  assert.ok(keyAt > 0);
  key.writeBigUInt64BE(11n, 0);
  key.writeBigUInt64BE(0n, 8);
  key.copy(rdb, keyAt);
  assert.throws(load, /Stream entries out of order/);
});
