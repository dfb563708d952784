// What each optional broker feature costs a worker (issue 34: every one on, at most 15% slower
// than none): N jobs added beforehand, one Worker (concurrency 50, a no-op handler returning a
// small result) runs them, per configuration:
//   none        no delayed mover, no scheduler, no pause watch (pauseCheckMs 1 h), no limiter, no tracing
//   delayed     + the DelayedMover (default on)            schedules  + the Scheduler (default on)
//   pause       + the pause watch every 500 ms (default)  limiter    + a limiter that never holds back
//   tracing     + an OpenTelemetry tracer provider (the SDK, spans dropped by a no-op processor)
//   all         everything above (the Worker's defaults plus limiter and tracing)
// on redis-server, the embedded engine and sluice server. Rounds alternate the configurations;
// medians of jobs/s and of this process's CPU per job, and each one's ratio to `none`.
//
//   node dist/bench/broker-features.js [--jobs 10000] [--rounds 3] [--only redis,embedded,server]
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { open } from '../src/client/embedded.js';
import { Producer } from '../src/broker/producer.js';
import { Worker, type WorkerOptions } from '../src/broker/worker.js';
import { median, startRedis, startSluice } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const JOBS = Number(arg('jobs', '10000'));
const ROUNDS = Number(arg('rounds', '3'));
const ONLY = arg('only', 'redis,embedded,server').split(',');

type Feature = 'delayed' | 'schedules' | 'pause' | 'limiter' | 'tracing';
const CONFIGS: Array<[string, Feature[]]> = [
  ['none', []],
  ['delayed', ['delayed']],
  ['schedules', ['schedules']],
  ['pause', ['pause']],
  ['limiter', ['limiter']],
  ['tracing', ['tracing']],
  ['all', ['delayed', 'schedules', 'pause', 'limiter', 'tracing']],
];

function workerOptions(stream: string, on: Feature[]): WorkerOptions {
  return {
    stream,
    group: 'g',
    concurrency: 50,
    delayed: on.includes('delayed'),
    schedules: on.includes('schedules'),
    pauseCheckMs: on.includes('pause') ? 500 : 3_600_000,
    ...(on.includes('limiter') ? { limiter: { max: 10_000_000, durationMs: 1000 } } : {}),
  };
}

/** Tracing on or off for the whole process (the API's global provider). */
function tracing(on: boolean): void {
  if (!on) {
    trace.disable();
    context.disable();
    propagation.disable();
    return;
  }
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

let seq = 0;

/** One run: jobs/s and CPU µs per job of this process. */
async function run(conn: Connection, on: Feature[]): Promise<{ rate: number; cpu: number }> {
  const stream = `bf${++seq}`;
  tracing(on.includes('tracing'));
  const producer = new Producer<{ n: number }>(conn, { stream });
  for (let i = 0; i < JOBS; i += 1000) await producer.addMany(Array.from({ length: Math.min(1000, JOBS - i) }, (_, k) => ({ n: i + k })));
  let done = 0;
  const worker = new Worker<{ n: number }, { ok: number }>(conn, workerOptions(stream, on), (job) => ({ ok: job.payload.n }));
  worker.on('completed', () => done++);
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  await worker.start();
  while (done < JOBS) await new Promise((r) => setTimeout(r, 2));
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  await worker.close();
  await producer.close();
  await conn.call('DEL', stream);
  tracing(false);
  return { rate: Math.round(JOBS / (ms / 1000)), cpu: (cpu.user + cpu.system) / JOBS };
}

async function backend(name: string, make: () => Promise<{ conn: Connection; stop: () => Promise<void> }>): Promise<void> {
  const { conn, stop } = await make();
  const results = new Map<string, Array<{ rate: number; cpu: number }>>(CONFIGS.map(([c]) => [c, []]));
  await run(conn, []); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [config, on] of round % 2 === 0 ? CONFIGS : [...CONFIGS].reverse()) results.get(config)!.push(await run(conn, on));
  }
  await stop();
  const base = results.get('none')!;
  const baseRate = median(base.map((r) => r.rate));
  const baseCpu = median(base.map((r) => r.cpu));
  process.stdout.write(`\n${name}: ${JOBS} jobs, concurrency 50, medians of ${ROUNDS} rounds\n`);
  process.stdout.write(`${'config'.padEnd(12)}${'jobs/s'.padStart(9)}${'vs none'.padStart(9)}${'cpu us/job'.padStart(12)}${'vs none'.padStart(9)}\n`);
  for (const [config] of CONFIGS) {
    const rs = results.get(config)!;
    const rate = median(rs.map((r) => r.rate));
    const cpu = median(rs.map((r) => r.cpu));
    process.stdout.write(`${config.padEnd(12)}${String(rate).padStart(9)}${(rate / baseRate).toFixed(2).padStart(8)}x${cpu.toFixed(1).padStart(12)}${(cpu / baseCpu).toFixed(2).padStart(8)}x\n`);
  }
}

if (ONLY.includes('redis')) {
  await backend('redis-server', async () => {
    const server = await startRedis();
    const conn = await connect(`redis://127.0.0.1:${server.port}`);
    return { conn, stop: async () => (await conn.close(), await server.stop()) };
  });
}
if (ONLY.includes('embedded')) {
  await backend('embedded', async () => {
    const db = await open();
    const conn = await connect(db);
    return { conn, stop: async () => (await conn.close(), await db.close()) };
  });
}
if (ONLY.includes('server')) {
  await backend('sluice server', async () => {
    const server = await startSluice();
    const conn = await connect(`redis://127.0.0.1:${server.port}`);
    return { conn, stop: async () => (await conn.close(), await server.stop()) };
  });
}
