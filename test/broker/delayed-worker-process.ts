// A worker process for delayed.kill9.test.ts: consumes STREAM in group g (and, as every Worker
// does, moves its due delayed jobs in); per job it records the server's TIME of the first
// handling in HASH STREAM:receipts and counts handler calls in STREAM:calls.
// Usage: node delayed-worker-process.js URL STREAM CONSUMER CLAIM_IDLE_MS
import { connect } from '../../src/client/connect.js';
import { serverTimeMs } from '../../src/broker/delayed.js';
import { Worker } from '../../src/broker/worker.js';

const [url, stream, consumer, claimIdleMs] = process.argv.slice(2) as [string, string, string, string];
const conn = await connect(url);
const worker = new Worker<{ n: number }>(conn, { stream, group: 'g', consumer, claimIdleMs: Number(claimIdleMs), blockMs: 200, handleSignals: true, keepAcknowledged: true }, async (job) => {
  const now = await serverTimeMs(conn);
  await conn.pipeline([
    ['HSETNX', `${stream}:receipts`, job.payload.n, now],
    ['HINCRBY', `${stream}:calls`, job.payload.n, 1],
  ]);
});
worker.on('error', () => {});
await worker.start();
process.stdout.write('ready\n');
await worker.run();
await conn.close();
