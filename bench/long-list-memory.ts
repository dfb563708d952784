// Memory of one long list, sluice vs redis-server: ELEMENTS elements pushed onto one key by RPUSH
// commands of BATCH values (Redis keeps them in a quicklist of 8 KiB listpack nodes, sluice in
// chunks of the same size), for two shapes of element:
//   strings:  member:<n>
//   integers: <n> (Redis's listpack stores these as integers, sluice as their digits)
//
//   node dist/bench/long-list-memory.js [elements=1000000]
//
// Redis: INFO used_memory before and after (pipelined). sluice: the embedded engine in this
// process, heapUsed + external after a full GC, before and after the same commands.
import { open } from '../src/client/embedded.js';
import { heapInUse, redisMemoryGrowth } from './memory.js';

const ELEMENTS = Number(process.argv[2] ?? 1_000_000);
const BATCH = 100;
const SHAPES = ['strings', 'integers'] as const;
type Shape = (typeof SHAPES)[number];

/** The RPUSH commands that build the list, as argument lists after the command name. */
function* pushes(shape: Shape): Generator<string[]> {
  for (let start = 0; start < ELEMENTS; start += BATCH) {
    const args = ['biglist'];
    for (let n = start; n < Math.min(ELEMENTS, start + BATCH); n++) args.push(shape === 'strings' ? `member:${n}` : String(n));
    yield args;
  }
}

function measureRedis(shape: Shape): Promise<number> {
  return redisMemoryGrowth(async (redis) => {
    let p = redis.pipeline();
    let queued = 0;
    for (const args of pushes(shape)) {
      p.rpush(args[0]!, ...args.slice(1));
      if (++queued === 100) {
        await p.exec();
        p = redis.pipeline();
        queued = 0;
      }
    }
    await p.exec();
  });
}

async function measureSluice(shape: Shape): Promise<number> {
  const db = await open();
  // Warm up first so compiled code is not counted as data (Redis's used_memory leaves out code).
  for (let j = 0; j < 2_000; j++) await db.call('RPUSH', 'warmup', `w${j}`, String(j));
  await db.call('FLUSHALL');
  const before = heapInUse();
  for (const args of pushes(shape)) await db.call('RPUSH', ...(args as [string, ...string[]]));
  const after = heapInUse();
  const length = await db.call('LLEN', 'biglist');
  if (length !== ELEMENTS) throw new Error(`unexpected LLEN ${String(length)}`);
  await db.close();
  return after - before;
}

const perElement = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB (${(bytes / ELEMENTS).toFixed(1)} B/element)`;
console.log(`one list of ${ELEMENTS} elements, RPUSH ${BATCH} at a time`);
for (const shape of SHAPES) {
  const ours = await measureSluice(shape);
  const theirs = await measureRedis(shape);
  console.log(`${shape}:`);
  console.log(`  redis used_memory:  ${perElement(theirs)}`);
  console.log(`  sluice heap+ext:    ${perElement(ours)}`);
  console.log(`  ratio sluice/redis: ${(ours / theirs).toFixed(2)}`);
}
