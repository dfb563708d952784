// A worker process for priority-kill9.test.ts: consumes STREAM in group g with concurrency 20
// (moving prioritized jobs in as every Worker does); per job it records the first handling in
// HASH STREAM:receipts and counts handler calls in STREAM:calls; each job takes 20 ms, so the
// process always holds jobs when it is killed. Acknowledged entries are kept (the test counts them).
// Usage: node priority-worker-process.js URL STREAM CONSUMER CLAIM_IDLE_MS
import { connect } from '../../src/client/connect.js';
import { Worker } from '../../src/broker/worker.js';

const [url, stream, consumer, claimIdleMs] = process.argv.slice(2) as [string, string, string, string];
const conn = await connect(url);
const worker = new Worker<{ n: number }>(conn, { stream, group: 'g', consumer, concurrency: 20, claimIdleMs: Number(claimIdleMs), blockMs: 200, handleSignals: true, keepAcknowledged: true }, async (job) => {
  await new Promise((r) => setTimeout(r, 20));
  await conn.pipeline([
    ['HSETNX', `${stream}:receipts`, job.payload.n, consumer],
    ['HINCRBY', `${stream}:calls`, job.payload.n, 1],
  ]);
});
worker.on('error', () => {});
await worker.start();
process.stdout.write('ready\n');
await worker.run();
await conn.close();
