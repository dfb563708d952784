// Delayed delivery on a real Redis Cluster (3 masters): each partition's `:delayed` set shares
// its stream's slot, so the mover's WATCH + MULTI (XADD, ZREM) never CROSSSLOTs; three workers
// moving at once move each job once and handle none before its due time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { delayedKey, serverTimeMs } from '../../src/broker/delayed.js';
import { keySlot } from '../../src/broker/partition.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';
import { useCluster } from './use-cluster.js';

const shared = useCluster();
const { workers } = shared;

test('600 delayed jobs over 3 partitions, 3 workers: each moved and handled once, none early', async () => {
  const { conn } = shared;
  const producer = new Producer(conn, { stream: 'reminders', partitions: 3 });
  for (const s of producer.streams) assert.equal(keySlot(delayedKey(s)), keySlot(s));
  const now = await serverTimeMs(conn);
  const due = (n: number): number => now + 300 + (n % 10) * 30;
  await producer.addMany(Array.from({ length: 600 }, (_, n) => ({ payload: { n }, key: `k${n}`, at: due(n) })), { keyed: true });
  const calls = new Map<number, number>();
  const early: number[] = [];
  for (let i = 0; i < 3; i++) {
    const w = new Worker<{ n: number }>(conn, { stream: 'reminders', partitions: 3, group: 'g', blockMs: 200 }, async (job) => {
      calls.set(job.payload.n, (calls.get(job.payload.n) ?? 0) + 1);
      if ((await serverTimeMs(conn)) < due(job.payload.n)) early.push(job.payload.n);
    });
    const errors: Error[] = [];
    w.on('error', (e) => errors.push(e));
    workers.push(w as Worker);
    await w.start();
  }
  await waitFor(() => calls.size === 600, 'all 600 handled', 15_000);
  // Closed, every move and handler begun has finished: a job moved or delivered twice shows now.
  for (const w of workers) await w.close();
  assert.deepEqual([...calls.values()].filter((c) => c !== 1), []);
  assert.deepEqual(early, []);
  let total = 0;
  for (const s of producer.streams) {
    total += Number(await conn.call('XLEN', s));
    assert.equal(Number(await conn.call('ZCARD', delayedKey(s))), 0);
  }
  assert.equal(total, 600);
});
