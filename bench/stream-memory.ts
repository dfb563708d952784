// Memory per stream entry, sluice vs redis-server, for `XADD orders * order_id N total N`.
//
//   node dist/bench/stream-memory.js [entries=1000000]
//
// Redis: INFO used_memory before and after the XADDs (pipelined). sluice: the embedded engine in
// this process, heapUsed + external after a full GC, before and after the same XADDs.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { open } from '../src/client/embedded.js';
import { startRedis } from './servers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ENTRIES = Number(process.argv[2] ?? 1_000_000);
const BATCH = 10_000;

function usedMemory(info: string): number {
  const m = /^used_memory:(\d+)/m.exec(info);
  if (m === null) throw new Error('no used_memory in INFO');
  return Number(m[1]);
}

async function measureRedis(): Promise<number> {
  const server = await startRedis();
  const redis = new Redis({ port: server.port, lazyConnect: true });
  try {
    await redis.connect();
    const before = usedMemory(await redis.info('memory'));
    for (let i = 0; i < ENTRIES; i += BATCH) {
      const p = redis.pipeline();
      for (let j = i; j < Math.min(ENTRIES, i + BATCH); j++) p.xadd('orders', '*', 'order_id', String(j), 'total', String(j));
      await p.exec();
    }
    const after = usedMemory(await redis.info('memory'));
    return after - before;
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

function heap(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

async function measureSluice(): Promise<number> {
  const db = await open();
  // Warm up first so compiled code and lazily built tables are not counted as data (Redis's
  // used_memory does not count its code either).
  for (let j = 0; j < 50_000; j++) await db.call('XADD', 'warmup', '*', 'order_id', String(j), 'total', String(j));
  await db.call('DEL', 'warmup');
  const before = heap();
  for (let i = 0; i < ENTRIES; i += BATCH) {
    const pending: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(ENTRIES, i + BATCH); j++) pending.push(db.call('XADD', 'orders', '*', 'order_id', String(j), 'total', String(j)));
    await Promise.all(pending);
  }
  const after = heap();
  const len = await db.call('XLEN', 'orders');
  if (len !== ENTRIES) throw new Error(`expected ${ENTRIES} entries, XLEN says ${String(len)}`);
  await db.close();
  return after - before;
}

const started = Date.now();
const ours = await measureSluice();
const oursMs = Date.now() - started;
const theirs = await measureRedis();
const fmt = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB (${(bytes / ENTRIES).toFixed(1)} B/entry)`;
console.log(`entries:            ${ENTRIES}  (XADD orders * order_id N total N)`);
console.log(`redis used_memory:  ${fmt(theirs)}`);
console.log(`sluice heap+ext:    ${fmt(ours)}   [${oursMs} ms for the XADDs, embedded]`);
console.log(`ratio sluice/redis: ${(ours / theirs).toFixed(2)}`);
