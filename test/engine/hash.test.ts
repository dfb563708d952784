// HashValue against a Map model: random sets, deletes and lookups (fast-check) under small
// listpack limits must leave both with the same pairs in the same order, with binary fields and
// values, and the hash must leave the listpack exactly when Redis's hashTypeSet would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { HashValue } from '../../src/engine/hash.js';

/** Bytes as latin1 text: few distinct ones so that sets and deletes hit existing fields. */
const bytes = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.constantFrom(0, 1, 97, 98, 200, 255), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 8 }) },
  // Past 127 bytes a length prefix takes two chars.
  { weight: 1, arbitrary: fc.integer({ min: 126, max: 130 }).map((n) => new Array<number>(n).fill(120)) },
).map((codes) => String.fromCharCode(...codes));

type Op =
  | { op: 'set'; field: string; value: string; asBuffer: boolean }
  | { op: 'delete' | 'get'; field: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('set' as const), field: bytes, value: bytes, asBuffer: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('delete' as const, 'get' as const), field: bytes }) },
);

const latin1 = (s: string) => Buffer.from(s, 'latin1');

function assertSame(hash: HashValue, model: Map<string, string>): void {
  assert.equal(hash.size, model.size);
  assert.deepEqual([...hash.stringEntries()], [...model]);
  assert.deepEqual([...hash.entries()], [...model].map(([f, v]) => [f, latin1(v)]));
  assert.deepEqual([...hash.fieldNames()], [...model.keys()]);
  assert.deepEqual([...hash.values()], [...model.values()].map(latin1));
}

test('HashValue behaves as a Map and leaves the listpack where Redis does', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 130 }), fc.array(op, { maxLength: 60 }), (maxEntries, maxValue, ops) => {
      const hash = new HashValue();
      const model = new Map<string, string>();
      let listpack = true;
      for (const o of ops) {
        if (o.op === 'set') {
          const isNew = !model.has(o.field);
          model.set(o.field, o.value);
          if (o.field.length > maxValue || o.value.length > maxValue || model.size > maxEntries) listpack = false;
          assert.equal(hash.set(o.field, o.asBuffer ? latin1(o.value) : o.value, maxEntries, maxValue), isNew);
        } else if (o.op === 'delete') {
          assert.equal(hash.delete(o.field), model.delete(o.field));
        } else {
          assert.equal(hash.getString(o.field), model.get(o.field));
          assert.deepEqual(hash.get(o.field), model.has(o.field) ? latin1(model.get(o.field)!) : undefined);
          assert.equal(hash.has(o.field), model.has(o.field));
        }
        assert.equal(hash.isListpack, listpack);
      }
      assertSame(hash, model);
    }),
    { numRuns: 500 },
  );
});

test('the listpack holds up to maxEntries fields and values of up to maxValue bytes', () => {
  const hash = new HashValue();
  for (let i = 0; i < 3; i++) hash.set(`f${i}`, 'x'.repeat(4), 3, 4);
  assert.equal(hash.isListpack, true);
  hash.set('f0', 'y'.repeat(4), 3, 4); // an update within the limits stays
  assert.equal(hash.isListpack, true);
  hash.set('f3', 'z', 3, 4);
  assert.equal(hash.isListpack, false, 'a fourth field converts');
  assert.deepEqual([...hash.fieldNames()], ['f0', 'f1', 'f2', 'f3'], 'conversion keeps the order');

  const long = new HashValue();
  long.set('f', 'x'.repeat(5), 3, 4);
  assert.equal(long.isListpack, false, 'a value over maxValue converts');
  const longField = new HashValue();
  longField.set('field', 'x', 3, 4);
  assert.equal(longField.isListpack, false, 'a field over maxValue converts');
});

test('an update converts a listpack over a lowered entry limit, as hashTypeSet does', () => {
  const hash = new HashValue();
  for (let i = 0; i < 4; i++) hash.set(`f${i}`, 'v');
  hash.set('f1', 'w', 2);
  assert.equal(hash.isListpack, false);
  assert.deepEqual([...hash.stringEntries()], [['f0', 'v'], ['f1', 'w'], ['f2', 'v'], ['f3', 'v']]);
});

test('iterating a listpack hash walks the pairs it had when it started', () => {
  const hash = new HashValue();
  hash.set('a', '1');
  hash.set('b', '2');
  const seen: string[] = [];
  for (const [field] of hash.stringEntries()) {
    seen.push(field);
    hash.delete(field);
    hash.set(`${field}!`, 'x');
  }
  assert.deepEqual(seen, ['a', 'b']);
  assert.deepEqual([...hash.fieldNames()], ['a!', 'b!']);
});

test('HashValue.of builds the hash set() would, pair by pair', () => {
  const pairs = fc.uniqueArray(fc.tuple(bytes, bytes), { selector: ([field]) => field, maxLength: 10 });
  fc.assert(
    fc.property(pairs, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 130 }), (entries, maxEntries, maxValue) => {
      const built = HashValue.of(entries, maxEntries, maxValue);
      const stepwise = new HashValue();
      for (const [field, value] of entries) stepwise.set(field, value, maxEntries, maxValue);
      assert.equal(built.isListpack, stepwise.isListpack);
      assert.deepEqual([...built.stringEntries()], [...stepwise.stringEntries()]);
    }),
    { numRuns: 300 },
  );
});

test('setPairs (HSET of several pairs) leaves the hash set() would, pair by pair, and counts the new fields', () => {
  const pairs = fc.array(fc.tuple(bytes, bytes, fc.boolean()), { maxLength: 8 });
  fc.assert(
    fc.property(pairs, pairs, fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 130 }), (before, written, maxEntries, maxValue) => {
      const atOnce = new HashValue();
      const stepwise = new HashValue();
      // The same hash to start from (maybe converted already), then the pairs one way and the other.
      for (const [field, value] of before) {
        atOnce.set(field, value, maxEntries, maxValue);
        stepwise.set(field, value, maxEntries, maxValue);
      }
      const args = written.map(([field, value, asBuffer]): [string, string | Buffer] => [field, asBuffer ? latin1(value) : value]);
      let created = 0;
      for (const [field, value] of args) if (stepwise.set(field, value, maxEntries, maxValue)) created++;
      const flat = args.flatMap(([field, value]) => [field, typeof value === 'string' ? value : value.toString('latin1')]);
      assert.equal(atOnce.setPairs(flat, maxEntries, maxValue), created);
      assert.equal(atOnce.isListpack, stepwise.isListpack);
      assert.deepEqual([...atOnce.stringEntries()], [...stepwise.stringEntries()]);
    }),
    { numRuns: 500 },
  );
});

test('byteRanges gives the pairs, the fields or the values in either encoding', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(bytes, bytes), { selector: ([field]) => field, maxLength: 10 }), fc.boolean(), (entries, small) => {
      const hash = HashValue.of(entries, small ? 512 : 0);
      const texts = (part: 'pairs' | 'fields' | 'values') => {
        const { bytes: buf, starts, ends } = hash.byteRanges(part);
        return starts.map((start, i) => buf.toString('latin1', start, ends[i]));
      };
      assert.deepEqual(texts('pairs'), entries.flat());
      assert.deepEqual(texts('fields'), entries.map(([field]) => field));
      assert.deepEqual(texts('values'), entries.map(([, value]) => value));
    }),
    { numRuns: 200 },
  );
});
