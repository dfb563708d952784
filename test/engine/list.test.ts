// The chunked list against a plain array model: random operation sequences (fast-check), under
// node limits by count and by bytes (list-max-listpack-size), must leave both with the same
// elements; every chunk must keep within its limit and count its listpack bytes as Redis would,
// and the chunk count must stay proportional to the length.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ListValue } from '../../src/engine/list.js';
import { lpStringSize } from '../../src/engine/stream-node.js';

type Op =
  | { op: 'pushHead' | 'pushTail' | 'removeAll' | 'removeHead' | 'removeTail' | 'matchHead' | 'matchTail' | 'packEnds'; v: string; n: number }
  | { op: 'popHead' | 'popTail' | 'trimHead' | 'trimTail' | 'at' | 'set' | 'insertAt' | 'range' | 'backward'; v: string; n: number; m: number };

const value = fc.constantFrom('a', 'b', 'c', '', '1');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constantFrom('pushHead', 'pushTail'), v: value, n: fc.integer({ min: 1, max: 300 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constantFrom('popHead', 'popTail', 'trimHead', 'trimTail', 'at', 'set', 'insertAt', 'range', 'backward'),
      v: value,
      n: fc.integer({ min: -400, max: 400 }),
      m: fc.integer({ min: -400, max: 400 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('removeAll', 'removeHead', 'removeTail', 'matchHead', 'matchTail', 'packEnds'), v: value, n: fc.integer({ min: 0, max: 50 }) }) },
) as fc.Arbitrary<Op>;

const b = (s: string) => Buffer.from(s);
const strings = (items: Iterable<Buffer>) => [...items].map((x) => x.toString());

/** Applies one operation to both; returns what each observed, which must be equal. */
function apply(list: ListValue, model: string[], o: Op): [unknown, unknown] {
  const norm = (i: number) => (i < 0 ? i + model.length : i);
  switch (o.op) {
    case 'pushHead':
      for (let i = 0; i < o.n; i++) {
        list.pushHead(b(o.v + i));
        model.unshift(o.v + i);
      }
      return [list.length, model.length];
    case 'pushTail':
      for (let i = 0; i < o.n; i++) {
        list.pushTail(b(o.v + i));
        model.push(o.v + i);
      }
      return [list.length, model.length];
    case 'packEnds': {
      list.packEnds();
      const sizes = list.chunkSizes();
      return [[sizes[0]?.loose ?? 0, sizes.at(-1)?.loose ?? 0], [0, 0]];
    }
    case 'popHead':
      return [list.popHead()?.toString(), model.shift()];
    case 'popTail':
      return [list.popTail()?.toString(), model.pop()];
    case 'trimHead': {
      const n = Math.abs(o.n);
      list.trimHead(n);
      model.splice(0, n);
      return [list.length, model.length];
    }
    case 'trimTail': {
      const n = Math.abs(o.n);
      list.trimTail(n);
      model.splice(Math.max(0, model.length - n), n);
      return [list.length, model.length];
    }
    case 'at':
      return [list.at(o.n)?.toString(), model[norm(o.n)]];
    case 'set': {
      const i = norm(o.n);
      const inRange = i >= 0 && i < model.length;
      if (inRange) model[i] = `set${o.v}`;
      return [list.set(o.n, b(`set${o.v}`)), inRange];
    }
    case 'insertAt': {
      const i = Math.min(Math.max(o.n, 0), model.length);
      list.insertAt(o.n, b(`ins${o.v}`));
      model.splice(i, 0, `ins${o.v}`);
      return [list.length, model.length];
    }
    case 'range': {
      const start = Math.min(Math.abs(o.n), Math.abs(o.m));
      const end = Math.min(Math.max(Math.abs(o.n), Math.abs(o.m)), model.length - 1);
      const reverse = o.n < 0;
      const expected = start > end ? [] : model.slice(start, end + 1);
      return [strings(list.range(start, end, reverse)), reverse ? expected.reverse() : expected];
    }
    case 'backward': {
      const i = norm(o.n);
      const expected = i >= 0 && i < model.length ? model.slice(0, i + 1).reverse() : [];
      return [strings(list.backward(o.n)), expected];
    }
    case 'matchHead':
    case 'matchTail': {
      const fromTail = o.op === 'matchTail';
      const target = `${o.v}0`;
      const order = model.map((_, i) => (fromTail ? model.length - 1 - i : i));
      const expected = order.filter((i) => model[i] === target);
      const maxScan = o.n % 7; // 0 = no limit
      const scannedOrder = maxScan === 0 ? order : order.slice(0, maxScan);
      return [[...list.matches(b(target), fromTail, maxScan)], expected.filter((i) => scannedOrder.includes(i))];
    }
    case 'removeAll':
    case 'removeHead':
    case 'removeTail': {
      const fromTail = o.op === 'removeTail';
      const limit = o.op === 'removeAll' ? 0 : o.n;
      // Removes elements equal to the first pushed form of the value ("a0").
      const target = `${o.v}0`;
      const matches = model.map((x, i) => (x === target ? i : -1)).filter((i) => i >= 0);
      const chosen = fromTail ? matches.reverse() : matches;
      const remove = new Set(limit === 0 ? chosen : chosen.slice(0, limit));
      const kept = model.filter((_, i) => !remove.has(i));
      model.length = 0;
      model.push(...kept);
      return [list.removeMatching(b(target), limit, fromTail), remove.size];
    }
  }
}

/** How far past its limit Redis 7.0's merge rule lets a node go: 11 bytes counted saved, 7 saved. */
const MERGE_OVERSHOOT = 11 - 7;

/** A node's byte limit for a negative fill (quicklist's optimization_level). */
const sizeLimit = (fill: number) => [4096, 8192, 16384, 32768, 65536][-fill - 1]!;

/** Checks each chunk against the elements it holds: its listpack bytes, its limit. */
function checkChunks(list: ListValue, model: string[], fill: number, elementsGrew: boolean): void {
  let at = 0;
  for (const { bytes, length } of list.chunkSizes()) {
    assert.ok(length > 0, 'no empty chunk');
    const elements = model.slice(at, at + length);
    at += length;
    assert.equal(bytes, 7 + elements.reduce((sum, e) => sum + lpStringSize(Buffer.from(e, 'latin1')), 0));
    if (fill > 0) assert.ok(length <= fill, `${length} elements in a chunk of fill ${fill}`);
    // LSET replaces in place whatever the node's size becomes, as Redis does. A merge of two
    // nodes counts 11 bytes saved (Redis 7.0's _quicklistNodeAllowMerge, from the ziplist's
    // header and end) where a listpack's are 7: a merged node may pass the limit by 4 bytes.
    else if (!elementsGrew && length > 1) assert.ok(bytes <= sizeLimit(fill) + MERGE_OVERSHOOT, `${bytes} bytes in a chunk of fill ${fill}`);
  }
  assert.equal(at, model.length);
}

test('a merge after removals allows what Redis 7.0 allows: 4 bytes past the node limit', () => {
  // The case fast-check found: nodes of 19 and 4088 bytes (fill -1, 4096) merge once one 2-byte
  // entry goes, as quicklist merges them (4107 - 11 <= 4096), into 4098 bytes.
  const list = new ListValue(-1);
  for (const [v, n] of [['', 8], ['1', 297], ['a', 180], ['a', 274], ['1', 246]] as const) for (let i = 0; i < n; i++) list.pushHead(b(v + i));
  assert.deepEqual(list.chunkSizes().map((c) => c.bytes), [19, 4088]);
  assert.equal(list.removeMatching(b('0'), 0, false), 1);
  assert.deepEqual(list.chunkSizes().map((c) => c.bytes), [4098]);
});

test('random operations agree with an array model', () => {
  fc.assert(
    fc.property(fc.constantFrom(-2, -1, 1, 2, 5, 16), fc.array(op, { maxLength: 60 }), (fill, ops) => {
      const list = new ListValue(fill);
      const model: string[] = [];
      for (const o of ops) {
        const [got, expected] = apply(list, model, o);
        assert.deepEqual(got, expected, `after ${JSON.stringify(o)}`);
        assert.equal(list.length, model.length);
      }
      assert.deepEqual(strings(list.forward()), model);
      assert.deepEqual(strings(list.backward()), [...model].reverse());
      checkChunks(list, model, fill, ops.some((o) => o.op === 'set'));
      // Pushes fill chunks, splits halve them and removals merge neighbours: about 2n/fill + 2 chunks.
      const perChunk = fill > 0 ? fill : sizeLimit(fill) / 4; // elements here take at most 4 bytes
      assert.ok(list.chunkCount <= Math.ceil((2 * model.length) / perChunk) + 2, `${list.chunkCount} chunks for ${model.length}`);
      if (model.length === 0) assert.equal(list.chunkCount, 0);
    }),
    { numRuns: 400 },
  );
});

test('a million pushes and pops at both ends stay fast and compact', () => {
  const list = new ListValue();
  const started = performance.now();
  for (let i = 0; i < 500_000; i++) {
    list.pushHead(b('h'));
    list.pushTail(b('t'));
  }
  assert.equal(list.length, 1_000_000);
  // Full chunks take no more pushes: none keeps loose elements, only the two ends may.
  assert.ok(list.chunkSizes().slice(1, -1).every((c) => c.loose === 0));
  // 8 KiB nodes of 3-byte entries ("h" is 2 in the listpack, plus its length byte: ~2700 a node).
  assert.ok(list.chunkCount <= Math.ceil(1_000_000 / 2700) + 2, `${list.chunkCount} chunks`);
  for (let i = 0; i < 500_000; i++) {
    assert.equal(list.popHead()!.toString(), 'h');
    assert.equal(list.popTail()!.toString(), 't');
  }
  assert.equal(list.length, 0);
  assert.equal(list.chunkCount, 0);
  // A generous bound: this only catches O(n) pushes (which would take minutes), not a timing.
  assert.ok(performance.now() - started < 20_000);
});

test('list-max-listpack-size: -2 fills nodes to 8 KiB as quicklist does, a count fill by elements', () => {
  const bytes = new ListValue(-2);
  const counted = new ListValue(100);
  for (let i = 0; i < 10_000; i++) {
    bytes.pushTail(b(`member:${1000 + (i % 1000)}`));
    counted.pushHead(b(String(i)));
  }
  // member:1NNN is a 13-byte entry: a node of k takes one more while 7 + 13k + 13 + 8 <= 8192.
  assert.equal(bytes.chunkSizes()[0]!.length, Math.floor((8192 - 7 - 13 - 8) / 13) + 1);
  assert.equal(counted.chunkCount, 100);
  // Fills below -5 are -5 (64 KiB nodes).
  const huge = new ListValue(-100);
  for (let i = 0; i < 10_000; i++) huge.pushTail(b('member:00'));
  assert.equal(huge.chunkCount, 2);
  const zero = new ListValue(0);
  for (let i = 0; i < 3; i++) zero.pushTail(b('x'));
  assert.equal(zero.chunkCount, 3); // fill 0: a node per element, as quicklist
});
