// Prioritized jobs on a real Redis Cluster (3 masters): each stream's `:prioritized` set and its
// movers' guard share the stream's slot (partitioned or not), so the producer's MULTI and the
// worker's WATCH + MULTI (XADD, ZREM, record) never CROSSSLOT; three workers over 3 partitions
// handle each of 600 prioritized jobs once, and nothing is left in the sets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prioritizedKey } from '../../src/broker/jobs/priority.js';
import { keySlot } from '../../src/broker/partition.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';
import { useCluster } from './use-cluster.js';

const shared = useCluster();
const { workers } = shared;

test('600 prioritized jobs over 3 partitions, 3 workers: each handled once, sets empty', async () => {
  const { conn } = shared;
  const producer = new Producer(conn, { stream: 'renders', partitions: 3 });
  for (const s of [...producer.streams, 'renders']) {
    assert.equal(keySlot(prioritizedKey(s)), keySlot(s));
    assert.equal(keySlot(`${prioritizedKey(s)}:mover`), keySlot(s));
  }
  await producer.addMany(Array.from({ length: 600 }, (_, n) => ({ payload: { n }, key: `k${n}`, priority: 1 + (n % 5) })), { keyed: true });
  const calls = new Map<number, number>();
  const errors: Error[] = [];
  for (let i = 0; i < 3; i++) {
    const w = new Worker<{ n: number }>(conn, { stream: 'renders', partitions: 3, group: 'g', blockMs: 200 }, (job) => {
      calls.set(job.payload.n, (calls.get(job.payload.n) ?? 0) + 1);
    });
    w.on('error', (e) => errors.push(e));
    workers.push(w as Worker);
    await w.start();
  }
  await waitFor(() => calls.size === 600, 'all 600 handled', 15_000);
  for (const w of workers) await w.close();
  assert.deepEqual([...calls.values()].filter((c) => c !== 1), []);
  assert.deepEqual(errors.map((e) => e.message), []);
  for (const s of producer.streams) assert.equal(Number(await conn.call('ZCARD', prioritizedKey(s))), 0);
});
