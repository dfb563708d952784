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
  u64,
  u64Add,
  u64Add1,
  u64Lt,
  u64Sub,
  u64Sub1,
  UINT64_MAX,
} from '../../src/engine/stream-id.js';
import { generateId, parseRangeBound, parseStreamId } from '../../src/commands/stream/ids.js';
import { idOf, isCanonicalId } from '../support/ids.js';

// Parts near 0, around 2^53 and up to 2^64 - 1, as the canonical U64s the engine holds.
const part = fc.oneof(fc.bigInt({ min: 0n, max: UINT64_MAX }), fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }), fc.bigInt({ min: 0n, max: 20n }));
const anyId = fc.tuple(part, part).map(([ms, seq]): StreamId => idOf(ms, seq));

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
        // The expected order from BigInts: compareIds mixes numbers and bigints.
        const [am, as, bm, bs] = [a.ms, a.seq, b.ms, b.seq].map(BigInt) as [bigint, bigint, bigint, bigint];
        const expected = am !== bm ? (am < bm ? -1 : 1) : as !== bs ? (as < bs ? -1 : 1) : 0;
        assert.equal(compareIds(a, b), expected);
        assert.equal(compareIds(b, a), 0 - expected); // not -expected: -0 is not 0 to assert.equal
        const next = incrementId(a);
        if (next !== undefined) {
          assert.ok(isCanonicalId(next), formatId(next));
          assert.equal(compareIds(next, a), 1);
          assert.equal(formatId(next), as === UINT64_MAX ? `${am + 1n}-0` : `${am}-${as + 1n}`);
          assert.deepEqual(decrementId(next), a);
        }
      }),
    );
  });

  test('U64 helpers keep the canonical form across 2^53', () => {
    const safe = Number.MAX_SAFE_INTEGER;
    assert.equal(u64Add1(safe - 1), safe);
    assert.equal(u64Add1(safe), 2n ** 53n);
    assert.equal(u64Add1(2n ** 53n), 2n ** 53n + 1n);
    assert.equal(u64Sub1(2n ** 53n), safe);
    assert.equal(u64Sub1(2n ** 53n + 1n), 2n ** 53n);
    assert.equal(u64Add(safe - 5, 5), safe);
    assert.equal(u64Add(safe, safe), 2n ** 54n - 2n);
    assert.equal(u64Add(2n ** 53n, 1), 2n ** 53n + 1n);
    assert.equal(u64Sub(2n ** 53n + 7n, 8), safe);
    assert.equal(u64Sub(UINT64_MAX, 2n ** 53n), UINT64_MAX - 2n ** 53n);
    assert.equal(u64(2n ** 53n - 1n), safe);
    assert.equal(u64(2n ** 53n), 2n ** 53n);
    assert.equal(u64Lt(safe, 2n ** 53n), true);
    assert.equal(u64Lt(2n ** 53n, safe), false);
    assert.equal(u64Lt(2n ** 53n, UINT64_MAX), true);
    assert.equal(u64Lt(UINT64_MAX, UINT64_MAX), false);
    assert.equal(u64Lt(0, 1), true);
    fc.assert(
      fc.property(part, part, (a, b) => {
        fc.pre(a + b <= UINT64_MAX);
        const [x, y] = a >= b ? [a, b] : [b, a];
        const sum = u64Add(u64(a), u64(b));
        const diff = u64Sub(u64(x), u64(y));
        assert.ok(isCanonicalId({ ms: sum, seq: diff }));
        assert.equal(BigInt(sum), a + b);
        assert.equal(BigInt(diff), x - y);
      }),
    );
  });

  test('parsed ids are canonical', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const text = formatId({ ms: BigInt(id.ms), seq: BigInt(id.seq) });
        const parsed = parseStreamId(Buffer.from(text), { strict: true });
        assert.ok(isCanonicalId(parsed), text);
        assert.ok(isCanonicalId(parseStreamId(text, { strict: true })), text);
      }),
    );
    assert.ok(isCanonicalId(parseStreamId('009007199254740991-9007199254740992')));
    assert.deepEqual(parseStreamId('9007199254740991-9007199254740992'), { ms: Number.MAX_SAFE_INTEGER, seq: 2n ** 53n });
  });

  test('increment and decrement wrap between ms and fail at the ends', () => {
    assert.deepEqual(incrementId(idOf(5n, UINT64_MAX)), idOf(6n, 0n));
    assert.deepEqual(decrementId(idOf(6n, 0n)), idOf(5n, UINT64_MAX));
    assert.equal(incrementId(MAX_ID), undefined);
    assert.equal(decrementId(MIN_ID), undefined);
  });

  test('accepts what strtoull accepts, as redis-server 7.0 does', () => {
    // Checked against redis-server: XADD s 007-1 / " 8-1" / "+9-1" / "10--0" / "11-+5".
    assert.deepEqual(parseStreamId('007-1'), idOf(7n, 1n));
    assert.deepEqual(parseStreamId(' 8-1'), idOf(8n, 1n));
    assert.deepEqual(parseStreamId('+9-1'), idOf(9n, 1n));
    assert.deepEqual(parseStreamId('10--0'), idOf(10n, 0n));
    assert.deepEqual(parseStreamId('11-+5'), idOf(11n, 5n));
    assert.deepEqual(parseStreamId('12'), idOf(12n, 0n));
    assert.deepEqual(parseStreamId('12', { missingSeq: UINT64_MAX }), idOf(12n, UINT64_MAX));
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
    assert.deepEqual(tryParseStreamId('5-*', { allowSeqStar: true }), { id: idOf(5n, 0n), seqGiven: false });
    assert.equal(tryParseStreamId('5-*'), undefined);
  });

  test('exclusive range bounds', () => {
    assert.deepEqual(parseRangeBound('(1-1', false), idOf(1n, 2n));
    assert.deepEqual(parseRangeBound('(3', true), idOf(3n, UINT64_MAX - 1n));
    assert.deepEqual(parseRangeBound('(1', false), idOf(1n, 1n));
    assert.equal(errorOf(() => parseRangeBound('(18446744073709551615-18446744073709551615', false)), 'ERR invalid start ID for the interval');
    assert.equal(errorOf(() => parseRangeBound('(0-0', true)), 'ERR invalid end ID for the interval');
    assert.equal(errorOf(() => parseRangeBound('(-', false)), 'ERR Invalid stream ID specified as stream command argument');
    assert.equal(errorOf(() => parseRangeBound('(', false)), 'ERR Invalid stream ID specified as stream command argument');
  });

  test('generateId: "*" never goes backwards, "ms-*" continues the sequence', () => {
    const last: StreamId = idOf(1000n, 5n);
    assert.deepEqual(generateId(last, 2000), idOf(2000n, 0n));
    assert.deepEqual(generateId(last, 10), idOf(1000n, 6n)); // clock went back
    assert.deepEqual(generateId(idOf(7n, UINT64_MAX), 1), idOf(8n, 0n));
    assert.deepEqual(generateId(last, 0, { id: idOf(1000n, 0n), seqGiven: false }), idOf(1000n, 6n));
    assert.deepEqual(generateId(last, 0, { id: idOf(1001n, 0n), seqGiven: false }), idOf(1001n, 0n));
    const smaller = 'ERR The ID specified in XADD is equal or smaller than the target stream top item';
    assert.equal(errorOf(() => generateId(last, 0, { id: idOf(999n, 0n), seqGiven: false })), smaller);
    assert.equal(errorOf(() => generateId(last, 0, { id: last, seqGiven: true })), smaller);
    assert.equal(errorOf(() => generateId(idOf(3n, UINT64_MAX), 0, { id: idOf(3n, 0n), seqGiven: false })), 'ERR Elements are too large to be stored');
    assert.equal(errorOf(() => generateId(MAX_ID, 0)), 'ERR The stream has exhausted the last possible ID, unable to add more items');
  });

  test('generated ids always exceed the last id', () => {
    fc.assert(
      fc.property(anyId, fc.bigInt({ min: 0n, max: UINT64_MAX }), (last, now) => {
        fc.pre(compareIds(last, MAX_ID) < 0);
        const id = generateId(last, now);
        assert.ok(isCanonicalId(id), formatId(id));
        assert.equal(compareIds(id, last), 1);
      }),
    );
  });
});
