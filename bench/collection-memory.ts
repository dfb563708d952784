// Memory per small collection, sluice vs redis-server: KEYS keys of each type holding 128 short
// members (Redis keeps these as listpacks, a list as one quicklist node), the shape issue 35 names.
// Redis: INFO used_memory before and after. sluice: the embedded engine in this process,
// heapUsed + external after a full GC, before and after the same commands.
//
//   node dist/bench/collection-memory.js [keys=2000] [members=128]
import { open } from '../src/client/embedded.js';
import { heapInUse, redisMemoryGrowth } from './memory.js';

const KEYS = Number(process.argv[2] ?? 2_000);
const MEMBERS = Number(process.argv[3] ?? 128);
const KINDS = ['list', 'set', 'intset', 'zset', 'hash'] as const;
type Kind = (typeof KINDS)[number];

/** One command per key filling it whole: [command, ...args]. */
function fillCommand(kind: Kind, key: number): string[] {
  const args: string[] = [];
  for (let m = 0; m < MEMBERS; m++) {
    if (kind === 'list' || kind === 'set') args.push(`member:${m}`);
    else if (kind === 'intset') args.push(String(m * 7));
    else if (kind === 'zset') args.push(String(m * 1.5), `member:${m}`);
    else args.push(`field:${m}`, `value:${m}`);
  }
  const command = { list: 'RPUSH', set: 'SADD', intset: 'SADD', zset: 'ZADD', hash: 'HSET' }[kind];
  return [command, `${kind}:${key}`, ...args];
}

function measureRedis(kind: Kind): Promise<number> {
  return redisMemoryGrowth(async (redis) => {
    for (let start = 0; start < KEYS; start += 500) {
      const p = redis.pipeline();
      for (let k = start; k < Math.min(KEYS, start + 500); k++) {
        const [command, ...args] = fillCommand(kind, k);
        p.call(command!, ...args);
      }
      await p.exec();
    }
  });
}

async function measureSluice(kind: Kind): Promise<number> {
  const db = await open();
  // Warm up first so compiled code is not counted as data (Redis's used_memory leaves out code).
  for (let k = 0; k < 300; k++) await db.call(...(fillCommand(kind, k) as [string, ...string[]]));
  await db.call('FLUSHALL');
  const before = heapInUse();
  for (let k = 0; k < KEYS; k++) await db.call(...(fillCommand(kind, k) as [string, ...string[]]));
  const after = heapInUse();
  const encoding = await db.call('OBJECT', 'ENCODING', `${kind}:0`);
  await db.close();
  console.log(`  (sluice's OBJECT ENCODING: ${String(encoding)})`);
  return after - before;
}

console.log(`${KEYS} keys per type, ${MEMBERS} members each`);
for (const kind of KINDS) {
  console.log(`${kind}:`);
  const ours = await measureSluice(kind);
  const theirs = await measureRedis(kind);
  console.log(`  redis used_memory: ${(theirs / KEYS).toFixed(0)} B/key`);
  console.log(`  sluice heap+ext:   ${(ours / KEYS).toFixed(0)} B/key`);
  console.log(`  ratio sluice/redis: ${(ours / theirs).toFixed(2)}`);
}
