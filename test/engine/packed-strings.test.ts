// PackedStrings against a plain array model: random splices, pushes, sets and searches (fast-check)
// must leave both with the same elements, for strings of every byte and lengths across the varint
// prefix's 1-, 2- and 3-char widths; an iterator keeps the sequence it started on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PackedStrings } from '../../src/engine/packed-strings.js';

const latin1 = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 3 }) },
    { weight: 2, arbitrary: fc.integer({ min: 120, max: 140 }) },
    { weight: 1, arbitrary: fc.integer({ min: 16_380, max: 16_390 }) },
  )
  .chain((length) => fc.tuple(fc.integer({ min: 0, max: 255 }), fc.constant(length)))
  .map(([code, length]) => String.fromCharCode(code).repeat(length));

type Op =
  | { op: 'splice'; at: number; remove: number; items: string[] }
  | { op: 'push'; items: string[] }
  | { op: 'unshift'; items: string[] }
  | { op: 'set'; at: number; item: string }
  | { op: 'indexOf'; item: string; first: number; stride: number }
  | { op: 'slice'; at: number; end: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('splice' as const), at: fc.nat(40), remove: fc.nat(5), items: fc.array(latin1, { maxLength: 4 }) }),
  fc.record({ op: fc.constant('push' as const), items: fc.array(latin1, { maxLength: 4 }) }),
  fc.record({ op: fc.constant('unshift' as const), items: fc.array(latin1, { maxLength: 4 }) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(40), item: latin1 }),
  fc.record({ op: fc.constant('indexOf' as const), item: latin1, first: fc.nat(2), stride: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ op: fc.constant('slice' as const), at: fc.nat(40), end: fc.nat(40) }),
);

function modelIndexOf(model: string[], item: string, first: number, stride: number): number {
  for (let i = first; i < model.length; i += stride) if (model[i] === item) return i;
  return -1;
}

test('PackedStrings behaves as an array of strings', () => {
  fc.assert(
    fc.property(fc.array(latin1, { maxLength: 20 }), fc.array(op, { maxLength: 40 }), (initial, ops) => {
      const model = [...initial];
      const packed = PackedStrings.of(initial);
      for (const o of ops) {
        if (o.op === 'splice') {
          const at = Math.min(o.at, model.length);
          model.splice(at, o.remove, ...o.items);
          packed.splice(at, o.remove, ...o.items);
        } else if (o.op === 'push') {
          model.push(...o.items);
          packed.push(...o.items);
        } else if (o.op === 'unshift') {
          model.unshift(...o.items);
          packed.unshift(...o.items);
        } else if (o.op === 'set') {
          if (model.length === 0) continue;
          const at = o.at % model.length;
          model[at] = o.item;
          packed.set(at, o.item);
        } else if (o.op === 'indexOf') {
          assert.equal(packed.indexOf(o.item, o.first, o.stride), modelIndexOf(model, o.item, o.first, o.stride));
        } else {
          assert.deepEqual(packed.slice(o.at, o.end), model.slice(o.at, Math.max(o.at, o.end)));
        }
        assert.equal(packed.length, model.length);
      }
      assert.deepEqual([...packed], model);
      model.forEach((item, i) => assert.equal(packed.at(i), item));
    }),
    { numRuns: 300 },
  );
});

test('an iterator walks the sequence as it was when it started', () => {
  const packed = PackedStrings.of(['a', 'b', 'c']);
  const seen: string[] = [];
  for (const item of packed) {
    seen.push(item);
    packed.splice(0, 1);
  }
  assert.deepEqual(seen, ['a', 'b', 'c']);
  assert.equal(packed.length, 0);
});

test('the packed size is the bytes plus one prefix char per element under 128 bytes', () => {
  const packed = PackedStrings.of(['member:1', 'member:22', 'x'.repeat(200)]);
  assert.equal(packed.byteLength, 1 + 8 + 1 + 9 + 2 + 200);
  assert.throws(() => packed.at(3), RangeError);
});

// --- in-place searches: findIndex, partitionPoint, sortedIndex ------------------------------

/** Short strings over few byte values, so that equal strings and prefixes of others are common. */
const shortBytes = fc.array(fc.constantFrom(0, 1, 0x61, 0x62, 0xff), { maxLength: 4 }).map((codes) => String.fromCharCode(...codes));
const sortedBytewise = (items: string[]) => [...items].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

test('sortedIndex of a bytewise-sorted sequence counts the elements below the probe', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(shortBytes, latin1), { maxLength: 30 }), fc.oneof(shortBytes, latin1), (items, probe) => {
      const sorted = sortedBytewise(items);
      const packed = PackedStrings.of(sorted);
      assert.equal(packed.sortedIndex(probe), sorted.filter((s) => s < probe).length);
    }),
    { numRuns: 300 },
  );
});

test('findIndex and partitionPoint see each element as data[start, end)', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(shortBytes, latin1), { maxLength: 30 }), shortBytes, (items, probe) => {
      const packed = PackedStrings.of(items);
      const read = (data: string, start: number, end: number) => data.slice(start, end);
      assert.equal(packed.findIndex((d, s, e) => read(d, s, e) === probe), items.indexOf(probe));
      const seen: string[] = [];
      assert.equal(packed.partitionPoint((d, s, e) => (seen.push(read(d, s, e)), true)), items.length);
      assert.deepEqual(seen, items);
      const sorted = sortedBytewise(items);
      const firstNotBelow = sorted.findIndex((s) => s >= probe);
      assert.equal(PackedStrings.of(sorted).partitionPoint((d, s, e) => read(d, s, e) < probe), firstNotBelow < 0 ? sorted.length : firstNotBelow);
    }),
    { numRuns: 300 },
  );
});

test('move is splice(from, 1) then splice(to, 0, item)', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(shortBytes, latin1), { minLength: 1, maxLength: 20 }), fc.nat(), fc.nat(), fc.oneof(shortBytes, latin1), (items, a, b, item) => {
      const from = a % items.length;
      const to = b % items.length;
      const packed = PackedStrings.of(items);
      packed.move(from, to, item);
      const model = [...items];
      model.splice(from, 1);
      model.splice(to, 0, item);
      assert.deepEqual([...packed], model);
      assert.equal(packed.length, model.length);
      assert.throws(() => packed.move(items.length, 0, item), RangeError);
    }),
    { numRuns: 300 },
  );
});

test('removeLast takes the last n elements off in order, as splice(length - n) would', () => {
  fc.assert(
    fc.property(fc.array(latin1, { maxLength: 20 }), fc.nat(25), (initial, n) => {
      const model = [...initial];
      const packed = PackedStrings.of(initial);
      assert.deepEqual(packed.removeLast(n), model.splice(Math.max(0, model.length - n)));
      assert.deepEqual([...packed], model);
      packed.push('after');
      assert.deepEqual([...packed], [...model, 'after']);
    }),
    { numRuns: 200 },
  );
});

test('indexesOf finds every index indexOf would, in order', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', '', 'ab', 'a'.repeat(130)), { maxLength: 30 }), fc.constantFrom('a', 'b', '', 'ab', 'a'.repeat(130)), (items, s) => {
      const expected = items.flatMap((item, i) => (item === s ? [i] : []));
      assert.deepEqual(PackedStrings.of(items).indexesOf(s), expected);
    }),
    { numRuns: 200 },
  );
});

test('elementAfter is the element after the first match indexOf finds', () => {
  const probes = fc.oneof(latin1.map((s) => ({ absent: s })), fc.nat().map((n) => ({ present: n })));
  fc.assert(
    fc.property(fc.array(latin1, { maxLength: 20 }), probes, fc.nat(2), fc.integer({ min: 1, max: 2 }), (items, probe, first, stride) => {
      const packed = PackedStrings.of(items);
      // Random strings rarely hit: half the probes are elements of the sequence.
      const s = 'absent' in probe ? probe.absent : items.length === 0 ? '' : items[probe.present % items.length]!;
      const at = modelIndexOf(items, s, first, stride);
      assert.equal(packed.elementAfter(s, first, stride), at === -1 ? undefined : items[at + 1]);
    }),
    { numRuns: 500 },
  );
});

test('setAfter replaces the element elementAfter reads, and only it', () => {
  const probes = fc.oneof(latin1.map((s) => ({ absent: s })), fc.nat().map((n) => ({ present: n })));
  fc.assert(
    fc.property(fc.array(latin1, { maxLength: 20 }), probes, latin1, fc.nat(2), fc.integer({ min: 1, max: 2 }), (items, probe, replacement, first, stride) => {
      const packed = PackedStrings.of(items);
      const s = 'absent' in probe ? probe.absent : items.length === 0 ? '' : items[probe.present % items.length]!;
      const at = modelIndexOf(items, s, first, stride);
      const expected = [...items];
      const replaced = at !== -1 && at + 1 < items.length;
      if (replaced) expected[at + 1] = replacement;
      assert.equal(packed.setAfter(s, replacement, first, stride), replaced);
      assert.deepEqual([...packed], expected);
      assert.equal(packed.length, expected.length);
    }),
    { numRuns: 500 },
  );
});

test('byteRanges holds elements first, first + stride, … as ranges of one Buffer', () => {
  fc.assert(
    fc.property(fc.array(latin1, { maxLength: 20 }), fc.nat(3), fc.integer({ min: 1, max: 3 }), (items, first, stride) => {
      const { bytes, starts, ends } = PackedStrings.of(items).byteRanges(first, stride);
      const expected = items.filter((_, i) => i >= first && (i - first) % stride === 0);
      assert.deepEqual(starts.map((start, i) => bytes.toString('latin1', start, ends[i])), expected);
    }),
    { numRuns: 300 },
  );
});
