// The completed-jobs archive on a real Redis Cluster (3 masters): each partition's archive, its
// index buckets and bucket count share the partition's slot, so the retention pass's WATCH and
// MULTI (XADD, HSET, DEL, ZREM) never CROSSSLOT; 300 jobs over 3 partitions are archived, and
// Queue finds, lists, counts and removes them there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketOf } from '../../src/broker/jobs/archive.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { keySlot } from '../../src/broker/partition.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';
import { useCluster } from './use-cluster.js';

const shared = useCluster();
const { workers } = shared;

test('300 jobs over 3 partitions: archived in their partitions slots, found, listed, counted, removed', async () => {
  const { conn } = shared;
  const producer = new Producer<{ n: number }>(conn, { stream: 'receipts', partitions: 3 });
  for (const s of producer.streams) {
    const keys = jobKeys(s);
    for (const k of [keys.archive, keys.archiveBuckets, keys.archiveIndex(0), keys.archiveIndex(1023)]) assert.equal(keySlot(k), keySlot(s));
  }
  await producer.addMany(Array.from({ length: 300 }, (_, n) => ({ payload: { n }, key: `k${n}`, jobId: `r-${n}` })), { keyed: true });
  const errors: Error[] = [];
  let done = 0;
  const w = new Worker<{ n: number }>(conn, { stream: 'receipts', partitions: 3, group: 'g', blockMs: 200, removeOnComplete: false }, (job) => job.payload.n * 10);
  w.on('error', (e) => errors.push(e));
  w.on('completed', () => done++);
  workers.push(w as Worker);
  await w.start();
  await waitFor(() => done === 300, 'all 300 completed', 15_000);
  // A second after they finished, the retention pass moves them.
  const archived = async (): Promise<number> => {
    let n = 0;
    for (const s of producer.streams) n += Number(await conn.call('XLEN', jobKeys(s).archive));
    return n;
  };
  await waitFor(async () => (await archived()) === 300, 'all 300 archived', 15_000);
  await w.close();
  assert.deepEqual(errors.map((e) => e.message), []);

  const queue = new Queue<{ n: number }, number>(conn, { stream: 'receipts', partitions: 3 });
  const job = (await queue.getJob('r-42'))!;
  assert.deepEqual([job.state, job.data, job.returnValue], ['completed', { n: 42 }, 420]);
  const s = job.stream;
  assert.ok(Number(await conn.call('HEXISTS', jobKeys(s).archiveIndex(bucketOf('r-42', Number(await conn.call('GET', jobKeys(s).archiveBuckets)))), 'r-42')) === 1);
  assert.equal((await queue.getJobCounts()).completed, 300);
  assert.equal((await queue.getJobs('completed')).length, 300);
  assert.equal(await queue.remove('r-42'), true);
  assert.equal(await queue.getJob('r-42'), null);
  assert.equal((await queue.getJobCounts()).completed, 299);
  await queue.close();
});
