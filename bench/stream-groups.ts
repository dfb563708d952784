// Consumer-group throughput on the embedded engine.
//
//   node dist/bench/stream-groups.js [entries=200000] [pel=100000]
//
// 1. consume: XREADGROUP COUNT 10 ">" then XACK of those 10 ids, until the stream is drained
//    (the worker loop), reported as entries per second.
// 2. large PEL: one consumer holds `pel` pending ids; XPENDING ranges from random starts,
//    XAUTOCLAIM COUNT 100 over the whole PEL, then XACK of every id in random order.
import { open } from '../src/client/embedded.js';

const ENTRIES = Number(process.argv[2] ?? 200_000);
const PEL = Number(process.argv[3] ?? 100_000);

function rate(n: number, ms: number): string {
  return `${Math.round((n / ms) * 1000).toLocaleString('en-US')}/s`;
}

async function fill(db: Awaited<ReturnType<typeof open>>, key: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) await db.call('XADD', key, `${i}-0`, 'order_id', i, 'total', i * 3);
}

async function consume(): Promise<void> {
  const db = await open();
  await fill(db, 'orders', ENTRIES);
  await db.call('XGROUP', 'CREATE', 'orders', 'workers', '0');
  const started = performance.now();
  let delivered = 0;
  let calls = 0;
  for (;;) {
    const reply = (await db.call('XREADGROUP', 'GROUP', 'workers', 'w1', 'COUNT', 10, 'STREAMS', 'orders', '>')) as
      | [string, [string, string[]][]][]
      | null;
    if (reply === null) break;
    const ids = reply[0]![1].map((e) => e[0]);
    await db.call('XACK', 'orders', 'workers', ...ids);
    delivered += ids.length;
    calls += 2;
  }
  const ms = performance.now() - started;
  const pending = (await db.call('XPENDING', 'orders', 'workers')) as unknown[];
  console.log(
    `consume  ${delivered} entries in ${ms.toFixed(0)} ms: ${rate(delivered, ms)} entries, ${rate(calls, ms)} commands (pending after: ${String(pending[0])})`,
  );
  await db.close();
}

async function largePel(): Promise<void> {
  const db = await open();
  await fill(db, 'jobs', PEL);
  await db.call('XGROUP', 'CREATE', 'jobs', 'g', '0');
  let t = performance.now();
  await db.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', PEL, 'STREAMS', 'jobs', '>');
  console.log(`pel      XREADGROUP of ${PEL} ids in one call: ${(performance.now() - t).toFixed(0)} ms`);

  const ranges = 10_000;
  t = performance.now();
  for (let i = 0; i < ranges; i++) {
    const start = 1 + Math.floor(Math.random() * PEL);
    await db.call('XPENDING', 'jobs', 'g', `${start}-0`, '+', 10);
  }
  let ms = performance.now() - t;
  console.log(`pel      XPENDING start end 10 from random starts, PEL ${PEL}: ${rate(ranges, ms)}`);

  t = performance.now();
  let cursor = '0-0';
  let claimed = 0;
  do {
    const [next, ids] = (await db.call('XAUTOCLAIM', 'jobs', 'g', 'c2', 0, cursor, 'COUNT', 100, 'JUSTID')) as [string, string[]];
    claimed += ids.length;
    cursor = next;
  } while (cursor !== '0-0');
  ms = performance.now() - t;
  console.log(`pel      XAUTOCLAIM COUNT 100 JUSTID over the PEL: ${claimed} claimed, ${rate(claimed, ms)}`);

  const order = Array.from({ length: PEL }, (_, i) => i + 1);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  t = performance.now();
  for (const id of order) await db.call('XACK', 'jobs', 'g', `${id}-0`);
  ms = performance.now() - t;
  console.log(`pel      XACK one id at a time in random order: ${rate(PEL, ms)}`);
  await db.close();
}

await consume();
await largePel();
