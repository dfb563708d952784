// The consumer-group loop over the network, sluice server vs redis-server in the same run:
//
//   node dist/bench/stream-server.js [--entries 200000] [--consumers 4] [--count 10]
//
// Seeds a stream with pipelined XADDs, then `consumers` clients each loop
// XREADGROUP GROUP g cN COUNT n STREAMS s > followed by XACK of what they got, until the stream
// is drained. Prints entries/s for the seeding and for the consume loop, and the ratios.
import { Redis } from 'ioredis';
import { startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const ENTRIES = arg('entries', 200_000);
const CONSUMERS = arg('consumers', 4);
const COUNT = arg('count', 10);
const BATCH = 1000;

async function seed(redis: Redis): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < ENTRIES; i += BATCH) {
    const p = redis.pipeline();
    for (let j = i; j < Math.min(ENTRIES, i + BATCH); j++) p.xadd('orders', '*', 'order_id', String(j), 'total', String(j % 997));
    await p.exec();
  }
  return ENTRIES / ((performance.now() - started) / 1000);
}

async function consume(port: number): Promise<number> {
  const admin = new Redis({ port });
  await admin.xgroup('CREATE', 'orders', 'g', '0');
  const clients = Array.from({ length: CONSUMERS }, () => new Redis({ port }));
  const started = performance.now();
  let handled = 0;
  await Promise.all(
    clients.map(async (c, n) => {
      for (;;) {
        const reply = (await c.xreadgroup('GROUP', 'g', `c${n}`, 'COUNT', COUNT, 'STREAMS', 'orders', '>')) as
          | Array<[string, Array<[string, string[]]>]>
          | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) return;
        await c.xack('orders', 'g', ...entries.map(([id]) => id));
        handled += entries.length;
      }
    }),
  );
  const rate = handled / ((performance.now() - started) / 1000);
  const pending = (await admin.xpending('orders', 'g')) as [number, ...unknown[]];
  if (handled !== ENTRIES || pending[0] !== 0) throw new Error(`handled ${handled}, pending ${pending[0]}`);
  for (const c of [admin, ...clients]) c.disconnect();
  return rate;
}

async function measure(server: StartedServer): Promise<{ seed: number; consume: number }> {
  const redis = new Redis({ port: server.port });
  try {
    const seedRate = await seed(redis);
    return { seed: seedRate, consume: await consume(server.port) };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

const sluice = await measure(await startSluice());
const redis = await measure(await startRedis());
const row = (label: string, s: number, r: number) =>
  console.log(`${label.padEnd(34)}${s.toFixed(0).padStart(10)}${r.toFixed(0).padStart(10)}${(s / r).toFixed(2).padStart(7)}`);
console.log(`${ENTRIES} entries, ${CONSUMERS} consumers, COUNT ${COUNT}`);
console.log(`${'entries/s'.padEnd(34)}${'sluice'.padStart(10)}${'redis'.padStart(10)}${'ratio'.padStart(7)}`);
row('XADD (pipelined 1000)', sluice.seed, redis.seed);
row(`XREADGROUP COUNT ${COUNT} + XACK loop`, sluice.consume, redis.consume);
