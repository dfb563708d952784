// PackedSortedSet against a sorted array of entries under random adds, score updates, deletes,
// range deletes: sizes, scores, ranks, slices by rank, counts below score bounds and lex bounds
// must agree, for members of any bytes (prefixes of each other, empty) and awkward scores. Then
// SortedSetValue's conversion from packed to chunked at the listpack limits, as zsetConvert.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compareEntries, type ScoreEntry } from '../../src/engine/sorted-set-order.js';
import { PackedSortedSet } from '../../src/engine/sorted-set-packed.js';
import { SortedSetValue } from '../../src/engine/sorted-set.js';

const SCORES = [-Infinity, -1e300, -2.5, -1, -Number.MIN_VALUE, -0, 0, 0.1, 0.5, 1, 1.5, 3, 1_700_000_000_123, 1e17, Infinity];
const memberArb = fc.array(fc.constantFrom(0, 0x61, 0x62, 0x80, 0xff), { maxLength: 3 }).map((codes) => String.fromCharCode(...codes));
const byEntry = (x: ScoreEntry, y: ScoreEntry) => compareEntries(x.score, x.member, y.score, y.member);

type Op =
  | { kind: 'set'; member: string; score: number }
  | { kind: 'delete'; member: string }
  | { kind: 'deleteRange'; start: number; count: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('set' as const), member: memberArb, score: fc.constantFrom(...SCORES) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), member: memberArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRange' as const), start: fc.nat(40), count: fc.nat(5) }) },
);

function apply(set: PackedSortedSet, model: ScoreEntry[], op: Op): ScoreEntry[] {
  if (op.kind === 'set') {
    const isNew = !model.some((e) => e.member === op.member);
    assert.equal(set.set(op.member, op.score), isNew);
    // -0 is stored as 0, as a listpack stores it.
    const stored = op.score === 0 ? 0 : op.score;
    return [...model.filter((e) => e.member !== op.member), { member: op.member, score: stored }].sort(byEntry);
  }
  if (op.kind === 'delete') {
    assert.equal(set.delete(op.member), model.some((e) => e.member === op.member));
    return model.filter((e) => e.member !== op.member);
  }
  const start = op.start % (model.length + 1);
  assert.deepEqual(set.deleteRange(start, start + op.count), model.slice(start, start + op.count));
  return [...model.slice(0, start), ...model.slice(start + op.count)];
}

function check(set: PackedSortedSet, model: ScoreEntry[], probes: { member: string; score: number; start: number; count: number }): void {
  assert.equal(set.size, model.length);
  assert.deepEqual([...set.entries()], model);
  for (const [rank, e] of model.entries()) {
    assert.equal(set.rank(e.member), rank);
    assert.ok(Object.is(set.score(e.member), e.score));
  }
  if (!model.some((e) => e.member === probes.member)) {
    assert.equal(set.score(probes.member), undefined);
    assert.equal(set.rank(probes.member), undefined);
  }
  const s = probes.score;
  assert.equal(set.countBelowScore(s, false), model.filter((e) => e.score < s).length, `below ${s}`);
  assert.equal(set.countBelowScore(s, true), model.filter((e) => e.score <= s).length, `at most ${s}`);
  assert.deepEqual(set.slice(probes.start, probes.start + probes.count), model.slice(probes.start, probes.start + probes.count));
  // Lex bounds assume equal scores (ZRANGEBYLEX); check them when that holds.
  if (model.every((e) => e.score === model[0]!.score)) {
    const m = probes.member;
    assert.equal(set.countBelowMember(m, false), model.filter((e) => e.member < m).length);
    assert.equal(set.countBelowMember(m, true), model.filter((e) => e.member <= m).length);
  }
}

const probeArb = fc.record({ member: memberArb, score: fc.constantFrom(...SCORES), start: fc.nat(45), count: fc.nat(12) });

test('PackedSortedSet matches a sorted-array model (scores, ranks, slices, score and lex bounds)', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 120 }), fc.array(probeArb, { minLength: 1, maxLength: 4 }), (ops, probes) => {
      const set = new PackedSortedSet();
      let model: ScoreEntry[] = [];
      for (const op of ops) model = apply(set, model, op);
      for (const p of probes) check(set, model, p);
    }),
    { numRuns: 400 },
  );
});

test('equal scores: lex bounds over members of any bytes, one score for all', () => {
  fc.assert(
    fc.property(fc.uniqueArray(memberArb, { maxLength: 40 }), fc.constantFrom(...SCORES), fc.array(memberArb, { maxLength: 8 }), (members, score, probes) => {
      const set = new PackedSortedSet();
      for (const m of members) set.set(m, score);
      const sorted = [...members].sort();
      assert.deepEqual([...set.entries()].map((e) => e.member), sorted);
      for (const m of probes) {
        assert.equal(set.countBelowMember(m, false), sorted.filter((x) => x < m).length);
        assert.equal(set.countBelowMember(m, true), sorted.filter((x) => x <= m).length);
      }
    }),
    { numRuns: 300 },
  );
});

test('SortedSetValue leaves the packed form exactly when a new member passes the limits, keeping every entry', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(30), fc.constantFrom(...SCORES), fc.nat(12)), { maxLength: 60 }),
      fc.nat(20),
      fc.nat(10),
      (adds, maxEntries, maxValue) => {
        const z = new SortedSetValue();
        const model = new Map<string, number>();
        let packed = true;
        for (const [n, score, length] of adds) {
          const member = `m${n}`.padEnd(length, '.');
          const isNew = !model.has(member);
          if (isNew && (member.length > maxValue || model.size + 1 > maxEntries)) packed = false;
          assert.equal(z.set(member, score, maxEntries, maxValue), isNew);
          assert.equal(z.isListpack, packed);
          // A packed set stores -0 as 0; after the conversion -0 is kept (the model takes what is read).
          if (score === 0) assert.ok(Object.is(z.score(member), packed ? 0 : score) || !isNew);
          model.set(member, z.score(member)!);
        }
        const expected = [...model].map(([member, score]) => ({ member, score })).sort(byEntry);
        assert.deepEqual([...z.entries()], expected);
        assert.equal(z.size, model.size);
        if (!packed) assert.deepEqual(new Set(z.indexMembers()), new Set(model.keys()));
        else assert.throws(() => z.indexMembers());
      },
    ),
    { numRuns: 300 },
  );
});
