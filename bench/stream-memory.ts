// Memory per stream entry, sluice vs redis-server, for `XADD orders * order_id N total N`.
//
//   node dist/bench/stream-memory.js [entries=1000000]
//
// Redis: INFO used_memory before and after the XADDs (pipelined). sluice: the embedded engine in
// this process, heapUsed + external after a full GC, before and after the same XADDs.
import { open } from '../src/client/embedded.js';
import { heapInUse, redisMemoryGrowth } from './memory.js';

const ENTRIES = Number(process.argv[2] ?? 1_000_000);
const BATCH = 10_000;

function measureRedis(): Promise<number> {
  return redisMemoryGrowth(async (redis) => {
    for (let i = 0; i < ENTRIES; i += BATCH) {
      const p = redis.pipeline();
      for (let j = i; j < Math.min(ENTRIES, i + BATCH); j++) p.xadd('orders', '*', 'order_id', String(j), 'total', String(j));
      await p.exec();
    }
  });
}

async function measureSluice(): Promise<number> {
  const db = await open();
  // Warm up first so compiled code and lazily built tables are not counted as data (Redis's
  // used_memory does not count its code either).
  for (let j = 0; j < 50_000; j++) await db.call('XADD', 'warmup', '*', 'order_id', String(j), 'total', String(j));
  await db.call('DEL', 'warmup');
  const before = heapInUse();
  for (let i = 0; i < ENTRIES; i += BATCH) {
    const pending: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(ENTRIES, i + BATCH); j++) pending.push(db.call('XADD', 'orders', '*', 'order_id', String(j), 'total', String(j)));
    await Promise.all(pending);
  }
  const after = heapInUse();
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
