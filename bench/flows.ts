// A flow of 1 parent + 10 children against a single job, end to end (from add to the parent's
// completion, one at a time), on the embedded engine, sluice server and redis-server, and
// BullMQ's FlowProducer against BullMQ's single job on the same redis-server, in the same run.
// The children and the parent are on two streams (queues), each with a worker of concurrency
// 10; handlers return a small value, the parent reads its children's values. Prints the mean
// ms per flow and per job and flow/single (issue 31's target: at most 12x).
//
// Usage: node dist/bench/flows.js [--rounds 300]
import { FlowProducer as BullFlowProducer, Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { open } from '../src/client/embedded.js';
import { FlowProducer } from '../src/broker/flows/flow-producer.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { startRedis, startSluice } from './servers.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}
const ROUNDS = arg('rounds', 300);
const WARMUP = 20;
let seq = 0;

/** Mean ms of `one()` over ROUNDS after WARMUP. */
async function mean(one: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await one();
  const t = performance.now();
  for (let i = 0; i < ROUNDS; i++) await one();
  return (performance.now() - t) / ROUNDS;
}

/** Completion waiters by job id, fed by a worker's 'completed' event. */
function waiters(): { wait(id: string): Promise<void>; done(id: string): void } {
  const map = new Map<string, () => void>();
  const early = new Set<string>();
  return {
    wait: (id) =>
      early.delete(id)
        ? Promise.resolve()
        : new Promise((r) => {
            map.set(id, r);
          }),
    done: (id) => {
      const w = map.get(id);
      if (w === undefined) return void early.add(id);
      map.delete(id);
      w();
    },
  };
}

async function sluice(conn: Connection): Promise<{ single: number; flow: number }> {
  const n = ++seq;
  const kids = `{b${n}}kids`;
  const parents = `{b${n}}parents`;
  const single = `{b${n}}single`;
  const w = waiters();
  const workers = [
    new Worker(conn, { stream: kids, group: 'g', concurrency: 10, blockMs: 1000 }, (job) => ({ n: (job.payload as { n: number }).n })),
    new Worker(conn, { stream: parents, group: 'g', concurrency: 10, blockMs: 1000 }, async (job) => Object.keys(await job.getChildrenValues()).length),
    new Worker(conn, { stream: single, group: 'g', concurrency: 10, blockMs: 1000 }, () => ({ n: 1 })),
  ];
  for (const worker of workers) {
    worker.on('completed', (job) => w.done(job.id));
    worker.on('error', () => {});
    await worker.start();
  }
  const producer = new Producer(conn, { stream: single });
  const flows = new FlowProducer(conn);
  const singleMs = await mean(async () => {
    const id = await producer.add({ n: 1 });
    await w.wait(id);
  });
  const flowMs = await mean(async () => {
    const node = await flows.add({ stream: parents, data: { p: 1 }, children: Array.from({ length: 10 }, (_, i) => ({ stream: kids, data: { n: i } })) });
    await w.wait(node.id);
  });
  for (const worker of workers) await worker.close();
  await producer.close();
  return { single: singleMs, flow: flowMs };
}

async function bull(port: number): Promise<{ single: number; flow: number }> {
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const n = ++seq;
  const w = waiters();
  const keep = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 10_000 } };
  const workers = [
    new BullWorker(`kids${n}`, async (job) => ({ n: job.data.n }), { connection, concurrency: 10, ...keep }),
    new BullWorker(`parents${n}`, async (job) => Object.keys(await job.getChildrenValues()).length, { connection, concurrency: 10, ...keep }),
    new BullWorker(`single${n}`, async () => ({ n: 1 }), { connection, concurrency: 10, ...keep }),
  ];
  for (const worker of workers) {
    worker.on('completed', (job) => w.done(job.id!));
    await worker.waitUntilReady();
  }
  const queue = new BullQueue(`single${n}`, { connection });
  const flows = new BullFlowProducer({ connection });
  const singleMs = await mean(async () => {
    const job = await queue.add('j', { n: 1 }, keep);
    await w.wait(job.id!);
  });
  const flowMs = await mean(async () => {
    const tree = await flows.add({ name: 'p', queueName: `parents${n}`, data: { p: 1 }, opts: keep, children: Array.from({ length: 10 }, (_, i) => ({ name: 'k', queueName: `kids${n}`, data: { n: i }, opts: keep })) });
    await w.wait(tree.job.id!);
  });
  for (const worker of workers) await worker.close();
  await queue.close();
  await flows.close();
  return { single: singleMs, flow: flowMs };
}

const rows: Array<[string, { single: number; flow: number }]> = [];
const db = await open();
const embedded = await connect(db);
rows.push(['sluice, embedded', await sluice(embedded)]);
await embedded.close();
await db.close();

const server = await startSluice();
const overSluice = await connect(`redis://127.0.0.1:${server.port}`);
rows.push(['sluice, sluice server', await sluice(overSluice)]);
await overSluice.close();
await server.stop();

const redis = await startRedis();
const overRedis = await connect(`redis://127.0.0.1:${redis.port}`);
rows.push(['sluice, redis-server', await sluice(overRedis)]);
await overRedis.close();
rows.push(['BullMQ, redis-server', await bull(redis.port)]);
await redis.stop();

console.log(`flow of 1 parent + 10 children vs one job, end to end, mean of ${ROUNDS} after ${WARMUP} warm-up (ms)`);
console.log('backend'.padEnd(24), 'single'.padStart(8), 'flow'.padStart(8), 'flow/single'.padStart(12));
for (const [name, r] of rows) console.log(name.padEnd(24), r.single.toFixed(3).padStart(8), r.flow.toFixed(3).padStart(8), `${(r.flow / r.single).toFixed(1)}x`.padStart(12));
const sl = rows.find(([n]) => n === 'sluice, redis-server')![1];
const bm = rows.find(([n]) => n === 'BullMQ, redis-server')![1];
console.log(`same redis-server: sluice flow ${sl.flow.toFixed(3)} ms vs BullMQ flow ${bm.flow.toFixed(3)} ms (sluice/BullMQ ${(sl.flow / bm.flow).toFixed(2)})`);
