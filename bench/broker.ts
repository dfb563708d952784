// End-to-end broker benchmark: N messages (default 100,000), handler concurrency 50. The
// producer adds in pipelined batches of 1,000 while the worker consumes; latency is add → handler
// start (the payload carries its add time, same process clock). Throughput is N over the time
// from the first add to the last handler completion.
//
//   a hand-rolled ioredis loop (XREADGROUP COUNT + pipelined XACK, no safety) | sluice broker on
//   redis-server | BullMQ on the same redis-server | sluice broker on the embedded engine |
//   sluice broker on `sluice server`
//
// Usage: node dist/bench/broker.js [--messages 100000] [--concurrency 50] [--rate R] [--only a,b]
//        [--warmup 10000] [--jobs off] [--batch N] [--keep all|N]
// --jobs off: the sluice producer adds anonymous messages (Producer `jobs: false`: no job record,
// no events), the cost of job identity shown beside the default.
// Each path first runs --warmup messages untimed on the same backend (its own stream): the
// figures are a running process's, not a fresh one's still compiling its code (a fresh
// `sluice server` spent 75-79 us of CPU per job in its first 20,000 jobs, 47-50 us after).
// Without --rate the producer adds as fast as it can, so latency includes queueing behind the
// backlog; with --rate it is paced and latency is the broker's own. --batch: messages per add
// (default 1000 unpaced, 100 paced: a burst every 20 ms at 5,000/s, whose last messages wait
// behind the first ones; --batch 10 paces them every 2 ms, closer to adds as they come).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as hdr from 'hdr-histogram-js';
import { Queue, Worker as BullWorker } from 'bullmq';
import { Redis } from 'ioredis';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { sluiceNodeFlags } from './servers.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../src/cli/main.js');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const MESSAGES = Number(arg('messages', '100000'));
const CONCURRENCY = Number(arg('concurrency', '50'));
/** With --rate R the producer adds R messages/s in batches of 100 (a latency run, not saturation). */
const RATE = Number(arg('rate', '0'));
const BATCH = Number(arg('batch', RATE > 0 ? '100' : '1000'));
const ONLY = arg('only', 'handrolled,redis,bullmq,embedded,server').split(',');
const WARMUP = Number(arg('warmup', '10000'));
const JOBS = arg('jobs', 'on') !== 'off';
/** --keep all: the sluice worker keeps every completed job (removeOnComplete: false, so the archive compacts them); --keep N: the newest N. */
const KEEP = ((): { removeOnComplete?: false | number } => {
  const keep = arg('keep', '');
  if (keep === '') return {};
  return { removeOnComplete: keep === 'all' ? false : Number(keep) };
})();

interface Result {
  name: string;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  p999: number;
}

class Recorder {
  constructor(readonly messages: number) {}
  readonly histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });
  done = 0;
  private finish!: () => void;
  readonly finished = new Promise<void>((r) => (this.finish = r));
  record(addedAt: number): void {
    this.histogram.recordValue(Math.max(1, Math.round((performance.now() - addedAt) * 1000)));
  }
  completed(): void {
    if (++this.done === this.messages) this.finish();
  }
  result(name: string, startedAt: number): Result {
    const seconds = (performance.now() - startedAt) / 1000;
    return {
      name,
      seconds,
      rate: this.messages / seconds,
      p50: this.histogram.getValueAtPercentile(50) / 1000,
      p99: this.histogram.getValueAtPercentile(99) / 1000,
      p999: this.histogram.getValueAtPercentile(99.9) / 1000,
    };
  }
}

/** Under --rate, sleeps until `sent` messages are due. */
async function pace(startedAt: number, sent: number): Promise<void> {
  if (RATE <= 0) return;
  const due = startedAt + (sent / RATE) * 1000;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function spawnReady(cmd: string, args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      if (process.env.BENCH_TEE) process.stderr.write(c);
      out += c.toString();
      const m = out.match(ready);
      if (m) resolve({ child, match: m });
    });
    child.once('exit', (code) => reject(new Error(`${cmd} exited with ${code}`)));
  });
}

async function sluiceRun(name: string, conn: Connection, messages = MESSAGES): Promise<Result> {
  const stream = `bench:${name}:${Date.now()}`;
  const rec = new Recorder(messages);
  const worker = new Worker<{ t: number }>(conn, { stream, group: 'bench', concurrency: CONCURRENCY, blockMs: 1000, ...KEEP }, async (job) => {
    rec.record(job.payload.t);
    rec.completed();
  });
  worker.on('error', (err) => console.error(`worker error: ${err.message}`));
  await worker.start();
  const producer = new Producer(conn, { stream, jobs: JOBS });
  const startedAt = performance.now();
  for (let i = 0; i < messages; i += BATCH) {
    const n = Math.min(BATCH, messages - i);
    const now = performance.now();
    await producer.addMany(Array.from({ length: n }, (_, j) => ({ t: now, n: i + j })));
    await pace(startedAt, i + n);
  }
  await rec.finished;
  const result = rec.result(name, startedAt);
  await worker.close();
  await conn.call('DEL', stream);
  return result;
}

/**
 * What teams write by hand: one XREADGROUP of up to `concurrency` entries at a time, the
 * handlers run, their XACKs pipelined; no claims, no delivery counting, no dead letters.
 */
async function handRolledRun(port: number, messages = MESSAGES): Promise<Result> {
  const stream = `bench:hand:${Date.now()}`;
  const reader = new Redis({ port, host: '127.0.0.1' });
  const writer = new Redis({ port, host: '127.0.0.1' });
  await writer.xgroup('CREATE', stream, 'bench', '$', 'MKSTREAM');
  const rec = new Recorder(messages);
  let stopped = false;
  const consume = (async () => {
    while (!stopped) {
      const reply = (await reader.xreadgroup('GROUP', 'bench', 'c', 'COUNT', CONCURRENCY, 'BLOCK', 1000, 'STREAMS', stream, '>')) as Array<[string, Array<[string, string[]]>]> | null;
      if (reply === null) continue;
      const entries = reply[0]![1];
      await Promise.all(
        entries.map(async ([, fields]) => {
          rec.record((JSON.parse(fields[1]!) as { t: number }).t);
        }),
      );
      const pipe = reader.pipeline();
      for (const [id] of entries) pipe.xack(stream, 'bench', id);
      await pipe.exec();
      for (let i = 0; i < entries.length; i++) rec.completed();
    }
  })();
  const startedAt = performance.now();
  for (let i = 0; i < messages; i += BATCH) {
    const n = Math.min(BATCH, messages - i);
    const now = performance.now();
    const pipe = writer.pipeline();
    for (let j = 0; j < n; j++) pipe.xadd(stream, '*', 'payload', JSON.stringify({ t: now, n: i + j }));
    await pipe.exec();
    await pace(startedAt, i + n);
  }
  await rec.finished;
  const result = rec.result('hand-rolled ioredis loop', startedAt);
  stopped = true;
  await consume;
  await writer.del(stream);
  reader.disconnect();
  writer.disconnect();
  return result;
}

async function bullRun(port: number, messages = MESSAGES): Promise<Result> {
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const name = `bench-${Date.now()}`;
  const queue = new Queue(name, { connection });
  const rec = new Recorder(messages);
  const worker = new BullWorker(
    name,
    async (job) => {
      rec.record((job.data as { t: number }).t);
    },
    { connection, concurrency: CONCURRENCY, removeOnComplete: { count: 0 } },
  );
  worker.on('completed', () => rec.completed());
  await worker.waitUntilReady();
  const startedAt = performance.now();
  for (let i = 0; i < messages; i += BATCH) {
    const n = Math.min(BATCH, messages - i);
    const now = performance.now();
    await queue.addBulk(Array.from({ length: n }, (_, j) => ({ name: 'm', data: { t: now, n: i + j }, opts: { removeOnComplete: true } })));
    await pace(startedAt, i + n);
  }
  await rec.finished;
  const result = rec.result('BullMQ on redis-server', startedAt);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return result;
}

async function main(): Promise<void> {
  const results: Result[] = [];
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
  const { child: redis } = await spawnReady('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], /Ready to accept/);
  try {
    console.log(`${MESSAGES} messages (after ${WARMUP} untimed)${JOBS ? '' : ', sluice without job records (jobs: false)'}, concurrency ${CONCURRENCY}, batches of ${BATCH}${RATE > 0 ? `, paced at ${RATE}/s` : ', unpaced'}`);
    if (ONLY.includes('handrolled')) {
      if (WARMUP > 0) await handRolledRun(port, WARMUP);
      results.push(await handRolledRun(port));
      console.log(format(results[results.length - 1]!));
    }
    if (ONLY.includes('redis')) {
      const conn = await connect(`redis://127.0.0.1:${port}`);
      if (WARMUP > 0) await sluiceRun('warm-up', conn, WARMUP);
      results.push(await sluiceRun('sluice broker on redis-server', conn));
      await conn.close();
      console.log(format(results[results.length - 1]!));
    }
    if (ONLY.includes('bullmq')) {
      if (WARMUP > 0) await bullRun(port, WARMUP);
      results.push(await bullRun(port));
      console.log(format(results[results.length - 1]!));
    }
    if (ONLY.includes('embedded')) {
      const conn = await connect('embedded:');
      if (WARMUP > 0) await sluiceRun('warm-up', conn, WARMUP);
      results.push(await sluiceRun('sluice broker on embedded', conn));
      await conn.close();
      console.log(format(results[results.length - 1]!));
    }
    if (ONLY.includes('server')) {
      const { child, match } = await spawnReady(process.execPath, [...sluiceNodeFlags(), CLI, 'server', '--port', '0'], /ready on ([^\s:]+):(\d+)/);
      try {
        const conn = await connect(`redis://127.0.0.1:${match[2]}`);
        if (WARMUP > 0) await sluiceRun('warm-up', conn, WARMUP);
        results.push(await sluiceRun('sluice broker on sluice server', conn));
        await conn.close();
        console.log(format(results[results.length - 1]!));
      } finally {
        child.kill('SIGTERM');
      }
    }
  } finally {
    redis.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  const ours = results.find((r) => r.name === 'sluice broker on redis-server');
  const bull = results.find((r) => r.name.startsWith('BullMQ'));
  if (ours && bull && RATE <= 0) console.log(`throughput ratio sluice/BullMQ on the same redis-server: ${(ours.rate / bull.rate).toFixed(2)}x`);
  const hand = results.find((r) => r.name.startsWith('hand-rolled'));
  if (hand && RATE <= 0) for (const r of results) if (r !== hand) console.log(`${r.name} / hand-rolled loop: ${(r.rate / hand.rate).toFixed(2)}x`);
  process.exit(0);
}

function format(r: Result): string {
  return `${r.name.padEnd(34)} ${Math.round(r.rate).toString().padStart(8)} msgs/s  ${r.seconds.toFixed(2).padStart(6)} s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  p999 ${r.p999.toFixed(1)} ms`;
}

await main();
