// ZRANDMEMBER key [count [WITHSCORES]] (zrandmemberCommand, t_zset.c of Redis 7.0): one random
// member, or a count of them: distinct for a positive count (the whole set, highest first, when
// the count covers it), drawn independently from the whole set for a negative one. Read-only,
// so nothing is logged; the same count errors and RESP3 pairs as Redis.
import { keyBytes, keyOf } from '../engine/keyspace.js';
import type { ScoreEntry, SortedSetValue } from '../engine/sorted-set.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword, parseInt64 } from './args.js';
import type { Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';
import { entriesReply } from './zset-results.js';

const LONG_MAX = 9223372036854775807n;
/** Below this ratio of set size to count, the distinct members are drawn by elimination (Redis's CASE 3). */
const SUB_STRATEGY_MUL = 3;

function randomRank(zset: SortedSetValue): number {
  return Math.floor(Math.random() * zset.size);
}

function entryAt(zset: SortedSetValue, rank: number): ScoreEntry {
  return zset.slice(rank, rank + 1)[0]!;
}

/** `count` (< size) distinct ranks. */
function distinctRanks(size: number, count: number): number[] {
  if (count * SUB_STRATEGY_MUL > size) {
    // Partial Fisher-Yates over every rank: the first `count` are the pick.
    const ranks = Array.from({ length: size }, (_, i) => i);
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(Math.random() * (size - i));
      [ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!];
    }
    return ranks.slice(0, count);
  }
  const picked = new Set<number>();
  while (picked.size < count) picked.add(Math.floor(Math.random() * size));
  return [...picked];
}

export function zrandmember(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length === 2) {
    const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
    return zset === undefined ? null : keyBytes(entryAt(zset, randomRank(zset)).member);
  }
  // getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX): only LONG_MIN is out of that range.
  const l = parseInt64(argv[2]!);
  if (l === undefined) fail(Errors.notInteger);
  if (l < -LONG_MAX) fail(Errors.valueRange(`-${LONG_MAX}`, `${LONG_MAX}`));
  if (argv.length > 4 || (argv.length === 4 && !isKeyword(argv[3], 'withscores'))) fail(Errors.syntax);
  const withScores = argv.length === 4;
  // WITHSCORES doubles the reply: Redis refuses counts whose double would overflow.
  if (withScores && (l < -LONG_MAX / 2n || l > LONG_MAX / 2n)) fail(Errors.valueOutOfRange);
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  if (zset === undefined || l === 0n) return [];
  const unique = l > 0n;
  const abs = unique ? l : -l;
  if (!unique || abs === 1n) {
    // With repetition: each one drawn from the whole set.
    if (abs > BigInt(Number.MAX_SAFE_INTEGER)) fail(Errors.srandmemberTooMany);
    const picks: ScoreEntry[] = [];
    for (let n = Number(abs); n > 0; n--) picks.push(entryAt(zset, randomRank(zset)));
    return entriesReply(ctx, picks, withScores);
  }
  // The whole set, highest first: Redis's zset iterator (zuiNext) walks from the tail.
  if (abs >= BigInt(zset.size)) return entriesReply(ctx, zset.slice(0, zset.size).reverse(), withScores);
  const picks = distinctRanks(zset.size, Number(abs)).map((rank) => entryAt(zset, rank));
  return entriesReply(ctx, picks, withScores);
}
