// BullMQ 6.7 on `sluice server` against BullMQ 6.7 on redis-server, both started here, in
// BullMQ's own benchmark scenarios (taskforcesh/bullmq-bench, bench/bullmq-scenarios.ts):
// queue-add (one job at a time, each awaited), queue-add-bulk (addBulk of 50), worker-generic
// (concurrency 1) and worker-concurrent (concurrency 100), the workers timed over a queue filled
// beforehand. Same client, same Lua scripts: what differs is the server running them. Each
// scenario runs --rounds times on each server, alternating, and the median is printed, with
// sluice/redis (issue 36: BullMQ itself on sluice).
//
// Usage: node dist/bench/bullmq-on-sluice.js [--add 2000] [--bulk 10000] [--generic 2000]
//        [--concurrent 10000] [--rounds 3]      (BENCH_PORTS=LO-HI keeps the ports in a range)
import { connect } from '../src/client/connect.js';
import { type BullConnection, bullAdd, bullWork } from './bullmq-scenarios.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}
const N = { add: arg('add', 2000), bulk: arg('bulk', 10_000), generic: arg('generic', 2000), concurrent: arg('concurrent', 10_000) };
const ROUNDS = arg('rounds', 3);

const servers: Record<'sluice' | 'redis', StartedServer> = { redis: await startRedis(), sluice: await startSluice() };
const connectionOf = (s: StartedServer): BullConnection => ({ host: '127.0.0.1', port: s.port, maxRetriesPerRequest: null });
let seq = 0;

/** FLUSHALL before each measure, so no scenario runs over the keys of another. */
async function flush(s: StartedServer): Promise<void> {
  const admin = await connect(`redis://127.0.0.1:${s.port}`);
  await admin.call('FLUSHALL');
  await admin.close();
}

const scenarios: Array<[string, (c: BullConnection) => Promise<number>]> = [
  [`queue-add (${N.add}, one at a time)`, (c) => bullAdd(c, `bq${++seq}`, N.add, 1)],
  [`queue-add-bulk (${N.bulk}, bulks of 50)`, (c) => bullAdd(c, `bq${++seq}`, N.bulk, 50)],
  [`worker-generic (${N.generic}, conc. 1)`, (c) => bullWork(c, `bq${++seq}`, N.generic, 1)],
  [`worker-concurrent (${N.concurrent}, conc. 100)`, (c) => bullWork(c, `bq${++seq}`, N.concurrent, 100)],
];

process.stdout.write(`BullMQ on sluice server (port ${servers.sluice.port}) and on redis-server (port ${servers.redis.port}), median of ${ROUNDS} rounds, jobs/s\n\n`);
process.stdout.write(`${'scenario'.padEnd(36)}${'sluice'.padStart(10)}${'redis'.padStart(10)}${'ratio'.padStart(8)}\n`);
try {
  for (const [name, run] of scenarios) {
    const got: Record<'sluice' | 'redis', number[]> = { sluice: [], redis: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const which of ['redis', 'sluice'] as const) {
        await flush(servers[which]);
        got[which].push(await run(connectionOf(servers[which])));
      }
    }
    const s = median(got.sluice);
    const b = median(got.redis);
    process.stdout.write(`${name.padEnd(36)}${String(s).padStart(10)}${String(b).padStart(10)}${(s / b).toFixed(2).padStart(7)}x\n`);
  }
} finally {
  await servers.sluice.stop();
  await servers.redis.stop();
}
