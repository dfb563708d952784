// SINTER / SUNION / SDIFF, their STORE forms and SINTERCARD (t_set.c of Redis 7.0). Missing keys
// are empty sets; any source of another type is WRONGTYPE (checked for every key, in order,
// before any work); a STORE form overwrites its destination whatever its type (and drops its
// TTL), or deletes it when the result is empty. The STORE forms are logged as themselves: their
// result is a pure function of the data, so replaying them gives the same sets.
import { NOTIFY_GENERIC, NOTIFY_SET } from './keyspace-events.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { SetValue } from '../engine/set.js';
import { fail, type Reply, SetReply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, parseInt64 } from './args.js';
import type { Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';

/** set-max-intset-entries: how many integers a set may hold as an intset (SetValue.add). */
export function intsetLimit(ctx: Context): number {
  return ctx.instance.config.getNumber('set-max-intset-entries');
}

function lookupSets(ctx: Context, keys: Buffer[]): Array<SetValue | undefined> {
  return keys.map((k) => lookupTyped(ctx.db, keyOf(k), 'set'));
}

/** What a STORE form does with its result: store it, or delete the destination when empty. */
function store(ctx: Context, dstArg: Buffer, result: SetValue, event: string): Reply {
  const dst = keyOf(dstArg);
  if (result.size > 0) {
    ctx.db.set(dst, result);
    ctx.modified(dst);
    ctx.notify(NOTIFY_SET, event, dst);
    return result.size;
  }
  if (ctx.db.delete(dst)) {
    ctx.modified(dst);
    ctx.notify(NOTIFY_GENERIC, 'del', dst);
  }
  return 0;
}

/**
 * The intersection's members in the order Redis finds them: those of the smallest set (the
 * first of equal sizes), in its order, that every other set holds; at most `limit` (0: all).
 */
function intersect(sets: SetValue[], limit = 0): string[] {
  const bySize = sets.slice().sort((a, b) => a.size - b.size);
  const first = bySize[0]!;
  const out: string[] = [];
  for (const member of first.list()) {
    let inAll = true;
    for (let j = 1; j < bySize.length; j++) {
      const other = bySize[j]!;
      if (other !== first && !other.has(member)) {
        inAll = false;
        break;
      }
    }
    if (!inAll) continue;
    out.push(member);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

function sinterGeneric(ctx: Context, keys: Buffer[], dst: Buffer | null): Reply {
  const found = lookupSets(ctx, keys);
  const sets = found.filter((s): s is SetValue => s !== undefined);
  const members = sets.length < found.length ? [] : intersect(sets);
  if (dst !== null) return store(ctx, dst, SetValue.of(members, intsetLimit(ctx)), 'sinterstore');
  return new SetReply(members.map(keyBytes));
}

type Op = 'union' | 'diff';

/** SUNION / SDIFF into a fresh set (an intset while its members allow, as Redis's result set). */
function combine(ctx: Context, keys: Buffer[], op: Op): SetValue {
  const sets = lookupSets(ctx, keys);
  const result = new SetValue();
  const max = intsetLimit(ctx);
  if (op === 'union') {
    for (const set of sets) if (set !== undefined) for (const m of set.members) result.add(m, max);
    return result;
  }
  const first = sets[0];
  // A later key naming the first set again makes the difference empty.
  if (first === undefined || sets.some((s, i) => i > 0 && s === first)) return result;
  for (const m of first.members) {
    if (!sets.some((s, i) => i > 0 && s !== undefined && s.has(m))) result.add(m, max);
  }
  return result;
}

function combineCommand(op: Op, storing: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    if (storing) return store(ctx, argv[1]!, combine(ctx, argv.slice(2), op), op === 'union' ? 'sunionstore' : 'sdiffstore');
    return new SetReply(combine(ctx, argv.slice(1), op).list().map(keyBytes));
  };
}

export const sunion = combineCommand('union', false);
export const sunionstore = combineCommand('union', true);
export const sdiff = combineCommand('diff', false);
export const sdiffstore = combineCommand('diff', true);

export function sinter(ctx: Context, argv: Buffer[]): Reply {
  return sinterGeneric(ctx, argv.slice(1), null);
}

export function sinterstore(ctx: Context, argv: Buffer[]): Reply {
  return sinterGeneric(ctx, argv.slice(2), argv[1]!);
}

/** SINTERCARD numkeys key [key ...] [LIMIT limit] */
export function sintercard(ctx: Context, argv: Buffer[]): Reply {
  // getRangeLongFromObjectOrReply(1, LONG_MAX, msg): text or a number below 1 both get msg.
  const numkeys = parseInt64(argv[1]!);
  if (numkeys === undefined || numkeys < 1n) fail(Errors.numkeysNotPositive);
  if (numkeys > BigInt(argv.length - 2)) fail(Errors.numkeysTooMany);
  const keysEnd = 2 + Number(numkeys);
  let limit = 0n;
  for (let i = keysEnd; i < argv.length; i++) {
    if (isKeyword(argv[i], 'limit') && i + 1 < argv.length) {
      limit = int64Arg(argv[++i]!, Errors.sintercardLimitNegative);
      if (limit < 0n) fail(Errors.sintercardLimitNegative);
    } else {
      fail(Errors.syntax);
    }
  }
  const found = lookupSets(ctx, argv.slice(2, keysEnd));
  if (found.some((s) => s === undefined)) return 0;
  const cap = limit > BigInt(Number.MAX_SAFE_INTEGER) ? 0 : Number(limit);
  return intersect(found as SetValue[], cap).length;
}

/** SINTERCARD's key positions (numkeys at 1), for COMMAND GETKEYS. */
export function sintercardKeys(argv: Buffer[]): number[] {
  const n = int64Arg(argv[1]!, Errors.getkeysInvalid);
  if (n < 1n || 1n + n >= BigInt(argv.length)) return [];
  return Array.from({ length: Number(n) }, (_, i) => 2 + i);
}
