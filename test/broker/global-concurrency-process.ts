// A worker process for global-concurrency.test.ts: consumes STREAM in group g with concurrency 5
// and globalConcurrency LIMIT; prints `s N T` when job N starts and `e N T` when it ends (T:
// process.hrtime.bigint(), the machine's monotonic clock, the same in every process), records
// each job in HASH STREAM:receipts; each job takes 50 ms (so the process chosen to be killed still holds slots when the signal lands).
// Usage: node global-concurrency-process.js URL STREAM CONSUMER CLAIM_IDLE_MS LIMIT
import { connect } from '../../src/client/connect.js';
import { Worker } from '../../src/broker/worker.js';

const [url, stream, consumer, claimIdleMs, limit] = process.argv.slice(2) as [string, string, string, string, string];
const conn = await connect(url);
const worker = new Worker<{ n: number }>(conn, { stream, group: 'g', consumer, concurrency: 5, globalConcurrency: Number(limit), claimIdleMs: Number(claimIdleMs), blockMs: 200, handleSignals: true }, async (job) => {
  process.stdout.write(`s ${job.payload.n} ${process.hrtime.bigint()}\n`);
  await new Promise((r) => setTimeout(r, 50));
  await conn.call('HSETNX', `${stream}:receipts`, job.payload.n, consumer);
  process.stdout.write(`e ${job.payload.n} ${process.hrtime.bigint()}\n`);
});
worker.on('error', () => {});
await worker.start();
process.stdout.write('ready\n');
await worker.run();
await conn.close();
