// Recovery latency of the broker Worker, with and without the Redis 8 stream features
// (XREADGROUP ... CLAIM, XNACK), on the embedded engine (which has them) and, for the Redis 7
// way on a real server, on redis-server 7.0 when it is installed.
//
//   node dist/bench/recovery.js [--messages 200] [--claim-idle 1000] [--runs 5]
//
// Scenarios (time from the event until another worker has handled every message):
//   killed    a consumer read the messages and died holding them (what SIGKILL leaves: its PEL)
//   graceful  a worker whose messages failed once (retry pending) stops with close(); time
//             from close() until all are handled. Redis 7 leaves them pending until
//             claim-idle; with XNACK they were released at once (and mostly done already)
//   retry     a worker fails each message once while a second worker runs: time until the
//             retry succeeded (backoff 500 ms; XNACK hands it to whoever reads first)
import { spawnSync } from 'node:child_process';
import { EmbeddedConnection } from '../src/client/embedded-connection.js';
import { open } from '../src/client/embedded.js';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { Worker, type WorkerOptions } from '../src/broker/worker.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const MESSAGES = Number(arg('messages', '200'));
const CLAIM_IDLE = Number(arg('claim-idle', '1000'));
const RUNS = Number(arg('runs', '5'));

type Mode = 'auto' | 'redis7';
interface Target {
  name: string;
  connect(): Promise<Connection>;
  fresh(conn: Connection): Promise<void>;
  stop(): Promise<void>;
}

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const t = setInterval(() => {
      if (cond()) {
        clearInterval(t);
        resolve();
      }
    }, 1);
  });
}

async function seed(conn: Connection, stream: string): Promise<void> {
  const producer = new Producer(conn, { stream });
  await producer.addMany(Array.from({ length: MESSAGES }, (_, i) => ({ n: i })));
}

function workerOptions(stream: string, mode: Mode, extra: Partial<WorkerOptions> = {}): WorkerOptions {
  return { stream, group: 'g', concurrency: 50, claimIdleMs: CLAIM_IDLE, blockMs: 2000, streamFeatures: mode, ...extra };
}

async function killed(t: Target, mode: Mode, run: number): Promise<number> {
  const conn = await t.connect();
  await t.fresh(conn);
  const stream = `killed-${mode}-${run}`;
  await conn.call('XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM');
  await seed(conn, stream);
  // The dead consumer: it read everything and is gone.
  await conn.call('XREADGROUP', 'GROUP', 'g', 'dead', 'COUNT', MESSAGES, 'STREAMS', stream, '>');
  const died = performance.now();
  const seen = new Set<string>();
  const w = new Worker(conn, workerOptions(stream, mode), (job) => void seen.add(job.id));
  await w.start();
  await until(() => seen.size >= MESSAGES);
  const ms = performance.now() - died;
  await w.close();
  await conn.close();
  return ms;
}

async function graceful(t: Target, mode: Mode, run: number): Promise<number> {
  const conn = await t.connect();
  await t.fresh(conn);
  const stream = `graceful-${mode}-${run}`;
  await seed(conn, stream);
  const failed = new Set<string>();
  const done = new Set<string>();
  // Each message fails its first delivery; its retry waits a backoff (capped below claim-idle).
  const handler = (job: { id: string; deliveries: number }): void => {
    if (job.deliveries === 1 && !failed.has(job.id)) {
      failed.add(job.id);
      throw new Error('transient');
    }
    done.add(job.id);
  };
  const a = new Worker(conn, workerOptions(stream, mode, { backoff: () => 60_000 }), handler);
  await a.start();
  await until(() => failed.size + done.size >= MESSAGES);
  const stopping = performance.now();
  await a.close();
  const b = new Worker(conn, workerOptions(stream, mode), handler);
  await b.start();
  await until(() => done.size >= MESSAGES);
  const ms = performance.now() - stopping;
  await b.close();
  await conn.close();
  return ms;
}

async function retry(t: Target, mode: Mode, run: number): Promise<number> {
  const conn = await t.connect();
  await t.fresh(conn);
  const stream = `retry-${mode}-${run}`;
  await conn.call('XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM');
  const failedAt = new Map<string, number>();
  const done = new Set<string>();
  const recovered: number[] = [];
  // Worker a fails each message it gets first; b never fails.
  const handler = (fails: boolean) => (job: { id: string; deliveries: number }) => {
    if (fails && !failedAt.has(job.id)) {
      failedAt.set(job.id, performance.now());
      throw new Error('transient');
    }
    const at = failedAt.get(job.id);
    if (at !== undefined && !done.has(job.id)) recovered.push(performance.now() - at);
    done.add(job.id);
  };
  const a = new Worker(conn, workerOptions(stream, mode, { backoff: () => 500, concurrency: 10 }), handler(true));
  const b = new Worker(conn, workerOptions(stream, mode, { backoff: () => 500, concurrency: 10 }), handler(false));
  await a.start();
  await b.start();
  await seed(conn, stream);
  await until(() => done.size >= MESSAGES);
  await a.close();
  await b.close();
  await conn.close();
  return median(recovered);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function embeddedTarget(): Promise<Target> {
  const db = await open();
  return {
    name: 'embedded',
    connect: async () => new EmbeddedConnection(db, false),
    fresh: async () => {},
    stop: () => db.close(),
  };
}

async function redisTarget(): Promise<Target | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const port = 7000 + Math.floor(Math.random() * 1000);
  const started = spawnSync('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
  if (started.status !== 0) return undefined;
  for (let i = 0; i < 100 && spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().trim() !== 'PONG'; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    name: 'redis-server 7',
    connect: () => connect(`redis://127.0.0.1:${port}`),
    fresh: async (conn) => void (await conn.call('FLUSHALL')),
    stop: async () => void spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']),
  };
}

async function main(): Promise<void> {
  const targets = [await embeddedTarget()];
  const redis = await redisTarget();
  if (redis) targets.push(redis);
  console.log(`recovery latency, median of ${RUNS} runs, ${MESSAGES} messages, claimIdleMs ${CLAIM_IDLE}`);
  console.log('target           features        killed ms  graceful ms  retry ms');
  for (const t of targets) {
    const modes: Mode[] = t.name === 'embedded' ? ['redis7', 'auto'] : ['auto'];
    for (const mode of modes) {
      const k: number[] = [];
      const g: number[] = [];
      const r: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        k.push(await killed(t, mode, run));
        g.push(await graceful(t, mode, run));
        r.push(await retry(t, mode, run));
      }
      const label = mode === 'redis7' ? 'Redis 7 way' : t.name === 'embedded' ? 'CLAIM + XNACK' : 'auto (none)';
      console.log(
        `${t.name.padEnd(17)}${label.padEnd(16)}${median(k).toFixed(0).padStart(9)}${median(g).toFixed(0).padStart(13)}${median(r).toFixed(0).padStart(10)}`,
      );
    }
    await t.stop();
  }
}

await main();
