// What a script's redis.call costs on sluice server against redis-server, in the same run: one
// EVAL whose loop makes N calls of a command (SET, HMGET, GET), and the LREM a BullMQ worker
// makes at every job's end (LPUSH a new id on a 100-element list, LREM -1 an old one), sent
// pipelined. Prints ms per script and µs per pair, medians of the rounds, and sluice/redis.
//
//   node dist/bench/script-calls.js [--calls 100000] [--rounds 5] [--pairs 20000]
import { Redis } from 'ioredis';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}
const CALLS = arg('calls', 100_000);
const ROUNDS = arg('rounds', 5);
const PAIRS = arg('pairs', 20_000);

const SCRIPTS: Array<[string, string]> = [
  ['SET k i', `for i=1,${CALLS} do redis.call('SET','k',i) end return 1`],
  ['HMGET h a b c', `for i=1,${CALLS} do redis.call('HMGET','h','a','b','c') end return 1`],
  ['GET k', `for i=1,${CALLS} do redis.call('GET','k') end return 1`],
];

/** ms of one EVAL of `script` (after one untimed). */
async function scriptMs(redis: Redis, script: string): Promise<number> {
  await redis.eval(script, 0);
  const t = performance.now();
  await redis.eval(script, 0);
  return performance.now() - t;
}

/** µs per LPUSH + LREM pair on a 100-element list, pipelined by 1,000 pairs. */
async function lremPairUs(redis: Redis): Promise<number> {
  await redis.del('active');
  for (let i = 0; i < 100; i++) await redis.lpush('active', `job:${i}`);
  const t = performance.now();
  for (let from = 100; from < 100 + PAIRS; from += 1000) {
    const p = redis.pipeline();
    for (let n = from; n < from + 1000; n++) p.lpush('active', `job:${n}`).lrem('active', -1, `job:${n - 100}`);
    await p.exec();
  }
  return ((performance.now() - t) * 1000) / PAIRS;
}

const servers: Record<'sluice' | 'redis', StartedServer> = { sluice: await startSluice(), redis: await startRedis() };
const clients = { sluice: new Redis({ port: servers.sluice.port }), redis: new Redis({ port: servers.redis.port }) };
const results = new Map<string, { sluice: number[]; redis: number[] }>();
const record = (name: string, who: 'sluice' | 'redis', value: number): void => {
  const r = results.get(name) ?? { sluice: [], redis: [] };
  r[who].push(value);
  results.set(name, r);
};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const who of ['sluice', 'redis'] as const) {
      for (const [name, script] of SCRIPTS) record(`script of ${CALLS} × ${name} (ms)`, who, await scriptMs(clients[who], script));
      record('LPUSH + LREM -1 on 100 elements (µs a pair)', who, await lremPairUs(clients[who]));
    }
  }
  console.log(`medians of ${ROUNDS} rounds, sluice server and redis-server taking turns`);
  console.log(`${'measure'.padEnd(46)}${'sluice'.padStart(10)}${'redis'.padStart(10)}${'sluice/redis'.padStart(14)}`);
  for (const [name, r] of results) {
    const [s, x] = [median(r.sluice), median(r.redis)];
    console.log(`${name.padEnd(46)}${s.toFixed(1).padStart(10)}${x.toFixed(1).padStart(10)}${(s / x).toFixed(2).padStart(13)}x`);
  }
} finally {
  clients.sluice.disconnect();
  clients.redis.disconnect();
  await servers.sluice.stop();
  await servers.redis.stop();
}
