// ZRANDMEMBER key [count [WITHSCORES]] (zrandmemberCommand, t_zset.c of Redis 7.0): one random
// member, or a count of them: distinct for a positive count (the whole set, highest first, when
// the count covers it), drawn independently from the whole set for a negative one. Read-only,
// so nothing is logged; the same count errors and RESP3 pairs as Redis.
import { keyBytes, keyOf } from '../engine/keyspace.js';
import type { ScoreEntry, SortedSetValue } from '../engine/sorted-set.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword } from './args.js';
import { checkDoubledCount, distinctPositions, randomCount, repeatedDraws } from './random-count.js';
import type { Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';
import { entriesReply } from './zset-results.js';

function randomRank(zset: SortedSetValue): number {
  return Math.floor(Math.random() * zset.size);
}

function entryAt(zset: SortedSetValue, rank: number): ScoreEntry {
  return zset.slice(rank, rank + 1)[0]!;
}

export function zrandmember(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length === 2) {
    const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
    return zset === undefined ? null : keyBytes(entryAt(zset, randomRank(zset)).member);
  }
  const l = randomCount(argv[2]!);
  if (argv.length > 4 || (argv.length === 4 && !isKeyword(argv[3], 'withscores'))) fail(Errors.syntax);
  const withScores = argv.length === 4;
  if (withScores) checkDoubledCount(l);
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  if (zset === undefined || l === 0n) return [];
  const unique = l > 0n;
  const abs = unique ? l : -l;
  if (!unique || abs === 1n) {
    // With repetition: each one drawn from the whole set.
    const picks: ScoreEntry[] = [];
    for (let n = repeatedDraws(abs); n > 0; n--) picks.push(entryAt(zset, randomRank(zset)));
    return entriesReply(ctx, picks, withScores);
  }
  // The whole set, highest first: Redis's zset iterator (zuiNext) walks from the tail.
  if (abs >= BigInt(zset.size)) return entriesReply(ctx, zset.slice(0, zset.size).reverse(), withScores);
  const picks = distinctPositions(zset.size, Number(abs)).map((rank) => entryAt(zset, rank));
  return entriesReply(ctx, picks, withScores);
}
