// A worker process for fairness-kill9.test.ts: consumes STREAM in group g with concurrency 5 and
// fairness.concurrency LIMIT; prints `s KEY N DELIVERIES TOKEN T` when a job starts and
// `e KEY N T` when it ends (T: process.hrtime.bigint(), the machine's monotonic clock, the same
// in every process; TOKEN: the job's per-key slot), records each job in HASH STREAM:receipts;
// each job takes 30 ms (so the process chosen to be killed still holds slots when the signal lands).
// Usage: node fairness-worker-process.js URL STREAM CONSUMER CLAIM_IDLE_MS LIMIT
import { connect } from '../../src/client/connect.js';
import { FAIR_SLOT_FIELD } from '../../src/broker/fairness/lanes.js';
import { Worker } from '../../src/broker/worker.js';

const [url, stream, consumer, claimIdleMs, limit] = process.argv.slice(2) as [string, string, string, string, string];
const conn = await connect(url);
const worker = new Worker<{ k: string; n: number }>(
  conn,
  { stream, group: 'g', consumer, concurrency: 5, fairness: { concurrency: Number(limit) }, claimIdleMs: Number(claimIdleMs), blockMs: 200 },
  async (job) => {
    const { k, n } = job.payload;
    process.stdout.write(`s ${k} ${n} ${job.deliveries} ${job.fields[FAIR_SLOT_FIELD] ?? '-'} ${process.hrtime.bigint()}\n`);
    await new Promise((r) => setTimeout(r, 30));
    await conn.call('HSETNX', `${stream}:receipts`, `${k}:${n}`, consumer);
    process.stdout.write(`e ${k} ${n} ${process.hrtime.bigint()}\n`);
  },
);
worker.on('error', () => {});
await worker.start();
process.stdout.write('ready\n');
await new Promise(() => {}); // until killed
