// SPOP and SRANDMEMBER (t_set.c of Redis 7.0): random members, with Redis's reply shapes and
// count errors. What SPOP removes is logged as Redis propagates it, never as SPOP (which would
// pick other members on replay): SREM key member per popped member, or DEL key when the whole
// set was taken.
import { NOTIFY_GENERIC, NOTIFY_SET } from './keyspace-events.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { SetValue } from '../engine/set.js';
import { fail, type Reply, SetReply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { parseInt64 } from './args.js';
import type { Context } from './types.js';
import { randomCount, repeatedDraws } from './random-count.js';
import { intsetLimit } from './set-algebra.js';
import { lookupTyped } from './typed-lookup.js';

const LONG_MAX = 9223372036854775807n;
/** SPOP's CASE 2 (draw members one by one) while remaining * this > count. */
const SPOP_MOVE_STRATEGY_MUL = 5;

/** getPositiveLongFromObjectOrReply: an integer in [0, LONG_MAX], else "must be positive" (also for text). */
function positiveCount(arg: Buffer): number {
  const v = parseInt64(arg);
  if (v === undefined || v < 0n) fail(Errors.notPositive);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

/** SPOP key [count] */
export function spop(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length === 3) return spopWithCount(ctx, argv);
  if (argv.length > 3) fail(Errors.syntax);
  const key = keyOf(argv[1]!);
  const set = lookupTyped(ctx.db, key, 'set');
  if (set === undefined) return null;
  const member = set.random();
  set.delete(member);
  const bytes = keyBytes(member);
  if (ctx.propagating) ctx.propagate(['SREM', argv[1]!, bytes]);
  if (set.size === 0) ctx.db.delete(key);
  ctx.modified(key);
  ctx.notify(NOTIFY_SET, 'spop', key);
  if (set.size === 0) ctx.notify(NOTIFY_GENERIC, 'del', key);
  return bytes;
}

function spopWithCount(ctx: Context, argv: Buffer[]): Reply {
  // The count is checked before the key is looked up, as Redis does.
  let count = positiveCount(argv[2]!);
  const key = keyOf(argv[1]!);
  const set = lookupTyped(ctx.db, key, 'set');
  if (set === undefined || count === 0) return new SetReply([]);
  const size = set.size;
  ctx.modified(key);
  ctx.addDirty(Math.min(count, size) - 1);
  ctx.notify(NOTIFY_SET, 'spop', key);
  if (count >= size) {
    // The whole set, as SUNION of it alone replies it (a fresh set: an intset when it can be).
    const all = SetValue.of(set.members, intsetLimit(ctx)).list();
    ctx.db.delete(key);
    ctx.notify(NOTIFY_GENERIC, 'del', key);
    ctx.propagate(['DEL', argv[1]!]);
    return new SetReply(all.map(keyBytes));
  }
  const remaining = size - count;
  const popped: string[] = [];
  if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
    while (count-- > 0) {
      const member = set.random();
      set.delete(member);
      popped.push(member);
    }
  } else {
    // Few members stay: draw those into a new set, reply the rest in the old set's order.
    const kept = set.randomDistinct(remaining);
    for (const member of kept) set.delete(member);
    popped.push(...set.list());
    ctx.db.set(key, SetValue.of(kept, intsetLimit(ctx)), true);
  }
  const replies = popped.map(keyBytes);
  if (ctx.propagating) for (const bytes of replies) ctx.propagate(['SREM', argv[1]!, bytes]);
  return new SetReply(replies);
}

/** SRANDMEMBER key [count] */
export function srandmember(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length === 3) return srandmemberWithCount(ctx, argv);
  if (argv.length > 3) fail(Errors.syntax);
  const set = lookupTyped(ctx.db, keyOf(argv[1]!), 'set');
  return set === undefined ? null : keyBytes(set.random());
}

function srandmemberWithCount(ctx: Context, argv: Buffer[]): Reply {
  const v = randomCount(argv[2]!);
  const set = lookupTyped(ctx.db, keyOf(argv[1]!), 'set');
  if (set === undefined || v === 0n) return [];
  const size = set.size;
  const unique = v > 0n;
  const abs = unique ? v : -v;
  if (!unique || abs === 1n) {
    // With repetition: each one drawn from the whole set.
    const out: Reply[] = [];
    for (let n = repeatedDraws(abs); n > 0; n--) out.push(keyBytes(set.random()));
    return out;
  }
  if (abs >= BigInt(size)) return set.list().map(keyBytes);
  return set.randomDistinct(Number(abs)).map(keyBytes);
}
