// The intset string (engine/intset-string.ts) against a JS Set of bigint, and SetValue against a
// Set of strings (fast-check): random adds and deletes of integers across the int16 / int32 /
// int64 widths and their edges (±2^15, ±2^31, ±2^53, ±2^63) must keep the same members, in
// ascending order, at the width of the widest member ever added; a set converts to a hashtable
// on its first non-integer member or past maxIntset members, and never back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  EMPTY_INTSET,
  intsetAdd,
  intsetAt,
  intsetDelete,
  intsetHas,
  intsetOf,
  intsetSize,
  type IntsetString,
  intsetValueAt,
  intsetValues,
  intsetWidth,
  parseIntsetMember,
} from '../../src/engine/intset-string.js';
import { SetValue } from '../../src/engine/set.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Integers near every width's edges, and a few anywhere in int64. */
const edge = (at: bigint) => fc.bigInt({ min: at - 3n, max: at + 3n });
const int64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: -40n, max: 40n }) },
  { weight: 1, arbitrary: fc.constantFrom(-(2n ** 15n), 2n ** 15n, -(2n ** 31n), 2n ** 31n, -(2n ** 53n), 2n ** 53n).chain(edge) },
  { weight: 1, arbitrary: fc.constantFrom(INT64_MIN, INT64_MAX) },
  { weight: 1, arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }) },
);

function widthOf(v: bigint): number {
  if (v >= -(2n ** 15n) && v < 2n ** 15n) return 1;
  if (v >= -(2n ** 31n) && v < 2n ** 31n) return 2;
  return 4;
}

function ascending(values: Iterable<bigint>): bigint[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The reference: string2ll's strict decimals that fit in int64. */
function referenceParse(s: string): bigint | undefined {
  if (!/^(0|-?[1-9][0-9]*)$/.test(s)) return undefined;
  const v = BigInt(s);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

test('parseIntsetMember accepts exactly the canonical int64 decimals, as numbers while safe', () => {
  const text = fc.oneof(
    int64.map(String),
    fc.stringMatching(/^[-+ 0-9a]{0,21}$/),
    fc.constantFrom('', '-', '-0', '00', '01', '+1', ' 1', '1 ', '9223372036854775808', '-9223372036854775809', '18446744073709551616'),
  );
  fc.assert(
    fc.property(text, (s) => {
      const parsed = parseIntsetMember(s);
      const expected = referenceParse(s);
      if (expected === undefined) return assert.equal(parsed, undefined);
      assert.equal(BigInt(parsed!), expected);
      assert.equal(typeof parsed, Number.isSafeInteger(Number(expected)) ? 'number' : 'bigint');
    }),
    { numRuns: 2000 },
  );
});

/** A parsed member's value, as SetValue passes it to the intset. */
function value(v: bigint): number | bigint {
  return parseIntsetMember(String(v))!;
}

function checkIntset(set: IntsetString, model: Set<bigint>, widest: number): void {
  const sorted = ascending(model);
  assert.equal(intsetSize(set), model.size);
  assert.equal(intsetWidth(set), widest);
  assert.deepEqual([...intsetValues(set)], sorted.map(String));
  sorted.forEach((v, i) => {
    assert.equal(intsetAt(set, i), String(v));
    assert.equal(BigInt(intsetValueAt(set, i)), v);
  });
}

test('an intset string holds the members of a Set of bigint, ascending, as wide as the widest ever added', () => {
  const op = fc.record({ add: fc.boolean(), v: int64 });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 80 }), fc.array(int64, { maxLength: 10 }), (ops, probes) => {
      let set = EMPTY_INTSET;
      const model = new Set<bigint>();
      let widest = 1;
      for (const { add, v } of ops) {
        if (add) {
          const next = intsetAdd(set, value(v));
          assert.equal(next !== set, !model.has(v), `add ${v}`);
          model.add(v);
          widest = Math.max(widest, widthOf(v));
          set = next;
        } else {
          const next = intsetDelete(set, value(v));
          assert.equal(next !== set, model.has(v), `delete ${v}`);
          model.delete(v);
          set = next;
        }
        for (const p of [v, ...probes]) assert.equal(intsetHas(set, value(p)), model.has(p), `has ${p}`);
      }
      checkIntset(set, model, widest);
    }),
    { numRuns: 500 },
  );
});

test('intsetOf builds, in one pass, the intset that adding the values one by one does', () => {
  fc.assert(
    fc.property(fc.array(int64, { maxLength: 60 }), (values) => {
      const model = new Set(values);
      const widest = values.reduce((w, v) => Math.max(w, widthOf(v)), 1);
      const built = intsetOf(values.map(value));
      checkIntset(built, model, widest);
      let added = EMPTY_INTSET;
      for (const v of values) added = intsetAdd(added, value(v));
      assert.equal(built, added);
    }),
  );
});

test('an iterator over an intset keeps the members it started with', () => {
  let set = intsetOf([5, 1, 3]);
  const iterator = intsetValues(set);
  assert.equal(iterator.next().value, '1');
  set = intsetAdd(intsetDelete(set, 3), 2n ** 40n);
  assert.deepEqual([...iterator], ['3', '5']);
  assert.deepEqual([...intsetValues(set)], ['1', '5', String(2n ** 40n)]);
});

/** A member: mostly integers (canonical decimals), sometimes text or non-canonical numbers. */
const member = fc.oneof(
  { weight: 8, arbitrary: int64.map(String) },
  { weight: 1, arbitrary: fc.constantFrom('a', 'x1', '01', '-0', '+5', ' 7', '9223372036854775808', '') },
);

type SetOp = { op: 'add' | 'delete' | 'has'; member: string };

test('SetValue holds the members of a Set of strings; an intset until a non-integer or maxIntset + 1 members', () => {
  const op: fc.Arbitrary<SetOp> = fc.record({ op: fc.constantFrom('add' as const, 'delete' as const, 'has' as const), member });
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 24 }), fc.array(op, { maxLength: 80 }), (maxIntset, ops) => {
      const set = new SetValue();
      const model = new Set<string>();
      let intset = true;
      let widest = 1;
      for (const { op, member } of ops) {
        if (op === 'add') {
          assert.equal(set.add(member, maxIntset), !model.has(member), `add ${member}`);
          model.add(member);
          const v = referenceParse(member);
          if (v === undefined || model.size > maxIntset) intset = false;
          else widest = Math.max(widest, widthOf(v));
        } else if (op === 'delete') {
          assert.equal(set.delete(member), model.delete(member), `delete ${member}`);
        } else {
          assert.equal(set.has(member), model.has(member), `has ${member}`);
        }
        assert.equal(set.isIntset, intset);
        assert.equal(set.size, model.size);
      }
      assert.equal(set.intsetWidth, intset ? widest : undefined);
      const listed = set.list();
      if (intset) assert.deepEqual(listed, ascending([...model].map(BigInt)).map(String));
      else assert.deepEqual(new Set(listed), model);
      assert.equal(listed.length, model.size);
      assert.deepEqual([...set.members], listed);
      if (model.size > 0) {
        assert.ok(model.has(set.random()));
        const count = Math.floor(model.size / 2);
        const drawn = set.randomDistinct(count);
        assert.equal(drawn.length, count);
        assert.equal(new Set(drawn).size, count);
        for (const m of drawn) assert.ok(model.has(m));
      }
    }),
    { numRuns: 500 },
  );
});

test('converting an intset to a hashtable keeps its members ascending, then the member that converted it', () => {
  const set = SetValue.of(['30', '-2', '7']);
  set.add('x');
  assert.equal(set.isIntset, false);
  assert.deepEqual(set.list(), ['-2', '7', '30', 'x']);
  const full = SetValue.of(['3', '1'], 2);
  full.add('2', 2);
  assert.equal(full.isIntset, false);
  assert.deepEqual(full.list(), ['1', '2', '3']);
});

test('randomDistinct draws every member over many draws, from either form', () => {
  for (const members of [['1', '2', '3', '4', '5', '6'], ['a', 'b', 'c', 'd', 'e', 'f']]) {
    const set = SetValue.of(members);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) for (const m of set.randomDistinct(i % 2 === 0 ? 1 : 4)) seen.add(m);
    assert.deepEqual([...seen].sort(), [...members].sort());
  }
});
