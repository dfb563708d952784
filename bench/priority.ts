// Per-job priority's cost (src/broker/jobs/priority.ts): adds/s and takes/s of N jobs without
// priority and with random priorities 1..10, on redis-server, the embedded engine and `sluice
// server`, and the ratio prioritized / plain.
//   adds:  addMany in batches of --batch (default 100), one batch after the other (jobs on,
//          events on: what a user gets by default)
//   takes: the N jobs already added, one Worker (concurrency --concurrency, default 50, a no-op
//          handler) from start to the N-th 'completed'
//
// Usage: node dist/bench/priority.js [--jobs 20000] [--batch 100] [--concurrency 50] [--only redis,embedded,server]
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { drain } from './drain.js';
import { eachBackend } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const JOBS = Number(arg('jobs', '20000'));
const BATCH = Number(arg('batch', '100'));
const CONCURRENCY = Number(arg('concurrency', '50'));
const ONLY = arg('only', 'redis,embedded,server').split(',');

interface Row {
  backend: string;
  mode: 'plain' | 'priority';
  adds: number;
  takes: number;
}

let run = 0;

async function measure(backend: string, conn: Connection, mode: 'plain' | 'priority'): Promise<Row> {
  const stream = `{bench-prio-${process.pid}-${run++}}`;
  const producer = new Producer<number>(conn, { stream });
  await producer.add(-1); // prepare (probes) outside the timing; the worker skips it below
  let seed = 7;
  const random = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const addStart = performance.now();
  for (let from = 0; from < JOBS; from += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, JOBS - from) }, (_, i) => ({ payload: from + i, ...(mode === 'priority' ? { priority: 1 + Math.floor(random() * 10) } : {}) }));
    await producer.addMany(items, { keyed: true });
  }
  const adds = JOBS / ((performance.now() - addStart) / 1000);
  // The probe entry (-1) runs uncounted.
  const takes = JOBS / (await drain<number>(conn, { stream, group: 'g', concurrency: CONCURRENCY }, JOBS, `${backend} ${mode}`, (job) => job.payload >= 0));
  await conn.call('DEL', stream);
  return { backend, mode, adds, takes };
}

async function both(backend: string, conn: Connection, rows: Row[]): Promise<void> {
  rows.push(await measure(backend, conn, 'plain'));
  rows.push(await measure(backend, conn, 'priority'));
  await conn.call('FLUSHALL');
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  await eachBackend(ONLY, (backend, conn) => both(backend, conn, rows));
  console.log(`${JOBS} jobs, addMany batches of ${BATCH}, worker concurrency ${CONCURRENCY}`);
  console.log('backend        mode       adds/s   takes/s   adds ratio  takes ratio');
  for (const r of rows) {
    const plain = rows.find((p) => p.backend === r.backend && p.mode === 'plain')!;
    console.log(
      `${r.backend.padEnd(14)} ${r.mode.padEnd(8)} ${Math.round(r.adds).toString().padStart(8)} ${Math.round(r.takes).toString().padStart(9)}   ${(r.adds / plain.adds).toFixed(2).padStart(9)}  ${(r.takes / plain.takes).toFixed(2).padStart(11)}`,
    );
  }
}

await main();
