// A producer process for job-id.test.ts: on the line `go` on stdin, adds jobs with ids
// PREFIX-0 .. PREFIX-(N-1) to STREAM (half one by one, all at once; half in one addMany), prints
// the ids add() resolved to as a JSON line, and exits.
// Usage: node job-id-producer-process.js URL STREAM N
import { createInterface } from 'node:readline';
import { connect } from '../../src/client/connect.js';
import { Producer } from '../../src/broker/producer.js';

const [url, stream, n] = process.argv.slice(2) as [string, string, string];
const conn = await connect(url);
const producer = new Producer(conn, { stream });
await producer.add({ warm: process.pid }); // connected and probed before the race
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;
const count = Number(n);
const half = Math.floor(count / 2);
const [one, many] = await Promise.all([
  Promise.all(Array.from({ length: half }, (_, i) => producer.add({ i, pid: process.pid }, { jobId: `race-${i}` }))),
  producer.addMany(Array.from({ length: count - half }, (_, j) => ({ payload: { i: half + j, pid: process.pid }, jobId: `race-${half + j}` })), { keyed: true }),
]);
process.stdout.write(`${JSON.stringify([...one, ...many])}\n`);
await producer.close();
await conn.close();
lines.close();
