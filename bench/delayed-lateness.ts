// How late delayed jobs are handled while a producer keeps adding (issue 32, item 5): JOBS jobs
// (default 20,000) added at RATE per second in batches, a share of them (default 30%) delayed
// by 0..MAX_DELAY ms, consumed by WORKERS worker processes (default 3; each runs the
// DelayedMover, as every Worker does). Per backend, side by side: the lateness of delayed jobs
// (handler start minus due time) and the wait of immediate ones (handler start minus add),
// p50 / p99 / max, and how many EXECs the server ran (the movers' MULTIs, and what aborted
// ones cost: each holds up to 100 XADDs). Same machine, so one clock.
//
//   node dist/bench/delayed-lateness.js [--jobs 20000] [--rate 2000] [--delayed 0.3]
//        [--max-delay-ms 3000] [--workers 3] [--poll-ms 100] [--only sluice,redis,embedded]
//
// The embedded engine cannot be shared by processes: its workers run in this process.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { EmbeddedConnection } from '../src/client/embedded-connection.js';
import { open } from '../src/client/embedded.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { startRedis, startSluice } from './servers.js';
import { percentile } from './drain.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const JOBS = Number(arg('jobs', '20000'));
const RATE = Number(arg('rate', '2000'));
const DELAYED = Number(arg('delayed', '0.3'));
const MAX_DELAY_MS = Number(arg('max-delay-ms', '3000'));
const WORKERS = Number(arg('workers', '3'));
const POLL_MS = Number(arg('poll-ms', '100'));
const ONLY = arg('only', 'sluice,redis,embedded').split(',');
const STREAM = 'lateness';
const BATCH = 50;

interface Payload {
  /** When it was added (ms, this machine's clock). */
  t: number;
  /** For a delayed job: its due time. */
  due?: number;
}

/**
 * What a worker measured, in ms: lateness of delayed jobs, the part of it before the entry was
 * in the stream (its id's time minus the due time: the mover's share), and waits of immediate
 * jobs.
 */
interface Samples {
  late: number[];
  moved: number[];
  wait: number[];
}

function newWorker(conn: Connection, samples: Samples): Worker<Payload> {
  const w = new Worker<Payload>(conn, { stream: STREAM, group: 'g', concurrency: 50, delayed: { pollMs: POLL_MS } }, (job) => {
    const now = Date.now();
    if (job.payload.due === undefined) return void samples.wait.push(now - job.payload.t);
    samples.late.push(now - job.payload.due);
    samples.moved.push(Number(job.id.slice(0, job.id.indexOf('-'))) - job.payload.due);
  });
  w.on('error', (err) => process.stderr.write(`worker error: ${err.message}\n`));
  return w;
}

/** `--role worker --url URL`: one worker process; prints its count every 200 ms, its samples at SIGTERM. */
async function workerProcess(url: string): Promise<void> {
  const conn = await connect(url);
  const samples: Samples = { late: [], moved: [], wait: [] };
  const w = newWorker(conn, samples);
  await w.start();
  process.stdout.write('ready\n');
  const progress = setInterval(() => process.stdout.write(`n ${samples.late.length + samples.wait.length}\n`), 200);
  process.once('SIGTERM', () => {
    void (async () => {
      clearInterval(progress);
      await w.close();
      process.stdout.write(`${JSON.stringify(samples)}\n`);
      await conn.close();
    })();
  });
}

interface Handle {
  count(): number;
  finish(): Promise<Samples[]>;
}

/** WORKERS worker processes on `url`. */
async function remoteWorkers(url: string): Promise<Handle> {
  const script = fileURLToPath(import.meta.url);
  const counts: number[] = [];
  const results: Array<Promise<Samples>> = [];
  const children = await Promise.all(
    Array.from({ length: WORKERS }, (_, i) => {
      const child = spawn(process.execPath, [script, '--role', 'worker', '--url', url], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      counts[i] = 0;
      let ready!: () => void;
      const isReady = new Promise<void>((r) => (ready = r));
      results.push(
        new Promise((resolve) => {
          child.stdout!.on('data', (c: Buffer) => {
            out += c.toString();
            let nl: number;
            while ((nl = out.indexOf('\n')) !== -1) {
              const line = out.slice(0, nl);
              out = out.slice(nl + 1);
              if (line === 'ready') ready();
              else if (line.startsWith('n ')) counts[i] = Number(line.slice(2));
              else if (line.startsWith('{')) resolve(JSON.parse(line) as Samples);
            }
          });
        }),
      );
      return isReady.then(() => child);
    }),
  );
  return {
    count: () => counts.reduce((a, b) => a + b, 0),
    finish: async () => {
      for (const c of children) c.kill('SIGTERM');
      return Promise.all(results);
    },
  };
}

/** WORKERS workers in this process (the embedded engine), each on a connection of its own. */
async function localWorkers(conns: Connection[]): Promise<Handle> {
  const all = conns.map(() => ({ late: [], moved: [], wait: [] }) as Samples);
  const workers = conns.map((c, i) => newWorker(c, all[i]!));
  for (const w of workers) await w.start();
  return {
    count: () => all.reduce((n, s) => n + s.late.length + s.wait.length, 0),
    finish: async () => {
      for (const w of workers) await w.close();
      return all;
    },
  };
}

/** Adds JOBS jobs at RATE per second; resolves when the last was added. */
async function produce(conn: Connection): Promise<void> {
  const producer = new Producer(conn, { stream: STREAM });
  const started = Date.now();
  for (let i = 0; i < JOBS; i += BATCH) {
    const now = Date.now();
    const items = Array.from({ length: Math.min(BATCH, JOBS - i) }, () => {
      if (Math.random() >= DELAYED) return { payload: { t: now } };
      const due = now + Math.floor(Math.random() * MAX_DELAY_MS);
      return { payload: { t: now, due }, at: due };
    });
    await producer.addMany(items, { keyed: true });
    const ahead = started + ((i + BATCH) * 1000) / RATE - Date.now();
    if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
  }
}

interface Row {
  name: string;
  late: number[];
  moved: number[];
  wait: number[];
  producedMs: number;
  execs: number;
}

async function run(name: string, producerConn: Connection, workers: Handle): Promise<Row> {
  const t0 = Date.now();
  await produce(producerConn);
  const producedMs = Date.now() - t0;
  const deadline = Date.now() + MAX_DELAY_MS + 60_000;
  while (workers.count() < JOBS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const samples = await workers.finish();
  const late = samples.flatMap((s) => s.late).sort((a, b) => a - b);
  const moved = samples.flatMap((s) => s.moved).sort((a, b) => a - b);
  const wait = samples.flatMap((s) => s.wait).sort((a, b) => a - b);
  if (late.length + wait.length < JOBS) process.stderr.write(`${name}: only ${late.length + wait.length} of ${JOBS} handled\n`);
  const stats = String(await producerConn.call('INFO', 'commandstats'));
  const execs = Number(/cmdstat_exec:calls=(\d+)/.exec(stats)?.[1] ?? NaN);
  return { name, late, moved, wait, producedMs, execs };
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  if (ONLY.includes('sluice')) {
    const s = await startSluice();
    const url = `redis://127.0.0.1:${s.port}`;
    const conn = await connect(url);
    rows.push(await run('sluice server', conn, await remoteWorkers(url)));
    await conn.close();
    await s.stop();
  }
  if (ONLY.includes('redis')) {
    const s = await startRedis();
    const url = `redis://127.0.0.1:${s.port}`;
    const conn = await connect(url);
    rows.push(await run('redis-server', conn, await remoteWorkers(url)));
    await conn.close();
    await s.stop();
  }
  if (ONLY.includes('embedded')) {
    const db = await open();
    const conns = Array.from({ length: WORKERS }, () => new EmbeddedConnection(db, false));
    rows.push(await run('embedded', new EmbeddedConnection(db, false), await localWorkers(conns)));
    await db.close();
  }
  console.log(`${JOBS} jobs at ${RATE}/s, ${DELAYED * 100}% delayed 0-${MAX_DELAY_MS} ms, ${WORKERS} workers, pollMs ${POLL_MS}`);
  console.log('ms, p50 / p99 / max; "in stream": the entry id\'s time minus the due time (the mover\'s part)');
  console.log(`${'backend'.padEnd(14)} ${'delayed: lateness'.padEnd(22)} ${'of which in stream'.padEnd(22)} ${'immediate: wait'.padEnd(22)} ${'EXECs'.padEnd(8)} adding took`);
  for (const r of rows) {
    const fmt = (xs: number[]): string => `${percentile(xs, 50)} / ${percentile(xs, 99)} / ${xs[xs.length - 1] ?? NaN}`;
    console.log(`${r.name.padEnd(14)} ${fmt(r.late).padEnd(22)} ${fmt(r.moved).padEnd(22)} ${fmt(r.wait).padEnd(22)} ${String(r.execs).padEnd(8)} ${(r.producedMs / 1000).toFixed(1)} s`);
  }
}

if (arg('role', '') === 'worker') await workerProcess(arg('url', ''));
else await main();
