// SortedSetValue against a naive model (a sorted array of entries) under random adds, score
// changes, deletes, range deletes and pops, with enough members to split and merge chunks:
// rank, slice, counts below score/member bounds (exclusive and inclusive) must all agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compareEntries, type ScoreEntry, SortedSetValue } from '../../src/engine/sorted-set.js';

type Op =
  | { kind: 'set'; member: number; score: number }
  | { kind: 'delete'; member: number }
  | { kind: 'deleteRange'; a: number; b: number }
  | { kind: 'popMin' | 'popMax'; count: number };

const SCORES = [-Infinity, -2.5, -1, -0, 0, 0.5, 1, 1, 2, 3, 1e17, Infinity];
const memberName = (n: number) => `m${n.toString(36)}`;

class Model {
  entries: ScoreEntry[] = [];

  set(member: string, score: number): void {
    this.entries = this.entries.filter((e) => e.member !== member);
    this.entries.push({ member, score });
    this.entries.sort((x, y) => compareEntries(x.score, x.member, y.score, y.member));
  }

  delete(member: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.member !== member);
    return this.entries.length < before;
  }
}

function check(z: SortedSetValue, model: Model, probes: number[]): void {
  const entries = model.entries;
  assert.equal(z.size, entries.length);
  assert.deepEqual([...z.entries()].map((e) => e.member), entries.map((e) => e.member));
  for (const [rank, e] of entries.entries()) {
    assert.equal(z.rank(e.member), rank);
    assert.ok(Object.is(z.score(e.member), e.score) || z.score(e.member) === e.score);
  }
  assert.equal(z.rank('absent'), undefined);
  for (const p of probes) {
    const s = SCORES[p % SCORES.length]!;
    assert.equal(z.countBelowScore(s, false), entries.filter((e) => e.score < s).length, `below ${s}`);
    assert.equal(z.countBelowScore(s, true), entries.filter((e) => e.score <= s).length, `at most ${s}`);
    const m = memberName(p);
    const lexModel = [...entries].sort((x, y) => (x.member < y.member ? -1 : 1));
    // Lex counts assume equal scores; compare against the member order only when that holds.
    if (entries.every((e) => e.score === entries[0]!.score)) {
      assert.equal(z.countBelowMember(m, false), lexModel.filter((e) => e.member < m).length);
      assert.equal(z.countBelowMember(m, true), lexModel.filter((e) => e.member <= m).length);
    }
    const start = p % (entries.length + 2);
    const end = start + (p % 7);
    assert.deepEqual(z.slice(start, end), entries.slice(start, end));
  }
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('set' as const), member: fc.nat(400), score: fc.nat(SCORES.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), member: fc.nat(400) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRange' as const), a: fc.nat(400), b: fc.nat(12) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('popMin' as const, 'popMax' as const), count: fc.nat(6) }) },
);

function apply(z: SortedSetValue, model: Model, op: Op): void {
  if (op.kind === 'set') {
    const member = memberName(op.member);
    const score = SCORES[op.score]!;
    const isNew = !model.entries.some((e) => e.member === member);
    assert.equal(z.set(member, score), isNew);
    // A listpack-sized set stores -0 as 0; the model keeps what the structure reports.
    model.set(member, z.score(member)!);
  } else if (op.kind === 'delete') {
    const member = memberName(op.member);
    assert.equal(z.delete(member), model.delete(member));
  } else if (op.kind === 'deleteRange') {
    const start = op.a % (model.entries.length + 1);
    const removed = z.deleteRange(start, start + op.b);
    assert.deepEqual(removed, model.entries.slice(start, start + op.b));
    model.entries.splice(start, op.b);
  } else {
    const n = Math.min(op.count, model.entries.length);
    if (op.kind === 'popMin') {
      assert.deepEqual(z.deleteRange(0, n), model.entries.slice(0, n));
      model.entries.splice(0, n);
    } else {
      const size = model.entries.length;
      assert.deepEqual(z.deleteRange(size - n, size), model.entries.slice(size - n));
      model.entries.splice(size - n, n);
    }
  }
}

test('SortedSetValue matches a sorted-array model (rank, slices, score bounds, pops)', () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 50, maxLength: 900, size: 'max' }), fc.array(fc.nat(1000), { minLength: 3, maxLength: 6 }), (ops, probes) => {
      const z = new SortedSetValue();
      const model = new Model();
      for (const op of ops) apply(z, model, op);
      check(z, model, probes);
    }),
    { numRuns: 60 },
  );
});

test('lex counts with equal scores, exclusive and inclusive bounds, across chunk splits', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.nat(2000), { maxLength: 500, size: 'max' }), fc.array(fc.nat(2000), { maxLength: 20 }), (members, probes) => {
      const z = new SortedSetValue();
      for (const m of members) z.set(memberName(m), 0);
      const sorted = members.map(memberName).sort();
      for (const p of probes) {
        const m = memberName(p);
        assert.equal(z.countBelowMember(m, false), sorted.filter((x) => x < m).length);
        assert.equal(z.countBelowMember(m, true), sorted.filter((x) => x <= m).length);
      }
      assert.deepEqual([...z.entries()].map((e) => e.member), sorted);
    }),
    { numRuns: 40 },
  );
});

test('members compare bytewise (latin1), ties on score ordered by member', () => {
  const z = new SortedSetValue();
  for (const m of ['b', 'a', '\u00ff', 'B', '', 'aa']) z.set(m, 1);
  z.set('first', 0);
  assert.deepEqual([...z.entries()].map((e) => e.member), ['first', '', 'B', 'a', 'aa', 'b', '\u00ff']);
});

test('the listpack flag: more than 128 members or one over 64 bytes leaves it for good', () => {
  const z = new SortedSetValue();
  for (let i = 0; i < 128; i++) z.set(`m${i}`, i);
  assert.equal(z.isListpack, true);
  z.set('m128', 1);
  assert.equal(z.isListpack, false);
  z.delete('m128');
  assert.equal(z.isListpack, false, 'no conversion back');
  const long = new SortedSetValue();
  long.set('x'.repeat(65), 1);
  assert.equal(long.isListpack, false);
});

test('-0 becomes 0 in a listpack, stays -0 in a skiplist; an equal score (0 vs -0) does not move', () => {
  const small = new SortedSetValue();
  small.set('a', -0);
  assert.ok(Object.is(small.score('a'), 0));
  const big = new SortedSetValue();
  big.set('x'.repeat(65), 1);
  big.set('b', -0);
  assert.ok(Object.is(big.score('b'), -0));
  assert.equal(big.set('b', 0), false);
  assert.ok(Object.is(big.score('b'), -0));
});

test('a large set keeps O(log n) rank: 200k members, ranks and slices stay right', () => {
  const z = new SortedSetValue();
  const n = 200_000;
  for (let i = 0; i < n; i++) z.set(`m${i}`, (i * 7919) % n);
  assert.equal(z.size, n);
  for (const i of [0, 1, 4567, 99_999, n - 1]) {
    const score = (i * 7919) % n;
    assert.equal(z.rank(`m${i}`), score, 'scores are a permutation of 0..n-1, so rank = score');
    assert.deepEqual(z.slice(score, score + 1), [{ member: `m${i}`, score }]);
  }
  assert.equal(z.countBelowScore(150_000, false), 150_000);
  const removed = z.deleteRange(1000, 101_000);
  assert.equal(removed.length, 100_000);
  assert.equal(z.size, n - 100_000);
  assert.equal(z.rank(z.slice(1000, 1001)[0]!.member), 1000);
});
