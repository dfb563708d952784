// Memory per sorted-set member, sluice vs redis-server, for two shapes:
//   big:   one key, ZADD big <score> member:<n> for n < members (Redis: skiplist + dict)
//   small: many keys of 10 members each, the delayed-jobs shape (Redis: listpack)
// Scores alternate integers and fractions, like due times and priorities.
//
//   node dist/bench/zset-memory.js [members=1000000]
//
// Redis: INFO used_memory before and after (pipelined). sluice: the embedded engine in this
// process, heapUsed + external after a full GC, before and after the same commands.
import { open } from '../src/client/embedded.js';
import { heapInUse, redisMemoryGrowth } from './memory.js';

const MEMBERS = Number(process.argv[2] ?? 1_000_000);
const SMALL_SIZE = 10;
const BATCH = 10_000;

/** The commands of a shape, in batches: [key, score, member] triples. */
function* shape(kind: 'big' | 'small'): Generator<Array<[string, string, string]>> {
  let batch: Array<[string, string, string]> = [];
  for (let n = 0; n < MEMBERS; n++) {
    const key = kind === 'big' ? 'big' : `small:${Math.floor(n / SMALL_SIZE)}`;
    batch.push([key, n % 2 === 0 ? String(1_700_000_000_000 + n) : String(n * 1.5 + 0.25), `member:${n}`]);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function measureRedis(kind: 'big' | 'small'): Promise<number> {
  return redisMemoryGrowth(async (redis) => {
    for (const batch of shape(kind)) {
      const p = redis.pipeline();
      for (const [key, score, member] of batch) p.zadd(key, score, member);
      await p.exec();
    }
  });
}

async function measureSluice(kind: 'big' | 'small'): Promise<number> {
  const db = await open();
  // Warm up first so compiled code is not counted as data (Redis's used_memory leaves out code).
  for (let j = 0; j < 50_000; j++) await db.call('ZADD', `warmup${j % 100}`, String(j * 1.5), `w${j}`);
  await db.call('FLUSHALL');
  const before = heapInUse();
  for (const batch of shape(kind)) await Promise.all(batch.map(([key, score, member]) => db.call('ZADD', key, score, member)));
  const after = heapInUse();
  const card = await db.call('ZCARD', kind === 'big' ? 'big' : 'small:0');
  if (card !== (kind === 'big' ? MEMBERS : SMALL_SIZE)) throw new Error(`unexpected ZCARD ${String(card)}`);
  await db.close();
  return after - before;
}

const perMember = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB (${(bytes / MEMBERS).toFixed(1)} B/member)`;
console.log(`members: ${MEMBERS}  (member:N, scores alternating integers and fractions)`);
for (const kind of ['big', 'small'] as const) {
  const label = kind === 'big' ? 'one key' : `${MEMBERS / SMALL_SIZE} keys of ${SMALL_SIZE}`;
  const ours = await measureSluice(kind);
  const theirs = await measureRedis(kind);
  console.log(`${label}:`);
  console.log(`  redis used_memory:  ${perMember(theirs)}`);
  console.log(`  sluice heap+ext:    ${perMember(ours)}`);
  console.log(`  ratio sluice/redis: ${(ours / theirs).toFixed(2)}`);
}
