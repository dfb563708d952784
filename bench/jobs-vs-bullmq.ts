// sluice jobs against BullMQ 6.7 on the same redis-server (started here), in BullMQ's own
// benchmark scenarios (taskforcesh/bullmq-bench): queue-add (one job at a time, each awaited),
// queue-add-bulk (addBulk of 50), worker-generic (concurrency 1) and worker-concurrent
// (concurrency 100), the workers timed over a queue filled beforehand. Both are configured
// alike: results stored (the handler returns a small object), events on (capped at 10,000 by
// both), finished jobs kept as sluice's default (removeOnComplete { count: 1000 },
// removeOnFail { count: 10000 }), which BullMQ is given. Prints jobs/s each and sluice/BullMQ.
//
// Then memory per retained completed job: N jobs added and completed with every record kept
// (removeOnComplete: false on both), INFO used_memory less the clients' buffers before and
// after (sluice's after the retention pass that trims the acknowledged entries and moves the
// records to the archive, jobs/archive.ts, as in any longer run), over N; with
// MEMORY USAGE of the keys it is made of, and without the events streams (capped alike);
// three rounds each, the median printed.
// First line: sequential PINGs, the floor under any add awaited one at a time.
//
// Usage: node dist/bench/jobs-vs-bullmq.js [--add 2000] [--bulk 10000] [--generic 2000]
//        [--concurrent 10000] [--memory 10000] [--warm 1]
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { connect } from '../src/client/connect.js';
import type { Connection, Value } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { KEEP, type Payload, bullAdd, bullWork, handler, payload, rate, until } from './bullmq-scenarios.js';
import { startRedis } from './servers.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}
/** Untimed runs of each scenario before the timed one (0: cold, as a process's first jobs). */
const WARM = arg('warm', 1);
const N = { add: arg('add', 2000), bulk: arg('bulk', 10_000), generic: arg('generic', 2000), concurrent: arg('concurrent', 10_000), memory: arg('memory', 10_000) };

const server = await startRedis();
const url = `redis://127.0.0.1:${server.port}`;
const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
const admin = await connect(url);
let seq = 0;

/**
 * Resolves once the server's answer to `probe()` falls to n or below, or after `seconds` (then
 * says so: what follows measures a state not reached).
 */
async function untilAtMost(probe: () => Promise<number>, n: number, what: string, seconds = 10): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  let left = await probe();
  while (left > n && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = await probe();
  }
  if (left > n) console.log(`  (after ${seconds} s, ${what}: ${left} left, not ${n})`);
}

/** Sequential awaited PINGs through ioredis: the floor of any one-at-a-time add (one round trip each). */
async function pingFloor(n: number): Promise<number> {
  const conn = await connect(url);
  await conn.call('PING');
  const t = performance.now();
  for (let i = 0; i < n; i++) await conn.call('PING');
  const ms = performance.now() - t;
  await conn.close();
  return rate(n, ms);
}

// --- sluice ------------------------------------------------------------------------------------

async function sluiceAdd(n: number, bulk: number): Promise<number> {
  const conn = await connect(url);
  const producer = new Producer<Payload>(conn, { stream: `sl${++seq}` });
  await producer.add(payload(-1)); // the server probe and the script load, outside the timing
  const t = performance.now();
  if (bulk === 1) for (let i = 0; i < n; i++) await producer.add(payload(i));
  else for (let i = 0; i < n; i += bulk) await producer.addMany(Array.from({ length: bulk }, (_, k) => payload(i + k)));
  const ms = performance.now() - t;
  await conn.close();
  return rate(n, ms);
}

async function sluiceWork(n: number, concurrency: number): Promise<number> {
  const conn = await connect(url);
  const stream = `sl${++seq}`;
  const producer = new Producer<Payload>(conn, { stream });
  for (let i = 0; i < n; i += 1000) await producer.addMany(Array.from({ length: Math.min(1000, n - i) }, (_, k) => payload(i + k)));
  let done = 0;
  const worker = new Worker<Payload, { total: number }>(conn, { stream, group: 'g', concurrency, ...KEEP }, (job) => handler(job.payload));
  worker.on('completed', () => done++);
  const t = performance.now();
  await worker.start();
  await until(() => done, n);
  const ms = performance.now() - t;
  await worker.close();
  await conn.close();
  return rate(n, ms);
}

// --- memory --------------------------------------------------------------------------------------

/**
 * used_memory without the clients' buffers (mem_clients_normal): a connection's query buffer
 * after a batch of adds can hold hundreds of KB until Redis's cron shrinks it, which is not
 * memory the jobs take, and it moved the per-job figure by ~60 B between runs.
 */
async function usedMemory(conn: Connection): Promise<number> {
  const info = String(await conn.call('INFO', 'memory'));
  return Number(/used_memory:(\d+)/.exec(info)![1]) - Number(/mem_clients_normal:(\d+)/.exec(info)![1]);
}

/** MEMORY USAGE of the keys matching a pattern, summed. */
async function keysUsage(conn: Connection, pattern: string): Promise<number> {
  let sum = 0;
  for (const key of (await conn.call('KEYS', pattern)) as string[]) sum += await memoryUsage(conn, key);
  return sum;
}

const IDEMPOTENCE_PART = "producer's idempotence window (expires)";

async function memoryUsage(conn: Connection, key: string): Promise<number> {
  return Number((await conn.call('MEMORY', 'USAGE', key, 'SAMPLES', 0)) as Value);
}

/**
 * Three seconds for Redis's cron: a keyspace that held 10,000 records a moment ago keeps its
 * grown hash table until databasesCron shrinks it (~25 B a job here, gone a second later). Both
 * sides wait alike.
 */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 3000));

/** MEMORY USAGE of the archive's index buckets (jobs/archive.ts), summed. */
async function archiveIndexUsage(conn: Connection, stream: string): Promise<number> {
  const buckets = Number((await conn.call('GET', `${stream}:archive:buckets`)) ?? 0);
  let sum = 0;
  for (let b = 0; b < buckets; b++) sum += await memoryUsage(conn, `${stream}:archive:${b}`);
  return sum;
}

async function sluiceMemory(n: number): Promise<{ perJob: number; parts: Record<string, number> }> {
  await admin.call('FLUSHALL');
  const conn = await connect(url);
  const stream = `{slmem}`;
  const producer = new Producer<Payload>(conn, { stream });
  let done = 0;
  const worker = new Worker<Payload, { total: number }>(conn, { stream, group: 'g', concurrency: 100, removeOnComplete: false, removeOnFail: false }, (job) => handler(job.payload));
  worker.on('completed', () => done++);
  await producer.add(payload(-1)); // probes, script load, group: outside the measure
  await worker.start();
  await until(() => done, 1);
  const before = await usedMemory(admin);
  for (let i = 0; i < n; i += 1000) await producer.addMany(Array.from({ length: Math.min(1000, n - i) }, (_, k) => payload(i + k)));
  await until(() => done, n + 1);
  // Steady state: the retention pass after the last finishes trims the acknowledged entries
  // (with records kept, an entry is only a copy of its record's data).
  await untilAtMost(async () => Number(await admin.call('XLEN', stream)), 1, 'acknowledged entries');
  // All archived: a quiet queue's compaction moves 4,000 records a second (jobs/retention.ts).
  await untilAtMost(async () => Number(await admin.call('ZCARD', `${stream}:completed`)), 0, 'records not archived', 10 + n / 2000);
  await worker.close();
  await settle();
  const after = await usedMemory(admin);
  const [ids] = [(await admin.call('ZRANGE', `${stream}:completed`, 0, 0)) as string[]];
  const parts = {
    'archive stream': (await memoryUsage(admin, `${stream}:archive`)) / (n + 1),
    'archive index': (await archiveIndexUsage(admin, stream)) / (n + 1),
    'records not archived yet': (ids.length === 0 ? 0 : await memoryUsage(admin, `${stream}:job:${ids[0]}`)) * Number(await admin.call('ZCARD', `${stream}:completed`)) / (n + 1),
    'stream entry': (await memoryUsage(admin, stream)) / (n + 1),
    'events stream (capped)': (await memoryUsage(admin, `${stream}:events`)) / (n + 1),
    // A fixed cost of a busy producer, not of a job: its last 1,000 idempotent ids (the script's
    // window, idempotence.ts), gone 100 s after its last add.
    [IDEMPOTENCE_PART]: (await keysUsage(admin, `${stream}:idmp:*`)) / (n + 1),
  };
  await conn.close();
  return { perJob: (after - before) / n, parts };
}

async function bullMemory(n: number): Promise<{ perJob: number; parts: Record<string, number> }> {
  await admin.call('FLUSHALL');
  const name = 'bqmem';
  const queue = new BullQueue(name, { connection });
  let done = 0;
  const worker = new BullWorker(name, async (job) => handler(job.data as Payload), { connection, concurrency: 100, removeOnComplete: { count: Number.MAX_SAFE_INTEGER }, removeOnFail: { count: Number.MAX_SAFE_INTEGER } });
  worker.on('completed', () => done++);
  await queue.add('job', payload(-1));
  await until(() => done, 1);
  const before = await usedMemory(admin);
  for (let i = 0; i < n; i += 1000) await queue.addBulk(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ name: 'job', data: payload(i + k) })));
  await until(() => done, n + 1);
  await worker.close();
  await settle();
  const after = await usedMemory(admin);
  const [id] = (await admin.call('ZRANGE', `bull:${name}:completed`, 0, 0)) as string[];
  const parts = {
    'job hash': await memoryUsage(admin, `bull:${name}:${id}`),
    'completed zset': (await memoryUsage(admin, `bull:${name}:completed`)) / (n + 1),
    'events stream (capped)': (await memoryUsage(admin, `bull:${name}:events`)) / (n + 1),
  };
  await queue.close();
  return { perJob: (after - before) / n, parts };
}

// --- run -------------------------------------------------------------------------------------------

const redisVersion = /redis_version:(\S+)/.exec(String(await admin.call('INFO', 'server')))![1];
process.stdout.write(`redis-server ${redisVersion} on port ${server.port}; BullMQ 6.7 and sluice on the same server, one timed run each after ${WARM} untimed\n\n`);
process.stdout.write(`${'scenario'.padEnd(36)}${'sluice/s'.padStart(10)}${'BullMQ/s'.padStart(10)}${'ratio'.padStart(8)}\n`);
const scenarios: Array<[string, () => Promise<number>, () => Promise<number>]> = [
  [`queue-add (${N.add}, one at a time)`, () => sluiceAdd(N.add, 1), () => bullAdd(connection, `bq${++seq}`, N.add, 1)],
  [`queue-add-bulk (${N.bulk}, bulks of 50)`, () => sluiceAdd(N.bulk, 50), () => bullAdd(connection, `bq${++seq}`, N.bulk, 50)],
  [`worker-generic (${N.generic}, conc. 1)`, () => sluiceWork(N.generic, 1), () => bullWork(connection, `bq${++seq}`, N.generic, 1)],
  [`worker-concurrent (${N.concurrent}, conc. 100)`, () => sluiceWork(N.concurrent, 100), () => bullWork(connection, `bq${++seq}`, N.concurrent, 100)],
];
const floor = await pingFloor(N.add);
process.stdout.write(`${`PING one at a time (${N.add}, the floor)`.padEnd(36)}${String(floor).padStart(10)}${''.padStart(10)}${''.padStart(8)}\n`);
for (const [name, sluice, bull] of scenarios) {
  // Each side's first run of a scenario also compiles its code (JIT): sluice's worker ran 7.5k
  // jobs/s cold and 14-15k warm at concurrency 1. Workers run for hours; with --warm 1 (the
  // default) each side runs the scenario once untimed first, as bench/broker.ts warms up.
  for (let w = 0; w < WARM; w++) {
    await admin.call('FLUSHALL');
    await sluice();
    await admin.call('FLUSHALL');
    await bull();
  }
  await admin.call('FLUSHALL');
  const s = await sluice();
  await admin.call('FLUSHALL');
  const b = await bull();
  process.stdout.write(`${name.padEnd(36)}${String(s).padStart(10)}${String(b).padStart(10)}${(s / b).toFixed(2).padStart(7)}x\n`);
}

// used_memory's delta moves by ~30 B a job between runs (what the allocator held before it, the
// earlier scenarios' leftovers): three rounds each, alternating, and the median round of each.
type Measured = { perJob: number; parts: Record<string, number> };
const median = (rounds: Measured[]): Measured => [...rounds].sort((a, b) => a.perJob - b.perJob)[Math.floor(rounds.length / 2)]!;
const sRounds: Measured[] = [];
const bRounds: Measured[] = [];
for (let r = 0; r < 3; r++) {
  sRounds.push(await sluiceMemory(N.memory));
  bRounds.push(await bullMemory(N.memory));
}
const sm = median(sRounds);
const bm = median(bRounds);
process.stdout.write(`\nmemory per retained completed job (${N.memory} jobs, used_memory less mem_clients_normal, delta / N; median of 3 rounds: sluice ${sRounds.map((m) => Math.round(m.perJob)).join(' ')}, BullMQ ${bRounds.map((m) => Math.round(m.perJob)).join(' ')} B):\n`);
process.stdout.write(`  sluice ${Math.round(sm.perJob)} B, BullMQ ${Math.round(bm.perJob)} B: ratio ${(sm.perJob / bm.perJob).toFixed(2)}x\n`);
// Both cap their events streams at 10,000: in a long run they weigh nothing per retained job.
const noEvents = (m: { perJob: number; parts: Record<string, number> }): number => m.perJob - (m.parts['events stream (capped)'] ?? 0);
process.stdout.write(`  without the capped events streams: sluice ${Math.round(noEvents(sm))} B, BullMQ ${Math.round(noEvents(bm))} B: ratio ${(noEvents(sm) / noEvents(bm)).toFixed(2)}x\n`);
// The producer's idempotence keys weigh the same for 10 or 100,000 jobs, and expire: without them.
const window = sm.parts[IDEMPOTENCE_PART] ?? 0;
process.stdout.write(`  without sluice's producer idempotence window (${Math.round(window)} B a job here, a fixed ~90 KB per busy producer): sluice ${Math.round(sm.perJob - window)} B: ratio ${((sm.perJob - window) / bm.perJob).toFixed(2)}x\n`);
process.stdout.write(`  sluice parts (MEMORY USAGE, per job): ${Object.entries(sm.parts).map(([k, v]) => `${k} ${Math.round(v)} B`).join(', ')}\n`);
process.stdout.write(`  BullMQ parts (MEMORY USAGE, per job): ${Object.entries(bm.parts).map(([k, v]) => `${k} ${Math.round(v)} B`).join(', ')}\n`);

await admin.close();
await server.stop();
