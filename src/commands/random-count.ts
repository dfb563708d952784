// What SRANDMEMBER, ZRANDMEMBER and HRANDFIELD share (t_set.c, t_zset.c, t_hash.c of Redis 7.0):
// the count argument, and the pick of distinct positions when the count is below the size.
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { parseInt64 } from './args.js';

const LONG_MAX = 9223372036854775807n;
/** Below this ratio of size to count, distinct positions are drawn by elimination (Redis's CASE 3). */
const SUB_STRATEGY_MUL = 3;

/** getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX): only LONG_MIN is out of that range. */
export function randomCount(arg: Buffer): bigint {
  const l = parseInt64(arg);
  if (l === undefined) fail(Errors.notInteger);
  if (l < -LONG_MAX) fail(Errors.valueRange(`-${LONG_MAX}`, `${LONG_MAX}`));
  return l;
}

/** With WITHSCORES / WITHVALUES the reply doubles: Redis refuses counts whose double overflows. */
export function checkDoubledCount(l: bigint): void {
  if (l < -LONG_MAX / 2n || l > LONG_MAX / 2n) fail(Errors.valueOutOfRange);
}

/** A count of draws with repetition as a number, refused when no reply could hold it. */
export function repeatedDraws(abs: bigint): number {
  if (abs > BigInt(Number.MAX_SAFE_INTEGER)) fail(Errors.srandmemberTooMany);
  return Number(abs);
}

/** `count` (< size) distinct positions in [0, size). */
export function distinctPositions(size: number, count: number): number[] {
  if (count * SUB_STRATEGY_MUL > size) {
    // Partial Fisher-Yates over every position: the first `count` are the pick.
    const positions = Array.from({ length: size }, (_, i) => i);
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(Math.random() * (size - i));
      [positions[i], positions[j]] = [positions[j]!, positions[i]!];
    }
    return positions.slice(0, count);
  }
  const picked = new Set<number>();
  while (picked.size < count) picked.add(Math.floor(Math.random() * size));
  return [...picked];
}
