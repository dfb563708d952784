// What an add costs, by kind: Producer.addMany in slices of 1,000, plain XADD (idempotent:
// false) against idempotent adds (XADD IDMP on sluice, the batched script on redis-server), each
// with jobs off (anonymous entries) and on (records and `added` events). Adds/s, medians of
// --rounds after a warm-up, on each backend of --only (redis,embedded,server).
//   node dist/bench/adds.js [--adds 100000] [--rounds 3] [--only redis,embedded,server]
import { parseArgs } from 'node:util';
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { eachBackend, median } from './servers.js';

const { values } = parseArgs({
  options: {
    adds: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string', default: 'redis,embedded,server' },
  },
});
const ADDS = Number(values.adds);
const ROUNDS = Number(values.rounds);
const SLICE = 1000;

const kinds = [
  { name: 'plain XADD, jobs off', idempotent: false, jobs: false },
  { name: 'idempotent, jobs off', idempotent: true, jobs: false },
  { name: 'plain XADD, jobs on', idempotent: false, jobs: true },
  { name: 'idempotent, jobs on (default)', idempotent: true, jobs: true },
];

async function addsPerSecond(conn: Connection, kind: (typeof kinds)[number], adds: number): Promise<number> {
  const stream = `bench:adds:${Date.now()}:${Math.random().toString(36).slice(2)}`;
  const producer = new Producer<{ n: number }>(conn, { stream, idempotent: kind.idempotent, jobs: kind.jobs });
  await producer.add({ n: -1 }); // the server probe, outside the timing
  const started = performance.now();
  for (let i = 0; i < adds; i += SLICE) await producer.addMany(Array.from({ length: Math.min(SLICE, adds - i) }, (_, j) => ({ n: i + j })));
  const rate = adds / ((performance.now() - started) / 1000);
  await producer.close();
  await conn.call('FLUSHALL');
  return rate;
}

console.log(`${ADDS} adds per round in addMany slices of ${SLICE}, median of ${ROUNDS} rounds, adds/s`);
await eachBackend(values.only.split(','), async (backend, conn) => {
  for (const kind of kinds) {
    await addsPerSecond(conn, kind, Math.min(ADDS, 20_000)); // warm-up
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) rates.push(await addsPerSecond(conn, kind, ADDS));
    console.log(`${backend.padEnd(14)} ${kind.name.padEnd(30)} ${Math.round(median(rates)).toString().padStart(8)}`);
  }
});
