// IdOrderedMap (the PEL structure) against a sorted-array model under random inserts, deletes
// and seeks, with enough entries to split chunks; and ConsumerGroup's shared-entry bookkeeping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ConsumerGroup } from '../../src/engine/consumer-group.js';
import { IdOrderedMap } from '../../src/engine/pel.js';
import { compareIds, formatId, type StreamId } from '../../src/engine/stream-id.js';

const id = (n: number): StreamId => ({ ms: BigInt(n >> 2), seq: BigInt(n & 3) });

type Op = { kind: 'set' | 'delete' | 'ceiling' | 'range'; n: number; m: number };

test('IdOrderedMap matches a sorted array model', () => {
  const opArb = fc.record({
    kind: fc.constantFrom('set', 'set', 'set', 'delete', 'ceiling', 'range') as fc.Arbitrary<Op['kind']>,
    n: fc.integer({ min: 0, max: 1200 }),
    m: fc.integer({ min: 0, max: 1200 }),
  });
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 1500 }), fc.boolean(), (ops, ascending) => {
      const map = new IdOrderedMap<number>();
      const model = new Map<number, number>();
      // Half the runs start with a long ascending run, the XREADGROUP pattern.
      if (ascending) for (let n = 0; n < 1200; n += 2) map.set(id(n), n), model.set(n, n);
      for (const [i, op] of ops.entries()) {
        const keys = [...model.keys()].sort((a, b) => a - b);
        if (op.kind === 'set') {
          assert.equal(map.set(id(op.n), i), !model.has(op.n));
          model.set(op.n, i);
        } else if (op.kind === 'delete') {
          assert.equal(map.delete(id(op.n)), model.get(op.n));
          model.delete(op.n);
        } else if (op.kind === 'ceiling') {
          const k = keys.find((x) => x >= op.n);
          const got = map.ceiling(id(op.n));
          assert.deepEqual(got === undefined ? undefined : [formatId(got[0]), got[1]], k === undefined ? undefined : [formatId(id(k)), model.get(k)]);
        } else {
          const [lo, hi] = op.n <= op.m ? [op.n, op.m] : [op.m, op.n];
          const got = [...map.range(id(lo), id(hi))].map(([k]) => formatId(k));
          assert.deepEqual(got, keys.filter((x) => x >= lo && x <= hi).map((x) => formatId(id(x))));
        }
        assert.equal(map.size, model.size);
      }
      const all = [...map.entries()];
      for (let i = 1; i < all.length; i++) assert.ok(compareIds(all[i - 1]![0], all[i]![0]) < 0);
      assert.deepEqual(all.map(([k, v]) => [formatId(k), v]), [...model.keys()].sort((a, b) => a - b).map((k) => [formatId(id(k)), model.get(k)]));
      const first = map.first();
      const last = map.last();
      assert.equal(first && formatId(first[0]), all[0] && formatId(all[0][0]));
      assert.equal(last && formatId(last[0]), all.at(-1) && formatId(all.at(-1)![0]));
    }),
    { numRuns: 60 },
  );
});

test('a pending entry is shared by the group PEL and its owner, and moves on reassignment', () => {
  const g = new ConsumerGroup(Buffer.from('g'), id(0));
  const a = g.createConsumer(Buffer.from('a'), 1)!;
  const b = g.createConsumer(Buffer.from('b'), 1)!;
  assert.equal(g.createConsumer(Buffer.from('a'), 2), undefined);
  g.assign(id(5), a, 10, 1);
  g.assign(id(6), a, 10, 1);
  const moved = g.assign(id(5), b, 20, 2);
  assert.equal(moved, g.pel.get(id(5)));
  assert.equal(moved, b.pel.get(id(5)));
  assert.equal(a.pel.has(id(5)), false);
  assert.deepEqual([a.pel.size, b.pel.size, g.pel.size], [1, 1, 2]);
  assert.equal(g.ack(id(5)), true);
  assert.equal(g.ack(id(5)), false);
  assert.equal(b.pel.size, 0);
  assert.equal(g.deleteConsumer(a), 1);
  assert.equal(g.pel.size, 0);
  assert.deepEqual(g.sortedConsumers().map((c) => c.name.toString()), ['b']);
});

test('IdOrderedMap keeps order when inserts in the middle split a chunk', () => {
  const map = new IdOrderedMap<number>();
  for (let n = 0; n < 10_000; n += 10) map.set(id(n), n);
  // 900 inserts inside the first chunk's range (0 .. 2550) force it to split.
  for (let n = 1; n < 1000; n++) if (n % 10 !== 0) map.set(id(n), n);
  const keys = [...map.entries()].map(([, v]) => v);
  assert.equal(map.size, 1000 + 900);
  assert.deepEqual(keys, [...keys].sort((a, b) => a - b));
  assert.equal(map.get(id(555)), 555);
  assert.deepEqual(map.ceiling(id(1000))?.[1], 1000);
  for (let n = 0; n < 1000; n++) map.delete(id(n));
  assert.equal(map.first()?.[1], 1000);
  assert.equal(map.size, 900);
});
