// A list chunk (packed elements plus loose ones at both ends) against a plain array model:
// random pushes and pops at both ends (of small chunks and of large ones, which fold and unpack
// in larger batches), inserts, sets, removals, slices and iterations, searches, LREM-style removals,
// splits and appends (fast-check) must leave both with the same elements, and the chunk's byte
// count must stay what Redis's listpack would take for them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Chunk, UNPACK_MIN, listpackEntryBytes } from '../../src/engine/list-chunk.js';
import { lpStringSize } from '../../src/engine/stream-node.js';

/** Short strings, integers in Redis's canonical form and not, and a few long enough to take 2-byte headers. */
const element = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'b', '', 'member:1', '7', '-12', '007', '-0') },
  { weight: 1, arbitrary: fc.integer({ min: -1e6, max: 1e6 }).map(String) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }).map((s) => 'x'.repeat(70) + s) },
);

type Op =
  | { op: 'pushFront' | 'pushBack'; items: string[] }
  | { op: 'popFront' | 'popBack'; n: number }
  | { op: 'insert' | 'set'; at: number; item: string }
  | { op: 'remove' | 'slice'; at: number; n: number }
  | { op: 'removeEqual'; item: string; limit: number; fromTail: boolean }
  | { op: 'indexesOf'; item: string }
  | { op: 'split'; at: number; items: string[] };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('pushFront' as const, 'pushBack' as const), items: fc.array(element, { maxLength: 40 }) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('popFront' as const, 'popBack' as const), n: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('insert' as const, 'set' as const), at: fc.nat(60), item: element }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('remove' as const, 'slice' as const), at: fc.nat(60), n: fc.nat(12) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('removeEqual' as const), item: element, limit: fc.nat(3), fromTail: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('indexesOf' as const), item: element }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('split' as const), at: fc.nat(60), items: fc.array(element, { maxLength: 5 }) }) },
);

/** Small chunks, and chunks past 64 × UNPACK_MIN elements, whose ends unpack and fold in larger batches. */
const initialElements = fc.oneof(fc.array(element, { maxLength: 30 }), fc.array(element, { minLength: 64 * UNPACK_MIN, maxLength: 1200 }));

const lpBytes = (items: string[]) => 7 + items.reduce((sum, s) => sum + lpStringSize(Buffer.from(s, 'latin1')), 0);

/** Applies one operation to both; returns what each observed, which must be equal. */
function apply(chunk: Chunk, model: string[], o: Op): [unknown, unknown] {
  switch (o.op) {
    case 'pushFront':
      for (const item of o.items) {
        chunk.pushFront(item, listpackEntryBytes(item));
        model.unshift(item);
      }
      return [chunk.length, model.length];
    case 'pushBack':
      for (const item of o.items) {
        chunk.pushBack(item, listpackEntryBytes(item));
        model.push(item);
      }
      return [chunk.length, model.length];
    case 'popFront':
    case 'popBack': {
      const got: string[] = [];
      const expected: string[] = [];
      for (let i = 0; i < o.n && model.length > 0; i++) {
        got.push(o.op === 'popFront' ? chunk.popFront() : chunk.popBack());
        expected.push((o.op === 'popFront' ? model.shift() : model.pop())!);
      }
      return [got, expected];
    }
    case 'insert': {
      const at = o.at % (model.length + 1);
      chunk.insert(at, o.item, listpackEntryBytes(o.item));
      model.splice(at, 0, o.item);
      return [chunk.at(at), o.item];
    }
    case 'set': {
      if (model.length === 0) return [0, 0];
      const at = o.at % model.length;
      chunk.set(at, o.item);
      model[at] = o.item;
      return [chunk.at(at), o.item];
    }
    case 'remove': {
      const at = o.at % (model.length + 1);
      const n = Math.min(o.n, model.length - at);
      chunk.remove(at, n);
      model.splice(at, n);
      return [chunk.length, model.length];
    }
    case 'slice': {
      const at = o.at % (model.length + 1);
      const end = Math.min(at + o.n, model.length);
      return [
        [chunk.slice(at, end), [...chunk.values(at)]],
        [model.slice(at, end), model.slice(at)],
      ];
    }
    case 'removeEqual': {
      const positions = model.map((x, i) => (x === o.item ? i : -1)).filter((i) => i >= 0);
      const chosen = new Set((o.fromTail ? positions.reverse() : positions).slice(0, o.limit === 0 ? undefined : o.limit));
      const kept = model.filter((_, i) => !chosen.has(i));
      model.splice(0, model.length, ...kept);
      return [chunk.removeEqual(o.item, o.limit, o.fromTail), chosen.size];
    }
    case 'indexesOf':
      return [chunk.indexesOf(o.item), model.flatMap((x, i) => (x === o.item ? [i] : []))];
    case 'split': {
      // Splits, appends something to the right part, then appends it back: the model gains the items.
      const at = o.at % (model.length + 1);
      const right = chunk.splitAt(at);
      assert.deepEqual(right.toArray(), model.slice(at));
      assert.deepEqual(chunk.toArray(), model.slice(0, at));
      assert.equal(right.bytes, lpBytes(model.slice(at)));
      for (const item of o.items) right.pushBack(item, listpackEntryBytes(item));
      chunk.append(right);
      model.push(...o.items);
      return [chunk.length, model.length];
    }
  }
}

test('a chunk behaves as an array of strings and counts its listpack bytes', () => {
  fc.assert(
    fc.property(initialElements, fc.array(op, { maxLength: 50 }), (initial, ops) => {
      const chunk = Chunk.of(initial);
      const model = [...initial];
      for (const o of ops) {
        const [got, expected] = apply(chunk, model, o);
        assert.deepEqual(got, expected, `after ${JSON.stringify(o)}`);
        assert.equal(chunk.length, model.length);
        assert.equal(chunk.bytes, lpBytes(model), `bytes after ${JSON.stringify(o)}`);
      }
      assert.deepEqual(chunk.toArray(), model);
      model.forEach((item, i) => assert.equal(chunk.at(i), item));
    }),
    { numRuns: 500 },
  );
});

test('listpackEntryBytes is lpStringSize of the bytes: integers as Redis encodes them, strings by length', () => {
  const digits = fc.stringMatching(/^-?[0-9]{1,21}$/);
  const anyLatin1 = fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 5000 }).map((codes) => String.fromCharCode(...codes));
  const int64Edges = fc.constantFrom('9223372036854775807', '-9223372036854775808', '9223372036854775808', '-9223372036854775809', '4095', '-4096', '4096', '127', '128');
  fc.assert(
    fc.property(fc.oneof(digits, anyLatin1, int64Edges), (s) => {
      assert.equal(listpackEntryBytes(s), lpStringSize(Buffer.from(s, 'latin1')), JSON.stringify(s));
    }),
    { numRuns: 2000 },
  );
});
