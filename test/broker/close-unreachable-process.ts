// A worker process for close-unreachable.test.ts: consumes STREAM (handlers of 20 ms, and every
// 100th job one that runs until aborted), prints `ready` once 150 jobs completed (one is stuck); on SIGUSR2 it calls
// close({ timeoutMs }) and prints one JSON line: how long close took, whether run() ended, and
// the CloseTimeoutError it emitted. Then it closes its connection (forced, when the close timed
// out: the server does not answer a QUIT either) and should exit by itself.
// Usage: node close-unreachable-process.js URL STREAM TIMEOUT_MS
import { connect } from '../../src/client/connect.js';
import { Producer } from '../../src/broker/producer.js';
import { CloseTimeoutError, Worker } from '../../src/broker/worker.js';

const [url, stream, timeoutMs] = process.argv.slice(2) as [string, string, string];
const conn = await connect(url);
const worker = new Worker<number>(conn, { stream, group: 'g', blockMs: 200, concurrency: 10 }, (job, { signal }) => {
  if (job.payload % 100 === 0) return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
  return new Promise((resolve) => setTimeout(resolve, 20));
});
let closeError: CloseTimeoutError | null = null;
worker.on('error', (err) => {
  if (err instanceof CloseTimeoutError) closeError = err;
});
let completed = 0;
worker.on('completed', () => completed++);
const running = worker.run();
await new Producer(conn, { stream }).addMany(Array.from({ length: 2000 }, (_, i) => i + 1));
while (completed < 150) await new Promise((r) => setTimeout(r, 10));
process.once('SIGUSR2', () => {
  void (async () => {
    const t0 = performance.now();
    await worker.close({ timeoutMs: Number(timeoutMs) });
    const closeMs = Math.round(performance.now() - t0);
    const runEnded = await Promise.race([running.then(() => true), new Promise((r) => setTimeout(() => r(false), 100))]);
    const e = closeError as CloseTimeoutError | null;
    process.stdout.write(`${JSON.stringify({ closeMs, runEnded, error: e && { message: e.message, abandoned: e.abandoned } })}\n`);
    await conn.close({ force: e !== null });
  })();
});
process.stdout.write('ready\n');
