// A worker process for job-kill9.test.ts: consumes STREAM in group g as CONSUMER. With HANG
// set ('hang'), each job's handler prints `started JOBID` and never returns (the test SIGKILLs
// the process mid-job); otherwise it counts its calls in HASH STREAM:calls and returns
// `{ by: CONSUMER, doubled: payload.n * 2 }`.
// Usage: node job-worker-process.js URL STREAM CONSUMER CLAIM_IDLE_MS hang|run
import { connect } from '../../src/client/connect.js';
import { Worker } from '../../src/broker/worker.js';

const [url, stream, consumer, claimIdleMs, mode] = process.argv.slice(2) as [string, string, string, string, string];
const conn = await connect(url);
const worker = new Worker<{ n: number }, { by: string; doubled: number }>(
  conn,
  { stream, group: 'g', consumer, claimIdleMs: Number(claimIdleMs), blockMs: 200, handleSignals: true },
  async (job) => {
    if (mode === 'hang') {
      process.stdout.write(`started ${job.id}\n`);
      await new Promise(() => {});
    }
    await conn.call('HINCRBY', `${stream}:calls`, job.id, 1);
    return { by: consumer, doubled: job.payload.n * 2 };
  },
);
worker.on('error', () => {});
await worker.start();
process.stdout.write('ready\n');
await worker.run();
await conn.close();
