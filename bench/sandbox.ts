// A sandboxed no-op job against an in-process one (issue 31's target: at most 3x the cost):
// jobs/s of a Worker at concurrency 10 whose handler is a no-op function, a no-op module in
// worker threads, and in child processes, on the embedded engine and on redis-server. Each run
// fills the stream first, lets the worker take 500 jobs to warm up (and start its sandboxes),
// then times the next N; the best of three runs is kept.
//
//   node dist/bench/sandbox.js [N]     (default 5000)
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { open } from '../src/client/embedded.js';
import { Producer } from '../src/broker/producer.js';
import { Worker, type WorkerOptions } from '../src/broker/worker.js';
import { startRedis } from './servers.js';

const N = Number(process.argv[2] ?? 5000);
const WARM = 500;
const RUNS = 3;
const PROCESSOR = new URL('./fixtures/noop-processor.js', import.meta.url);
type Mode = 'in-process' | 'thread' | 'process';

async function once(conn: Connection, mode: Mode, run: number): Promise<number> {
  const stream = `bench-sandbox-${mode}-${run}-${process.pid}`;
  const producer = new Producer<number>(conn, { stream });
  for (let i = 0; i < WARM + N; i += 1000) await producer.addMany(Array.from({ length: Math.min(1000, WARM + N - i) }, (_, k) => i + k));
  const options: WorkerOptions = { stream, group: 'g', concurrency: 10, blockMs: 100 };
  const worker =
    mode === 'in-process' ? new Worker<number>(conn, options, () => undefined) : new Worker<number>(conn, { ...options, sandbox: { kind: mode } }, PROCESSOR);
  worker.on('error', (e) => console.error(e.message));
  let started = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  let count = 0;
  worker.on('completed', () => {
    count++;
    if (count === WARM) started = performance.now();
    if (count === WARM + N) done();
  });
  await worker.start();
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  await conn.call('DEL', stream);
  return N / seconds;
}

async function bench(name: string, conn: Connection): Promise<void> {
  const rates = new Map<Mode, number>();
  for (const mode of ['in-process', 'thread', 'process'] as const) {
    let best = 0;
    for (let run = 0; run < RUNS; run++) best = Math.max(best, await once(conn, mode, run));
    rates.set(mode, best);
  }
  const base = rates.get('in-process')!;
  for (const [mode, rate] of rates) {
    console.log(`${name.padEnd(13)} ${mode.padEnd(11)} ${rate.toFixed(0).padStart(7)} jobs/s   cost ${(base / rate).toFixed(2)}x in-process`);
  }
}

const db = await open();
const embedded = await connect(db);
await bench('embedded', embedded);
await embedded.close();
await db.close();

const redis = await startRedis();
const conn = await connect(`redis://127.0.0.1:${redis.port}`);
await bench('redis-server', conn);
await conn.close();
await redis.stop();
