// A worker process for flows-kill9.test.ts: runs a Worker on each of the streams TAG top, TAG mid
// and TAG leaf (group g, consumer CONSUMER). A leaf returns its payload's `n` after 0-60 ms, or
// throws when its payload says `fail`; a parent returns the sum of its children's values
// (job.getChildrenValues), so a parent run before all its children reported returns a wrong sum.
// Usage: node flows-worker-process.js URL TAG CONSUMER CLAIM_IDLE_MS
import { connect } from '../../src/client/connect.js';
import { Worker } from '../../src/broker/worker.js';

const [url, tag, consumer, claimIdleMs] = process.argv.slice(2) as [string, string, string, string];
const conn = await connect(url);
const workers = ['top', 'mid', 'leaf'].map(
  (level) =>
    new Worker<{ n?: number; fail?: boolean }>(
      conn,
      { stream: `${tag}${level}`, group: 'g', consumer, claimIdleMs: Number(claimIdleMs), blockMs: 100, concurrency: 4, maxDeliveries: 50 },
      async (job) => {
        await new Promise((r) => setTimeout(r, Math.random() * 60));
        if (level === 'leaf') {
          if (job.payload.fail) throw new Error(`leaf ${job.id} fails`);
          return job.payload.n;
        }
        const values = await job.getChildrenValues();
        return Object.values(values).reduce((sum: number, v) => sum + Number(v), 0);
      },
    ),
);
for (const w of workers) {
  w.on('error', () => {});
  await w.start();
}
process.stdout.write('ready\n');
await new Promise(() => {}); // until killed
