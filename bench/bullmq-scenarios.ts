// BullMQ's own benchmark scenarios (taskforcesh/bullmq-bench) against a server given by its
// connection options: queue-add (one job at a time, each awaited), queue-add-bulk (addBulk of
// a given size), and a worker at a given concurrency timed over a queue filled beforehand. Shared
// by bench/jobs-vs-bullmq.ts (BullMQ beside sluice's jobs) and bench/bullmq-on-sluice.ts (BullMQ
// on sluice server beside redis-server).
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';

export interface Payload {
  orderId: string;
  sku: string;
  qty: number;
}
export const payload = (n: number): Payload => ({ orderId: `order-${String(n).padStart(8, '0')}`, sku: 'tea', qty: 1 + (n % 5) });
export const handler = (data: Payload): { total: number } => ({ total: data.qty * 4 });
/** Finished jobs kept as sluice's jobs keep them by default. */
export const KEEP = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 10_000 } };

export interface BullConnection {
  host: string;
  port: number;
  maxRetriesPerRequest: null;
}

export const rate = (n: number, ms: number): number => Math.round(n / (ms / 1000));

/** Resolves once `count()` reaches n. */
export async function until(count: () => number, n: number): Promise<void> {
  while (count() < n) await new Promise((r) => setTimeout(r, 2));
}

/** Jobs/s adding n jobs to a fresh queue, one at a time (bulk 1) or in addBulk calls of `bulk`. */
export async function bullAdd(connection: BullConnection, name: string, n: number, bulk: number): Promise<number> {
  const queue = new BullQueue(name, { connection });
  await queue.add('job', payload(-1), KEEP); // connection and script load outside the timing
  const t = performance.now();
  if (bulk === 1) for (let i = 0; i < n; i++) await queue.add('job', payload(i), KEEP);
  else for (let i = 0; i < n; i += bulk) await queue.addBulk(Array.from({ length: bulk }, (_, k) => ({ name: 'job', data: payload(i + k), opts: KEEP })));
  const ms = performance.now() - t;
  await queue.close();
  return rate(n, ms);
}

/** Jobs/s of a worker at `concurrency` draining n jobs added beforehand. */
export async function bullWork(connection: BullConnection, name: string, n: number, concurrency: number): Promise<number> {
  const queue = new BullQueue(name, { connection });
  for (let i = 0; i < n; i += 1000) await queue.addBulk(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ name: 'job', data: payload(i + k), opts: KEEP })));
  let done = 0;
  const t = performance.now();
  const worker = new BullWorker(name, async (job) => handler(job.data as Payload), { connection, concurrency, ...KEEP });
  worker.on('completed', () => done++);
  await until(() => done, n);
  const ms = performance.now() - t;
  await worker.close();
  await queue.close();
  return rate(n, ms);
}
