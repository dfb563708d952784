// Scale-out benchmark: end-to-end msgs/s (first add → last handler done) of the partitioned
// broker on one redis-server vs a local 3-master Redis Cluster (3 replicas, started here from the
// installed redis-server) with 3 and 6 partitions. One process produces (pipelined batches of
// 1,000, keyed) and consumes (Worker with partitions, concurrency split over the partitions).
//
// Usage: node dist/bench/cluster.js [--messages 50000] [--concurrency 60] [--runs 1]
// On one machine every node shares its CPUs with the others and with this client, so the
// figures show the overhead and routing of the cluster path more than real scale-out; run the
// client and nodes on separate hosts to measure that.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { cli, freePort, LocalCluster } from '../test/cluster/local-cluster.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const MESSAGES = Number(arg('messages', '50000'));
const CONCURRENCY = Number(arg('concurrency', '60'));
const RUNS = Number(arg('runs', '1'));
const BATCH = 1000;

let streamCounter = 0;

async function measure(conn: Connection, partitions: number): Promise<number> {
  const stream = `bench${streamCounter++}`;
  const producer = new Producer(conn, { stream, partitions });
  let done = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  const worker = new Worker(conn, { stream, partitions, group: 'g', concurrency: CONCURRENCY, blockMs: 200 }, () => {
    if (++done === MESSAGES) finish();
  });
  await worker.start();
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i += BATCH) {
    const n = Math.min(BATCH, MESSAGES - i);
    await producer.addMany(Array.from({ length: n }, (_, j) => ({ payload: { n: i + j }, key: `k${(i + j) % 1000}` })), { keyed: true });
  }
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  return MESSAGES / seconds;
}

async function best(conn: Connection, partitions: number): Promise<number> {
  let top = 0;
  for (let r = 0; r < RUNS; r++) top = Math.max(top, await measure(conn, partitions));
  return top;
}

async function main(): Promise<void> {
  console.log(`cluster bench: ${MESSAGES} messages, concurrency ${CONCURRENCY}, best of ${RUNS}, ${cpus().length} CPUs`);
  const rows: Array<[string, number]> = [];

  const port = await freePort();
  const single: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await cli(port, 'PING')).trim() === 'PONG') break;
      } catch {
        if (i > 100) throw new Error('redis-server did not start');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const conn = await connect(`redis://127.0.0.1:${port}`);
    rows.push(['1 node, 1 partition', await best(conn, 1)]);
    rows.push(['1 node, 3 partitions', await best(conn, 3)]);
    await conn.close();
  } finally {
    single.kill('SIGKILL');
  }

  const cluster = await LocalCluster.start({ masters: 3, replicas: 1 });
  try {
    const conn = await connect(cluster.url);
    rows.push(['3-master cluster, 3 partitions', await best(conn, 3)]);
    rows.push(['3-master cluster, 6 partitions', await best(conn, 6)]);
    await conn.close();
  } finally {
    await cluster.stop();
  }
  for (const [name, rate] of rows) console.log(`${name.padEnd(32)} ${Math.round(rate).toString().padStart(8)} msgs/s`);
}

await main();
