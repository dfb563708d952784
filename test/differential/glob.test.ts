// The glob matcher (KEYS, SCAN MATCH, PSUBSCRIBE) against redis-server, over random patterns
// built from the characters that have a meaning (* ? [ ] ^ - \) and bytes above 127 (ranges
// compare them as C's signed chars), on keys and channels that include the empty one. The
// patterns that are exponential without Redis's early exit: test/faults/glob.test.ts.
//
//   SLUICE_DIFF_SEED=123 node --test dist/test/differential/glob.test.js   reproduces a run
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from './case-types.js';
import { sorted } from './normalize.js';
import { type RawConnection, type Target, useTargets } from './targets.js';

const targets = useTargets();

const keyAlphabet = ['a', 'b', 'A', 'B', '\u00e9', '\u00ff', '*', '[', ']', '-', '\\', '^', '?'];
const patternAlphabet = ['a', 'b', 'A', '\u00e9', '*', '*', '?', '[', '[', ']', ']', '^', '-', '-', '\\', 'z', '\u00ff'];

function word(rng: Rng, alphabet: string[], max: number): string {
  let s = '';
  for (let n = rng.int(max + 1); n > 0; n--) s += rng.pick(alphabet);
  return s;
}

async function withKeys(target: Target, keys: string[]): Promise<RawConnection> {
  const conn = await target.connect();
  await conn.command(['FLUSHALL']);
  for (const key of keys) await conn.command(['SET', key, '1']);
  return conn;
}

test('random patterns: KEYS and SCAN MATCH select the same keys as redis-server', async () => {
  const seed = process.env.SLUICE_DIFF_SEED !== undefined ? Number(process.env.SLUICE_DIFF_SEED) : (Math.random() * 2 ** 32) >>> 0;
  const rng = new Rng(seed);
  const keys = new Set<string>(['', 'a', 'ab', 'aB', 'Ab']);
  while (keys.size < 60) keys.add(word(rng, keyAlphabet, 6));
  const redis = await withKeys(targets.redis, [...keys]);
  const sluice = await withKeys(targets.sluice, [...keys]);
  try {
    for (let i = 0; i < 400; i++) {
      const pattern = word(rng, patternAlphabet, 7);
      const argv = i % 4 === 3 ? ['SCAN', '0', 'COUNT', '1000', 'MATCH', pattern] : ['KEYS', pattern];
      const pick = (f: Awaited<ReturnType<RawConnection['command']>>) => sorted(argv[0] === 'SCAN' ? f.children![1]! : f).toString('latin1');
      const [r, s] = [pick(await redis.command(argv)), pick(await sluice.command(argv))];
      assert.equal(s, r, `${JSON.stringify(argv)} differs (reproduce with SLUICE_DIFF_SEED=${seed})`);
    }
  } finally {
    redis.close();
    sluice.close();
  }
});

test('random patterns: PUBLISH reaches the same pattern subscribers as on redis-server', async () => {
  const seed = process.env.SLUICE_DIFF_SEED !== undefined ? Number(process.env.SLUICE_DIFF_SEED) : (Math.random() * 2 ** 32) >>> 0;
  const rng = new Rng(seed);
  const patterns = new Set<string>(['*', '?', '[]', '[', '\\']);
  while (patterns.size < 80) patterns.add(word(rng, patternAlphabet, 6));
  const channels = ['', 'a', ...Array.from({ length: 150 }, () => word(rng, keyAlphabet, 6))];
  const replies: string[][] = [];
  for (const target of [targets.redis, targets.sluice]) {
    const subscriber = await target.connect();
    const publisher = await target.connect();
    try {
      await subscriber.command(['PSUBSCRIBE', ...patterns], patterns.size);
      const counts: string[] = [];
      for (const channel of channels) counts.push(`${JSON.stringify(channel)} ${(await publisher.command(['PUBLISH', channel, 'm'])).raw.toString()}`);
      replies.push(counts);
    } finally {
      subscriber.close();
      publisher.close();
    }
  }
  assert.deepEqual(replies[1], replies[0], `reproduce with SLUICE_DIFF_SEED=${seed}`);
});
