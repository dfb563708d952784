// A worker process for sandbox-kill9.test.ts: runs test/broker/fixtures/sandbox/processor.js in
// child-process sandboxes on STREAM (group g) until it is killed.
// Usage: node sandbox-worker-process.js URL STREAM
import { connect } from '../../src/client/connect.js';
import { Worker } from '../../src/broker/worker.js';
import type { Task } from './fixtures/sandbox/processor.js';

const [url, stream] = process.argv.slice(2) as [string, string];
const conn = await connect(url);
const worker = new Worker<Task>(conn, { stream, group: 'g', concurrency: 2, blockMs: 100, sandbox: { kind: 'process' } }, new URL('./fixtures/sandbox/processor.js', import.meta.url));
worker.on('error', () => {});
await worker.start();
process.stdout.write('ready\n');
await worker.run();
