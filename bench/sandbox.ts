// A sandboxed no-op job against an in-process one (issue 31's target: at most 3x the cost):
// jobs/s of a Worker at concurrency 10 whose handler is a no-op function, a no-op module in
// worker threads, and in child processes, on the embedded engine, sluice server and
// redis-server; then BullMQ's Worker the same three ways (a function, a processor file with
// useWorkerThreads, a processor file in child processes) on the same redis-server. Each run
// fills the queue first, lets the worker take 500 jobs to warm up (and start its sandboxes),
// then times the next N; the best of three runs is kept, the modes taking turns.
//
//   node dist/bench/sandbox.js [N]     (default 5000)
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { open } from '../src/client/embedded.js';
import { Producer } from '../src/broker/producer.js';
import { Worker, type WorkerOptions } from '../src/broker/worker.js';
import { startRedis, startSluice } from './servers.js';

const N = Number(process.argv[2] ?? 5000);
const WARM = 500;
const RUNS = 3;
const PROCESSOR = new URL('./fixtures/noop-processor.js', import.meta.url);
type Mode = 'in-process' | 'thread' | 'process';

/** Seconds from the WARM-th 'completed' to the (WARM + N)-th; `onCompleted` subscribes to them. */
function timed(onCompleted: (listener: () => void) => void): Promise<number> {
  let started = 0;
  let count = 0;
  return new Promise((resolve) => {
    onCompleted(() => {
      count++;
      if (count === WARM) started = performance.now();
      if (count === WARM + N) resolve((performance.now() - started) / 1000);
    });
  });
}

/** Adds WARM + N jobs (numbered from 0) in batches of 1000 through `addBatch`. */
async function fill(addBatch: (numbers: number[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM + N; i += 1000) await addBatch(Array.from({ length: Math.min(1000, WARM + N - i) }, (_, k) => i + k));
}

async function once(conn: Connection, mode: Mode, run: number): Promise<number> {
  const stream = `bench-sandbox-${mode}-${run}-${process.pid}`;
  const producer = new Producer<number>(conn, { stream });
  await fill((numbers) => producer.addMany(numbers));
  const options: WorkerOptions = { stream, group: 'g', concurrency: 10, blockMs: 100 };
  const worker =
    mode === 'in-process' ? new Worker<number>(conn, options, () => undefined) : new Worker<number>(conn, { ...options, sandbox: { kind: mode } }, PROCESSOR);
  worker.on('error', (e) => console.error(e.message));
  const seconds = timed((listener) => worker.on('completed', listener));
  await worker.start();
  const rate = N / (await seconds);
  await worker.close();
  await conn.call('DEL', stream);
  return rate;
}

/** BullMQ's Worker on the same redis-server, the same jobs, the same way. */
async function bullOnce(port: number, mode: Mode, run: number): Promise<number> {
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const name = `bench-sandbox-${mode}-${run}-${process.pid}`;
  const queue = new BullQueue(name, { connection });
  const keep = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 10_000 } };
  await fill((numbers) => queue.addBulk(numbers.map((n) => ({ name: 'job', data: n, opts: keep }))));
  const options = { connection, concurrency: 10, ...keep };
  const worker =
    mode === 'in-process'
      ? new BullWorker(name, async () => undefined, options)
      : new BullWorker(name, PROCESSOR, { ...options, useWorkerThreads: mode === 'thread' });
  worker.on('error', (e) => console.error(e.message));
  const rate = N / (await timed((listener) => worker.on('completed', listener)));
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return rate;
}

/** Issue 31's target: a sandboxed no-op job costs at most 3x an in-process one. */
const TARGET = 3;

async function bench(name: string, once: (mode: Mode, run: number) => Promise<number>): Promise<void> {
  const modes = ['in-process', 'thread', 'process'] as const;
  const rates = new Map<Mode, number>(modes.map((m) => [m, 0]));
  // Rounds of every mode in turn, so that the load of a shared machine falls on all alike.
  for (let run = 0; run < RUNS; run++) for (const mode of modes) rates.set(mode, Math.max(rates.get(mode)!, await once(mode, run)));
  const base = rates.get('in-process')!;
  for (const [mode, rate] of rates) {
    const cost = base / rate;
    const verdict = mode === 'in-process' ? '' : cost <= TARGET ? `  (target <= ${TARGET}x: met)` : `  (target <= ${TARGET}x: MISSED)`;
    console.log(`${name.padEnd(13)} ${mode.padEnd(11)} ${rate.toFixed(0).padStart(7)} jobs/s   cost ${cost.toFixed(2)}x in-process${verdict}`);
  }
}

const db = await open();
const embedded = await connect(db);
await bench('embedded', (mode, run) => once(embedded, mode, run));
await embedded.close();
await db.close();

for (const [name, start] of [
  ['sluice-server', () => startSluice()],
  ['redis-server', () => startRedis()],
] as const) {
  const server = await start();
  const conn = await connect(`redis://127.0.0.1:${server.port}`);
  try {
    await bench(name, (mode, run) => once(conn, mode, run));
    if (name === 'redis-server') await bench('BullMQ/redis', (mode, run) => bullOnce(server.port, mode, run));
  } finally {
    await conn.close();
    await server.stop();
  }
}
