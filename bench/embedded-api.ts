// The embedded engine through its public API: XADD/s with `db.call` and `connect(db).call`, in
// the two shapes users write: awaited one by one, and many calls in flight at once. Beside it,
// redis-server fed by ioredis in pipelines of 1,000 (the fastest a client gets from Redis) as
// the reference, in the same run.
//
//   node dist/bench/embedded-api.js [calls=300000] [rounds=3]
import { Redis } from 'ioredis';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { open } from '../src/client/embedded.js';
import { median, startRedis } from './servers.js';

const CALLS = Number(process.argv[2] ?? 300_000);
const ROUNDS = Number(process.argv[3] ?? 3);

type Caller = Pick<Connection, 'call'>;

async function awaited(target: Caller, key: string): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await target.call('XADD', key, '*', 'order_id', i, 'total', i);
  return CALLS / ((performance.now() - started) / 1000);
}

async function inFlight(target: Caller, key: string): Promise<number> {
  const started = performance.now();
  const pending: Array<Promise<unknown>> = new Array(CALLS);
  for (let i = 0; i < CALLS; i++) pending[i] = target.call('XADD', key, '*', 'order_id', i, 'total', i);
  await Promise.all(pending);
  return CALLS / ((performance.now() - started) / 1000);
}

async function redisPipelined(redis: Redis, key: string): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i += 1000) {
    const p = redis.pipeline();
    for (let j = i; j < Math.min(CALLS, i + 1000); j++) p.xadd(key, '*', 'order_id', j, 'total', j);
    await p.exec();
  }
  return CALLS / ((performance.now() - started) / 1000);
}

const db = await open();
const conn = await connect(db);
const server = await startRedis();
const redis = new Redis(server.port);
const results = new Map<string, number[]>();
const record = (name: string, rate: number): void => void results.set(name, [...(results.get(name) ?? []), rate]);
for (let round = 0; round < ROUNDS; round++) {
  record('db.call awaited', await awaited(db, `a${round}`));
  record('db.call in flight', await inFlight(db, `b${round}`));
  record('connect(db).call awaited', await awaited(conn, `c${round}`));
  record('connect(db).call in flight', await inFlight(conn, `d${round}`));
  record('redis-server, ioredis pipelines of 1000', await redisPipelined(redis, `e${round}`));
  // Each round starts from an empty dataset: the heap's size is not what is measured.
  await db.call('FLUSHALL');
  await redis.flushall();
}
const reference = median(results.get('redis-server, ioredis pipelines of 1000')!);
process.stdout.write(`XADD/s, ${CALLS} calls, median of ${ROUNDS} rounds\n`);
for (const [name, rates] of results) {
  process.stdout.write(`${name.padEnd(42)} ${Math.round(median(rates)).toLocaleString('en-US').padStart(10)}  ${(median(rates) / reference).toFixed(2)}x redis\n`);
}
redis.disconnect();
await server.stop();
await conn.close();
await db.close();
