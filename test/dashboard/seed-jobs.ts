// Jobs the job-view tests look at, made by a real Producer and Worker (no hand-written keys):
// in `shop`, one completed (return value, progress, a log line), one failed for good (a stack),
// one delayed an hour, two waiting (added after the worker closed); in `later`, a queue whose
// only job is delayed, so its stream does not exist yet, only its events stream. On a cluster,
// pass hash-tagged names (`{shop}`): the dead-letter stream must share the stream's slot.
import type { Connection } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';

export const SHOP = 'shop';
export const LATER = 'later';
export const HOUR = 3_600_000;

export interface ShopOrder {
  sku: string;
  qty: number;
  fail?: boolean;
}

export interface SeededJobs {
  completed: string;
  failed: string;
  delayed: string;
  waiting: string[];
  laterDelayed: string;
}

export async function seedJobs(conn: Connection, names: { shop: string; later: string } = { shop: SHOP, later: LATER }): Promise<SeededJobs> {
  const producer = new Producer<ShopOrder>(conn, { stream: names.shop });
  const queue = new Queue(conn, { stream: names.shop });
  const worker = new Worker<ShopOrder, { total: number }>(conn, { stream: names.shop, group: 'packers', consumer: 'packer-1', blockMs: 50 }, async (job) => {
    await job.updateProgress(50);
    await job.log(`packing ${job.payload.qty} x ${job.payload.sku}`);
    if (job.payload.fail === true) throw new Error('out of boxes');
    return { total: job.payload.qty * 4 };
  });
  await worker.start();
  const completed = await producer.add({ sku: 'tea', qty: 3 }, { jobId: 'order-tea' });
  const failed = await producer.add({ sku: 'cups', qty: 2, fail: true }, { jobId: 'order-cups', attempts: 1 });
  await waitFor(async () => {
    const counts = await queue.getJobCounts();
    return counts.completed === 1 && counts.failed === 1;
  }, 'the worker to finish order-tea and order-cups');
  await worker.close();
  const delayed = await producer.add({ sku: 'jam', qty: 1 }, { jobId: 'order-jam', delayMs: HOUR });
  const waiting = [await producer.add({ sku: 'milk', qty: 1 }, { jobId: 'order-milk' }), await producer.add({ sku: 'bread', qty: 2 }, { jobId: 'order-bread' })];
  const laterDelayed = await new Producer(conn, { stream: names.later }).add({ report: 'monthly' }, { jobId: 'report-1', delayMs: HOUR });
  await queue.close();
  return { completed, failed, delayed, waiting, laterDelayed };
}
