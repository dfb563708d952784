// The chunked list against a plain array model: random operation sequences (fast-check) must
// leave both with the same elements, and the chunk count must stay proportional to the length.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CHUNK_MAX, ListValue } from '../../src/engine/list.js';

type Op =
  | { op: 'pushHead' | 'pushTail' | 'removeAll' | 'removeHead' | 'removeTail' | 'matchHead' | 'matchTail'; v: string; n: number }
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
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('removeAll', 'removeHead', 'removeTail', 'matchHead', 'matchTail'), v: value, n: fc.integer({ min: 0, max: 50 }) }) },
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

test('random operations agree with an array model', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const list = new ListValue();
      const model: string[] = [];
      for (const o of ops) {
        const [got, expected] = apply(list, model, o);
        assert.deepEqual(got, expected, `after ${JSON.stringify(o)}`);
        assert.equal(list.length, model.length);
      }
      assert.deepEqual(strings(list.forward()), model);
      assert.deepEqual(strings(list.backward()), [...model].reverse());
      // Chunks are never empty, and removals merge neighbours: at most about 2n/CHUNK_MAX + 1 chunks.
      assert.ok(list.chunkCount <= Math.ceil((2 * model.length) / CHUNK_MAX) + 2, `${list.chunkCount} chunks for ${model.length}`);
      if (model.length === 0) assert.equal(list.chunkCount, 0);
    }),
    { numRuns: 300 },
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
  // Full chunks except at the two ends: one element in 128 costs a chunk.
  assert.ok(list.chunkCount <= Math.ceil(1_000_000 / CHUNK_MAX) + 1, `${list.chunkCount} chunks`);
  for (let i = 0; i < 500_000; i++) {
    assert.equal(list.popHead()!.toString(), 'h');
    assert.equal(list.popTail()!.toString(), 't');
  }
  assert.equal(list.length, 0);
  assert.equal(list.chunkCount, 0);
  // A generous bound: this only catches O(n) pushes (which would take minutes), not a timing.
  assert.ok(performance.now() - started < 20_000);
});
