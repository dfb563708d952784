// EntriesReply (entries written straight from node bytes) against the generic reply tree of
// the same range, byte for byte in RESP2 and RESP3, on random streams: ids up to 2^64-1,
// field names shared with the node's master entry or not, integer and binary values of every
// size, deletions and nodes of a few entries. Also: the bytes do not change when the stream
// changes after the read (a reply may be encoded again later, server/durable-batch.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { entriesReply } from '../../../src/commands/stream/common.js';
import { EntriesReply } from '../../../src/commands/stream/entries-reply.js';
import { Stream } from '../../../src/engine/stream.js';
import { MAX_ID, MIN_ID, type StreamId, u64 } from '../../../src/engine/stream-id.js';
import { Encoder, encodeReply } from '../../../src/resp/encoder.js';
import { type Reply, StreamIdReply } from '../../../src/resp/reply.js';
import { ReferenceEncoder } from '../../resp/reference-encoder.js';

const bytes = (s: string) => Buffer.from(s, 'latin1');

/** The reply with its ids as strings, for the reference encoder (older than StreamIdReply). */
function plain(r: Reply): Reply {
  if (r instanceof StreamIdReply) return r.toString();
  return Array.isArray(r) ? r.map(plain) : r;
}

/** Values the node stores as numbers (canonical integers) and as bytes (everything else). */
const valueArb = fc.oneof(
  fc.nat(1_000_000).map(String),
  fc.constantFrom('0', '9', '10', '999999999999999', '1000000000000000', '007', '-5', '-0', '1e3', '18446744073709551615', ''),
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ minLength: 0, maxLength: 300 }).map((a) => Buffer.from(a).toString('latin1')),
);

interface EntrySpec {
  msStep: bigint;
  seqStep: bigint;
  /** Reuse the first entry's field names (the node's SAME_FIELDS form). */
  sameFields: boolean;
  pairs: Array<[string, string]>;
}

const entryArb: fc.Arbitrary<EntrySpec> = fc.record({
  msStep: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 3n }), fc.bigInt({ min: 1n, max: 1n << 40n })),
  seqStep: fc.oneof(fc.bigInt({ min: 1n, max: 3n }), fc.bigInt({ min: 1n, max: 1n << 60n })),
  sameFields: fc.boolean(),
  pairs: fc.array(fc.tuple(valueArb, valueArb), { minLength: 1, maxLength: 4 }),
});

const UINT64_MAX = (1n << 64n) - 1n;

/** Builds a stream from the specs (ids from a starting point, some near 2^53 or 2^64). */
function build(start: [bigint, bigint], specs: EntrySpec[], maxEntries: number, deletes: number[]): { s: Stream; ids: StreamId[] } {
  const s = new Stream();
  const ids: StreamId[] = [];
  let [ms, seq] = start;
  let master: Array<[string, string]> | undefined;
  for (const spec of specs) {
    if (spec.msStep > 0n) {
      ms += spec.msStep;
      seq = spec.seqStep - 1n;
    } else {
      seq += spec.seqStep;
    }
    if (ms > UINT64_MAX || seq > UINT64_MAX) break;
    master ??= spec.pairs;
    const pairs = spec.sameFields ? master.map(([f], i) => [f, spec.pairs[i % spec.pairs.length]![1]] as [string, string]) : spec.pairs;
    const id = { ms: u64(ms), seq: u64(seq) };
    s.append(id, pairs.flat().map(bytes), { maxBytes: 4096, maxEntries });
    ids.push(id);
  }
  for (const d of deletes) if (ids.length > 0) s.delete(ids[d % ids.length]!);
  return { s, ids };
}

const startArb = fc.constantFrom<[bigint, bigint]>(
  [0n, 1n],
  [1_700_000_000_000n, 0n],
  [(1n << 53n) - 3n, 0n],
  [5n, (1n << 53n) - 2n],
  [UINT64_MAX - 10n, 0n],
  [UINT64_MAX, UINT64_MAX - 50n],
);

const caseArb = fc.record({
  start: startArb,
  specs: fc.array(entryArb, { minLength: 0, maxLength: 40 }),
  maxEntries: fc.constantFrom(1, 2, 3, 7, 100),
  deletes: fc.array(fc.nat(100), { maxLength: 10 }),
  from: fc.nat(50),
  to: fc.nat(50),
  count: fc.constantFrom(0, 1, 2, 5, 100),
  reverse: fc.boolean(),
  fullRange: fc.boolean(),
});

function bounds(ids: StreamId[], c: { from: number; to: number; fullRange: boolean }): [StreamId, StreamId] {
  if (c.fullRange || ids.length === 0) return [MIN_ID, MAX_ID];
  const a = ids[c.from % ids.length]!;
  const b = ids[c.to % ids.length]!;
  return [a, b];
}

test('EntriesReply writes the bytes of the generic reply, RESP2 and RESP3', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const { s, ids } = build(c.start, c.specs, c.maxEntries, c.deletes);
      const [start, end] = bounds(ids, c);
      const generic = entriesReply(s.range(start, end, c.count, c.reverse));
      const direct = new EntriesReply(s.rangeRefs(start, end, c.count, c.reverse));
      for (const p of [2, 3] as const) {
        const expected = new ReferenceEncoder(p).write(plain(generic)).take();
        assert.deepEqual(encodeReply(direct, p), expected);
        assert.deepEqual(encodeReply(generic, p), expected);
        // Nested (XREAD's [[key, entries]]) and through toReply().
        assert.deepEqual(encodeReply([[bytes('k'), direct]], p), encodeReply([[bytes('k'), generic]], p));
        assert.deepEqual(encodeReply(direct.toReply(), p), expected);
      }
      assert.deepEqual(direct.toReply(), generic);
    }),
    { numRuns: 400 },
  );
});

test('one encoder, many replies: arena boundaries in the middle of entries', () => {
  fc.assert(
    fc.property(fc.array(caseArb, { minLength: 1, maxLength: 8 }), fc.constantFrom<2 | 3>(2, 3), (cases, p) => {
      const encoder = new Encoder(p);
      const got: Buffer[] = [];
      const expected: Buffer[] = [];
      for (const c of cases) {
        const { s, ids } = build(c.start, c.specs, c.maxEntries, c.deletes);
        const [start, end] = bounds(ids, c);
        encoder.write(new EntriesReply(s.rangeRefs(start, end, c.count, c.reverse)));
        if (c.count % 2 === 0) got.push(encoder.take()); // sometimes several replies per take()
        expected.push(encodeReply(entriesReply(s.range(start, end, c.count, c.reverse)), p));
      }
      got.push(encoder.take());
      assert.deepEqual(Buffer.concat(got), Buffer.concat(expected));
    }),
    { numRuns: 200 },
  );
});

test('the bytes stay those of the read when the stream changes afterwards', () => {
  fc.assert(
    fc.property(caseArb, fc.array(entryArb, { minLength: 1, maxLength: 30 }), (c, more) => {
      const { s, ids } = build([1n, 0n], c.specs, c.maxEntries, []);
      const [start, end] = bounds(ids, c);
      const direct = new EntriesReply(s.rangeRefs(start, end, c.count, c.reverse));
      const before = encodeReply(direct, 2);
      // Appends grow (reallocate) the tail node's buffer; deletions flag entries; trims free nodes.
      let last = s.lastId;
      for (const spec of more) {
        last = { ms: u64(BigInt(last.ms) + 1n), seq: 0 };
        s.append(last, spec.pairs.flat().map(bytes), { maxBytes: 4096, maxEntries: c.maxEntries });
      }
      for (const id of ids.filter((_, i) => i % 2 === 0)) s.delete(id);
      s.trimByMaxLen(3, false, 0);
      assert.deepEqual(encodeReply(direct, 2), before);
    }),
    { numRuns: 200 },
  );
});

test('golden bytes: shared field names, integers, an id above 2^53', () => {
  const s = new Stream();
  s.append({ ms: 1, seq: 1 }, ['f', 'v', 'n', '12345'].map(bytes));
  s.append({ ms: 1, seq: 2 }, ['f', 'w', 'n', '012'].map(bytes)); // same names as the master
  s.append({ ms: u64(1n << 60n), seq: 0 }, ['x', ''].map(bytes)); // its own names
  const direct = new EntriesReply(s.rangeRefs(MIN_ID, MAX_ID, 0, false));
  const expected =
    '*3\r\n' +
    '*2\r\n$3\r\n1-1\r\n*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\nn\r\n$5\r\n12345\r\n' +
    '*2\r\n$3\r\n1-2\r\n*4\r\n$1\r\nf\r\n$1\r\nw\r\n$1\r\nn\r\n$3\r\n012\r\n' +
    '*2\r\n$21\r\n1152921504606846976-0\r\n*2\r\n$1\r\nx\r\n$0\r\n\r\n';
  for (const p of [2, 3] as const) assert.equal(encodeReply(direct, p).toString('latin1'), expected);
  assert.equal(encodeReply(new EntriesReply(s.rangeRefs(MIN_ID, MAX_ID, 1, true)), 3).toString('latin1'),
    '*1\r\n*2\r\n$21\r\n1152921504606846976-0\r\n*2\r\n$1\r\nx\r\n$0\r\n\r\n');
});
