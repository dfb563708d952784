// The consumer-group loop over the network, sluice server vs redis-server in the same run:
//
//   node dist/bench/stream-server.js [--entries 200000] [--consumers 4] [--count 10] [--rounds 3]
//                                    [--warmup 50000] [--warmup-streams 2]
//
// Seeds a stream with pipelined XADDs, then `consumers` clients each loop
// XREADGROUP GROUP g cN COUNT n STREAMS s > followed by XACK of what they got, until the stream
// is drained. Each round starts both servers afresh (sluice first, then redis) and first runs
// the same seed and loop, untimed, over --warmup entries split among --warmup-streams other
// streams (each with its group and consumers): the figures are a running server's, not a fresh
// process's still compiling its code (bench/warmup.js measures that; --warmup 0 mixes it back
// in). One warm-up stream is not enough for sluice: the second stream, group and connections a
// Node process sees deoptimize some of the code the first one trained (V8's "wrong map" and
// "insufficient type feedback"), and the recompiling fell in the timed loop. Prints the
// median entries/s for the seeding and for the consume loop with their ratios, and the median
// server CPU µs per entry (utime + stime from /proc), whose ratio the scheduler does not skew.
import { Redis } from 'ioredis';
import { cpuSeconds, threadCpuSeconds } from './proc-stats.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const ENTRIES = arg('entries', 200_000);
const CONSUMERS = arg('consumers', 4);
const COUNT = arg('count', 10);
const ROUNDS = arg('rounds', 3);
const WARMUP = arg('warmup', 50_000);
const WARMUP_STREAMS = arg('warmup-streams', 2);
const BATCH = 1000;

interface Phase {
  /** Entries per second. */
  rate: number;
  /** Server CPU microseconds per entry. */
  cpuUs: number;
  /** Of which the server's other threads (a Node server: V8 still compiling, GC helpers). */
  otherThreadsUs: number;
}

/** Runs `fn` (which handles ENTRIES entries) and measures its rate and the server's CPU. */
async function phase(pid: number, fn: () => Promise<void>): Promise<Phase> {
  const cpuBefore = cpuSeconds(pid);
  const threadsBefore = threadCpuSeconds(pid);
  const started = performance.now();
  await fn();
  const seconds = (performance.now() - started) / 1000;
  const threads = threadCpuSeconds(pid);
  const other = threads.all - threads.main - (threadsBefore.all - threadsBefore.main);
  return {
    rate: ENTRIES / seconds,
    cpuUs: ((cpuSeconds(pid) - cpuBefore) * 1e6) / ENTRIES,
    otherThreadsUs: (other * 1e6) / ENTRIES,
  };
}

async function seed(redis: Redis, key: string, entries: number): Promise<void> {
  for (let i = 0; i < entries; i += BATCH) {
    const p = redis.pipeline();
    for (let j = i; j < Math.min(entries, i + BATCH); j++) p.xadd(key, '*', 'order_id', String(j), 'total', String(j % 997));
    await p.exec();
  }
}

/** Drains `key` through its group with the consumers' loop; `timed` measures it. */
async function consume<T>(port: number, key: string, entries: number, timed: (fn: () => Promise<void>) => Promise<T>): Promise<T> {
  const admin = new Redis({ port });
  await admin.xgroup('CREATE', key, 'g', '0');
  const clients = Array.from({ length: CONSUMERS }, () => new Redis({ port }));
  await Promise.all(clients.map((c) => c.ping()));
  let handled = 0;
  const result = await timed(async () => {
    await Promise.all(
      clients.map(async (c, n) => {
        for (;;) {
          const reply = (await c.xreadgroup('GROUP', 'g', `c${n}`, 'COUNT', COUNT, 'STREAMS', key, '>')) as
            | Array<[string, Array<[string, string[]]>]>
            | null;
          const entries = reply?.[0]?.[1] ?? [];
          if (entries.length === 0) return;
          await c.xack(key, 'g', ...entries.map(([id]) => id));
          handled += entries.length;
        }
      }),
    );
  });
  const pending = (await admin.xpending(key, 'g')) as [number, ...unknown[]];
  if (handled !== entries || pending[0] !== 0) throw new Error(`handled ${handled}, pending ${pending[0]}`);
  for (const c of [admin, ...clients]) c.disconnect();
  return result;
}

async function measure(server: StartedServer): Promise<{ seed: Phase; consume: Phase }> {
  const redis = new Redis({ port: server.port });
  const pid = server.child.pid!;
  try {
    await redis.ping();
    for (let w = 0; WARMUP > 0 && w < WARMUP_STREAMS; w++) {
      const entries = Math.ceil(WARMUP / WARMUP_STREAMS);
      await seed(redis, `warmup:${w}`, entries);
      await consume(server.port, `warmup:${w}`, entries, (fn) => fn());
    }
    const seeded = await phase(pid, () => seed(redis, 'orders', ENTRIES));
    return { seed: seeded, consume: await consume(server.port, 'orders', ENTRIES, (fn) => phase(pid, fn)) };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

const runs = { sluice: [] as Array<{ seed: Phase; consume: Phase }>, redis: [] as Array<{ seed: Phase; consume: Phase }> };
for (let r = 0; r < ROUNDS; r++) {
  runs.sluice.push(await measure(await startSluice()));
  runs.redis.push(await measure(await startRedis()));
}
const col = (n: number, width: number, digits = 0) => n.toFixed(digits).padStart(width);
function row(label: string, pick: (m: { seed: Phase; consume: Phase }) => Phase): void {
  const s = { rate: median(runs.sluice.map((m) => pick(m).rate)), cpu: median(runs.sluice.map((m) => pick(m).cpuUs)) };
  const r = { rate: median(runs.redis.map((m) => pick(m).rate)), cpu: median(runs.redis.map((m) => pick(m).cpuUs)) };
  console.log(
    `${label.padEnd(34)}${col(s.rate, 10)}${col(r.rate, 10)}${col(s.rate / r.rate, 7, 2)}` +
      `${col(s.cpu, 12, 2)}${col(r.cpu, 11, 2)}${col(s.cpu / r.cpu, 7, 2)}`,
  );
}
console.log(`${ENTRIES} entries, ${CONSUMERS} consumers, COUNT ${COUNT}, after ${WARMUP} untimed, median of ${ROUNDS} round(s)`);
console.log(
  `${'entries/s'.padEnd(34)}${'sluice'.padStart(10)}${'redis'.padStart(10)}${'ratio'.padStart(7)}` +
    `${'sluice cpu'.padStart(12)}${'redis cpu'.padStart(11)}${'ratio'.padStart(7)}`,
);
row('XADD (pipelined 1000)', (m) => m.seed);
row(`XREADGROUP COUNT ${COUNT} + XACK loop`, (m) => m.consume);
console.log('cpu = server CPU µs per entry; its ratio is sluice/redis');
const other = median(runs.sluice.map((m) => m.consume.otherThreadsUs));
// With one warm-up stream it stayed near 1 us per entry however long the warm-up (perf: mostly
// TurboFan recompiling what the timed phase's stream, group and connections deoptimized); with
// two it is about 0.5 (the collector's helpers, little compiling): see --warmup-streams above.
console.log(`of sluice's loop CPU, its other threads (V8's compiler, GC helpers): ${other.toFixed(2)} µs per entry`);
