import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CommandError } from '../../src/resp/reply.js';
import {
  compareIds,
  decrementId,
  formatId,
  incrementId,
  MAX_ID,
  MIN_ID,
  type StreamId,
  string2ull,
  tryParseStreamId,
  UINT64_MAX,
} from '../../src/engine/stream-id.js';
import { generateId, parseRangeBound, parseStreamId } from '../../src/commands/stream/ids.js';

const u64 = fc.bigInt({ min: 0n, max: UINT64_MAX });
const anyId = fc.tuple(u64, u64).map(([ms, seq]): StreamId => ({ ms, seq }));

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof CommandError) return err.reply;
    throw err;
  }
  return 'no error';
}

describe('stream ids', () => {
  test('format/parse round trip for every id', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        assert.deepEqual(parseStreamId(formatId(id), { strict: true }), id);
      }),
    );
  });

  test('compareIds orders as (ms, seq) tuples and agrees with increment/decrement', () => {
    fc.assert(
      fc.property(anyId, anyId, (a, b) => {
        const expected = a.ms !== b.ms ? (a.ms < b.ms ? -1 : 1) : a.seq !== b.seq ? (a.seq < b.seq ? -1 : 1) : 0;
        assert.equal(compareIds(a, b), expected);
        assert.equal(compareIds(b, a), -expected);
        const next = incrementId(a);
        if (next !== undefined) {
          assert.equal(compareIds(next, a), 1);
          assert.deepEqual(decrementId(next), a);
        }
      }),
    );
  });

  test('increment and decrement wrap between ms and fail at the ends', () => {
    assert.deepEqual(incrementId({ ms: 5n, seq: UINT64_MAX }), { ms: 6n, seq: 0n });
    assert.deepEqual(decrementId({ ms: 6n, seq: 0n }), { ms: 5n, seq: UINT64_MAX });
    assert.equal(incrementId(MAX_ID), undefined);
    assert.equal(decrementId(MIN_ID), undefined);
  });

  test('accepts what strtoull accepts, as redis-server 7.0 does', () => {
    // Checked against redis-server: XADD s 007-1 / " 8-1" / "+9-1" / "10--0" / "11-+5".
    assert.deepEqual(parseStreamId('007-1'), { ms: 7n, seq: 1n });
    assert.deepEqual(parseStreamId(' 8-1'), { ms: 8n, seq: 1n });
    assert.deepEqual(parseStreamId('+9-1'), { ms: 9n, seq: 1n });
    assert.deepEqual(parseStreamId('10--0'), { ms: 10n, seq: 0n });
    assert.deepEqual(parseStreamId('11-+5'), { ms: 11n, seq: 5n });
    assert.deepEqual(parseStreamId('12'), { ms: 12n, seq: 0n });
    assert.deepEqual(parseStreamId('12', { missingSeq: UINT64_MAX }), { ms: 12n, seq: UINT64_MAX });
    assert.equal(string2ull('18446744073709551615'), UINT64_MAX);
    assert.equal(string2ull('18446744073709551616'), undefined);
    assert.equal(string2ull('-1'), undefined);
  });

  test('ids given as bytes parse as the same text does (the digits fast path)', () => {
    const text = fc.stringMatching(/^[0-9\- +*\x00a]{0,36}$/);
    const digits = fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String);
    const idLike = fc.oneof(text, digits, fc.tuple(digits, digits).map(([a, b]) => `${a}-${b}`), fc.tuple(fc.nat(20), digits).map(([z, d]) => `${'0'.repeat(z)}${d}`));
    const options = fc.constantFrom({}, { strict: true }, { missingSeq: UINT64_MAX }, { allowSeqStar: true });
    fc.assert(
      fc.property(idLike, options, (s, opts) => {
        assert.deepEqual(tryParseStreamId(Buffer.from(s, 'latin1'), opts), tryParseStreamId(s, opts), JSON.stringify(s));
      }),
      { numRuns: 3000 },
    );
  });

  test('rejects malformed ids with Redis\'s message', () => {
    for (const bad of ['', 'x', '5-', '-5', '5-5-5', '1-x', '5 ', '18446744073709551616', '5-18446744073709551616', '*', '**', '*-1', 'a'.repeat(128)]) {
      assert.equal(errorOf(() => parseStreamId(bad)), 'ERR Invalid stream ID specified as stream command argument', bad);
    }
    assert.equal(errorOf(() => parseStreamId('-', { strict: true })), 'ERR Invalid stream ID specified as stream command argument');
    assert.deepEqual(parseStreamId('-'), MIN_ID);
    assert.deepEqual(parseStreamId('+'), MAX_ID);
    assert.deepEqual(tryParseStreamId('5-*', { allowSeqStar: true }), { id: { ms: 5n, seq: 0n }, seqGiven: false });
    assert.equal(tryParseStreamId('5-*'), undefined);
  });

  test('exclusive range bounds', () => {
    assert.deepEqual(parseRangeBound('(1-1', false), { ms: 1n, seq: 2n });
    assert.deepEqual(parseRangeBound('(3', true), { ms: 3n, seq: UINT64_MAX - 1n });
    assert.deepEqual(parseRangeBound('(1', false), { ms: 1n, seq: 1n });
    assert.equal(errorOf(() => parseRangeBound('(18446744073709551615-18446744073709551615', false)), 'ERR invalid start ID for the interval');
    assert.equal(errorOf(() => parseRangeBound('(0-0', true)), 'ERR invalid end ID for the interval');
    assert.equal(errorOf(() => parseRangeBound('(-', false)), 'ERR Invalid stream ID specified as stream command argument');
    assert.equal(errorOf(() => parseRangeBound('(', false)), 'ERR Invalid stream ID specified as stream command argument');
  });

  test('generateId: "*" never goes backwards, "ms-*" continues the sequence', () => {
    const last: StreamId = { ms: 1000n, seq: 5n };
    assert.deepEqual(generateId(last, 2000), { ms: 2000n, seq: 0n });
    assert.deepEqual(generateId(last, 10), { ms: 1000n, seq: 6n }); // clock went back
    assert.deepEqual(generateId({ ms: 7n, seq: UINT64_MAX }, 1), { ms: 8n, seq: 0n });
    assert.deepEqual(generateId(last, 0, { id: { ms: 1000n, seq: 0n }, seqGiven: false }), { ms: 1000n, seq: 6n });
    assert.deepEqual(generateId(last, 0, { id: { ms: 1001n, seq: 0n }, seqGiven: false }), { ms: 1001n, seq: 0n });
    const smaller = 'ERR The ID specified in XADD is equal or smaller than the target stream top item';
    assert.equal(errorOf(() => generateId(last, 0, { id: { ms: 999n, seq: 0n }, seqGiven: false })), smaller);
    assert.equal(errorOf(() => generateId(last, 0, { id: last, seqGiven: true })), smaller);
    assert.equal(errorOf(() => generateId({ ms: 3n, seq: UINT64_MAX }, 0, { id: { ms: 3n, seq: 0n }, seqGiven: false })), 'ERR Elements are too large to be stored');
    assert.equal(errorOf(() => generateId(MAX_ID, 0)), 'ERR The stream has exhausted the last possible ID, unable to add more items');
  });

  test('generated ids always exceed the last id', () => {
    fc.assert(
      fc.property(anyId, fc.bigInt({ min: 0n, max: UINT64_MAX }), (last, now) => {
        fc.pre(compareIds(last, MAX_ID) < 0);
        assert.equal(compareIds(generateId(last, now), last), 1);
      }),
    );
  });
});
