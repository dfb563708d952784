// The score code of packed sorted sets: it decodes to the score it encodes (-0 as 0), sorts
// bytewise as the scores sort, and code + member sorts as (score, member) does, which needs no
// code to be a prefix of another; common scores take few bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compareEntries } from '../../src/engine/sorted-set-order.js';
import { decodeScore, encodeScore, scoreCodeLength } from '../../src/engine/sorted-set-score-code.js';

const score = fc.oneof(
  fc.double({ noNaN: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.constantFrom(0, -0, 1, -1, 1.5, 0.1, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, 2 ** 53, 1_700_000_000_123),
);
const member = fc.array(fc.constantFrom(0, 1, 0x61, 0xfe, 0xff), { maxLength: 3 }).map((codes) => String.fromCharCode(...codes));
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

test('a score code decodes to its score (-0 to 0) and its length is read back after any member', () => {
  fc.assert(
    fc.property(score, member, (s, m) => {
      const code = encodeScore(s);
      assert.ok(code.length >= 1 && code.length <= 10);
      assert.ok([...code].every((c) => c.charCodeAt(0) <= 0xff));
      assert.ok(Object.is(decodeScore(code + m, 0), s === 0 ? 0 : s));
      assert.equal(scoreCodeLength('x' + code + m, 1), code.length);
    }),
    { numRuns: 2000 },
  );
});

test('code + member sorts bytewise as (score, member) does', () => {
  fc.assert(
    fc.property(score, member, score, member, (a, ma, b, mb) => {
      assert.equal(sign(compareStrings(encodeScore(a) + ma, encodeScore(b) + mb)), sign(compareEntries(a, ma, b, mb)));
    }),
    { numRuns: 3000 },
  );
});

test('neighbouring doubles get ordered codes (every bit of the double counts)', () => {
  const float = new Float64Array(1);
  const bits = new BigUint64Array(float.buffer);
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
      float[0] = d;
      bits[0] = bits[0]! + 1n;
      const next = float[0];
      if (Number.isNaN(next) || next === d) return;
      assert.equal(sign(compareStrings(encodeScore(d), encodeScore(next))), sign(d - next));
      assert.ok(Object.is(decodeScore(encodeScore(next), 0), next === 0 ? 0 : next));
    }),
    { numRuns: 2000 },
  );
});

test('small integers and halves take few bytes, any double at most 10', () => {
  assert.equal(encodeScore(0).length, 1);
  assert.equal(encodeScore(-0), encodeScore(0));
  assert.equal(encodeScore(1.5).length, 2);
  assert.equal(encodeScore(Infinity).length, 2);
  assert.ok(encodeScore(190.5).length <= 3);
  assert.ok(encodeScore(65_535).length <= 4);
  assert.ok(encodeScore(1_700_000_000_123).length <= 8);
  assert.equal(encodeScore(0.1).length, 9);
  assert.equal(encodeScore(1 + Number.EPSILON).length, 10, 'the lowest bit set: all 64 bits in 7-bit groups');
});
