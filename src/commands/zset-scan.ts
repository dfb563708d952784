// ZSCAN, as scanGenericCommand does it for sorted sets. A small set (Redis's listpack
// encoding) is returned whole in one call with cursor 0, in score order, as Redis does.
// A big one is walked like SCAN walks the keyspace (see keys.ts): the cursor names a parked
// live iterator over the member map, so every member present for the whole scan is returned
// once; an unknown cursor restarts the scan.
import { memberScanOptions, scanStep } from './scan-cursors.js';
import { keyBytes } from '../engine/keyspace.js';
import type { SortedSetValue } from '../engine/sorted-set.js';
import { formatDouble } from '../resp/encoder.js';
import type { Reply } from '../resp/reply.js';
import { globMatch } from './glob.js';
import type { Context } from './types.js';

/** 2^62: Redis's double2ll prints integral scores up to this as integers. */
const LISTPACK_INTEGER_LIMIT = 4611686018427387904;

/**
 * A score as ZSCAN shows it. A listpack holds the text d2string made (integral values as
 * integers); a skiplist's scan prints the double with %.17Lg.
 */
function scanScoreText(zset: SortedSetValue, score: number): string {
  if (zset.isListpack && Number.isInteger(score) && Math.abs(score) <= LISTPACK_INTEGER_LIMIT) {
    return BigInt(score).toString();
  }
  return formatDouble(score);
}

/** ZSCAN's reply for the set at argv[1] (already parsed `cursor`, looked up `zset`). */
export function zscanReply(ctx: Context, argv: Buffer[], cursor: string, zset: SortedSetValue | undefined): Reply {
  if (zset === undefined) return ['0', []];
  // Options are read after the key lookup, as Redis does (a missing key ignores bad ones).
  const { count, pattern } = memberScanOptions(argv);
  const found: Reply[] = [];
  const emit = (member: string, score: number): void => {
    if (pattern !== null && !globMatch(pattern, member)) return;
    found.push(keyBytes(member), scanScoreText(zset, score));
  };
  if (zset.isListpack) {
    for (const e of zset.entries()) emit(e.member, e.score);
    return ['0', found];
  }
  // The read-ahead member may have gone or moved since the last call.
  const next = scanStep(ctx.instance, cursor, zset, () => zset.indexMembers(), count, (member) => {
    const score = zset.score(member);
    if (score !== undefined) emit(member, score);
  });
  return [next, found];
}
