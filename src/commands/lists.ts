// List commands (t_list.c of Redis 7.0). Blocking pops park on Instance.block, the machinery
// XREAD uses: clients are served FIFO per key from the key that became ready, and a served pop
// is propagated as the plain command it amounts to (BLPOP as LPOP, BLMOVE as LMOVE, BLMPOP as
// LPOP key count), so replaying the AOF never blocks and never depends on timing.
import { NOTIFY_GENERIC, NOTIFY_LIST } from './keyspace-events.js';
import { Buffer } from 'node:buffer';
import { ListValue } from '../engine/list.js';
import { keyOf } from '../engine/keyspace.js';
import { ErrorReply, fail, NULL_ARRAY, OK, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, lower } from './args.js';
import { secondsTimeoutMs } from './block-timeout.js';
import type { RequestArgs } from '../resp/request-args.js';
import { command, type CommandSpec, type Context, inPlaceCommand } from './types.js';
import { lookupTyped } from './typed-lookup.js';

type End = 'left' | 'right';

const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A C `long` argument (getLongFromObjectOrReply), clamped to the safe JS range: every list is
 * far shorter than 2^53, so clamping never changes what an index or a count selects.
 */
function longArg(arg: Buffer, message: string = Errors.notInteger): number {
  const v = int64Arg(arg, message);
  return Number(v > SAFE_MAX ? SAFE_MAX : v < -SAFE_MAX ? -SAFE_MAX : v);
}

/** getPositiveLongFromObjectOrReply: an integer >= 0, else `message`. */
function positiveArg(arg: Buffer, message: string = Errors.notPositive): number {
  const v = longArg(arg, message);
  if (v < 0) fail(message);
  return v;
}

/** getRangeLongFromObjectOrReply(1, LONG_MAX): numkeys and COUNT of LMPOP/BLMPOP. */
function atLeastOneArg(arg: Buffer, message: string): number {
  const v = longArg(arg, message);
  if (v < 1) fail(message);
  return v;
}

/** LEFT or RIGHT, as getListPositionFromObjectOrReply. */
function endArg(arg: Buffer): End {
  const s = lower(arg);
  if (s !== 'left' && s !== 'right') fail(Errors.syntax);
  return s;
}

/** Records a change of `count` elements (Redis counts server.dirty per element). */
function changed(ctx: Context, key: string, count: number): void {
  ctx.modified(key);
  if (count > 1) ctx.addDirty(count - 1);
}

/** A new list whose nodes follow list-max-listpack-size as it is now (Redis's createQuicklistObject). */
export function newList(ctx: Context): ListValue {
  return new ListValue(ctx.instance.config.getNumber('list-max-listpack-size'));
}

/** Deletes the key when its list became empty, as Redis never keeps an empty list. */
function dropIfEmpty(ctx: Context, key: string, list: ListValue): void {
  if (list.length === 0) ctx.db.delete(key);
}

/** The command's list event, then "del" when it emptied the list (the key is gone by then). */
function notifyList(ctx: Context, event: string, key: string, list: ListValue): void {
  ctx.notify(NOTIFY_LIST, event, key);
  if (list.length === 0) ctx.notify(NOTIFY_GENERIC, 'del', key);
}

const popEvent = (end: End): string => (end === 'left' ? 'lpop' : 'rpop');

function pop(list: ListValue, end: End): Buffer {
  return (end === 'left' ? list.popHead() : list.popTail())!;
}

function push(list: ListValue, end: End, value: Buffer): void {
  if (end === 'left') list.pushHead(value);
  else list.pushTail(value);
}

/** Pops up to `count` elements from one end, in pop order. */
function popMany(list: ListValue, end: End, count: number): Buffer[] {
  const n = Math.min(count, list.length);
  const out = end === 'left' ? list.range(0, n - 1) : list.range(list.length - n, list.length - 1, true);
  if (end === 'left') list.trimHead(n);
  else list.trimTail(n);
  return out;
}

/** Indexes normalised as Redis's addListRangeReply / LTRIM: [start, end] or null when empty. */
function clampRange(start: number, end: number, length: number): [number, number] | null {
  if (start < 0) start += length;
  if (end < 0) end += length;
  if (start < 0) start = 0;
  if (start > end || start >= length) return null;
  return [start, Math.min(end, length - 1)];
}

// --- push ------------------------------------------------------------------------------------

function pushGeneric(end: End, onlyExisting: boolean) {
  return (ctx: Context, args: RequestArgs): Reply => {
    const key = args.key(1);
    let list = lookupTyped(ctx.db, key, 'list');
    if (list === undefined) {
      if (onlyExisting) return 0;
      list = newList(ctx);
      ctx.db.set(key, list);
    }
    for (let i = 2; i < args.length; i++) push(list, end, args.copy(i));
    if (args.length > 3) list.packEnds();
    changed(ctx, key, args.length - 2);
    ctx.notify(NOTIFY_LIST, end === 'left' ? 'lpush' : 'rpush', key);
    return list.length;
  };
}

function linsert(ctx: Context, argv: Buffer[]): Reply {
  const where = lower(argv[2]!);
  if (where !== 'before' && where !== 'after') fail(Errors.syntax);
  const key = keyOf(argv[1]!);
  const list = lookupTyped(ctx.db, key, 'list');
  if (list === undefined) return 0;
  const pivot = list.matches(argv[3]!, false).next();
  if (pivot.done === true) return -1;
  list.insertAt(where === 'before' ? pivot.value : pivot.value + 1, Buffer.from(argv[4]!));
  changed(ctx, key, 1);
  ctx.notify(NOTIFY_LIST, 'linsert', key);
  return list.length;
}

// --- read ------------------------------------------------------------------------------------

function llen(ctx: Context, args: RequestArgs): Reply {
  return lookupTyped(ctx.db, args.key(1), 'list')?.length ?? 0;
}

function lindex(ctx: Context, argv: Buffer[]): Reply {
  const list = lookupTyped(ctx.db, keyOf(argv[1]!), 'list');
  if (list === undefined) return null;
  return list.at(longArg(argv[2]!)) ?? null;
}

function lrange(ctx: Context, argv: Buffer[]): Reply {
  const start = longArg(argv[2]!);
  const end = longArg(argv[3]!);
  const list = lookupTyped(ctx.db, keyOf(argv[1]!), 'list');
  if (list === undefined) return [];
  const range = clampRange(start, end, list.length);
  return range === null ? [] : list.range(range[0], range[1]);
}

const RANK_ZERO =
  Errors.rankZero;

function lpos(ctx: Context, argv: Buffer[]): Reply {
  let rank = 1;
  let count = -1; // -1: no COUNT option, so a single index (or nil) is replied
  let maxlen = 0;
  let rankOverflow = false;
  for (let j = 3; j < argv.length; j++) {
    const opt = lower(argv[j]!);
    const more = argv.length - 1 - j;
    if (opt === 'rank' && more > 0) {
      const r = int64Arg(argv[++j]!);
      if (r === 0n) fail(RANK_ZERO);
      // LONG_MIN cannot be negated in C: it stays negative, so every match passes the rank
      // test and COUNT's "matches - rank + 1" overflows and never stops the scan.
      rankOverflow = r === -9223372036854775808n;
      rank = rankOverflow ? -1 : longArg(argv[j]!);
    } else if (opt === 'count' && more > 0) {
      count = positiveArg(argv[++j]!, Errors.lposCountNegative);
    } else if (opt === 'maxlen' && more > 0) {
      maxlen = positiveArg(argv[++j]!, Errors.lposMaxlenNegative);
    } else {
      fail(Errors.syntax);
    }
  }
  const fromTail = rank < 0;
  if (fromTail) rank = -rank;
  const list = lookupTyped(ctx.db, keyOf(argv[1]!), 'list');
  if (list === undefined) return count === -1 ? null : [];
  const found: number[] = [];
  let matches = 0;
  for (const index of list.matches(argv[2]!, fromTail, maxlen)) {
    matches++;
    if (matches >= rank) {
      found.push(index);
      if (count === -1 || (count !== 0 && !rankOverflow && matches - rank + 1 >= count)) break;
    }
  }
  if (count !== -1) return found;
  return found.length > 0 ? found[0]! : null;
}

// --- change ----------------------------------------------------------------------------------

function lset(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const list = lookupTyped(ctx.db, key, 'list');
  if (list === undefined) fail(Errors.noSuchKey);
  if (!list.set(longArg(argv[2]!), Buffer.from(argv[3]!))) fail(Errors.indexOutOfRange);
  changed(ctx, key, 1);
  ctx.notify(NOTIFY_LIST, 'lset', key);
  return OK;
}

function lrem(ctx: Context, argv: Buffer[]): Reply {
  const toRemove = longArg(argv[2]!);
  const key = keyOf(argv[1]!);
  const list = lookupTyped(ctx.db, key, 'list');
  if (list === undefined) return 0;
  const removed = list.removeMatching(argv[3]!, Math.abs(toRemove), toRemove < 0);
  dropIfEmpty(ctx, key, list);
  if (removed > 0) {
    changed(ctx, key, removed);
    notifyList(ctx, 'lrem', key, list);
  }
  return removed;
}

function ltrim(ctx: Context, argv: Buffer[]): Reply {
  const start = longArg(argv[2]!);
  const end = longArg(argv[3]!);
  const key = keyOf(argv[1]!);
  const list = lookupTyped(ctx.db, key, 'list');
  if (list === undefined) return OK;
  const length = list.length;
  const range = clampRange(start, end, length);
  const fromHead = range === null ? length : range[0];
  const fromTail = range === null ? 0 : length - range[1] - 1;
  list.trimHead(fromHead);
  list.trimTail(fromTail);
  dropIfEmpty(ctx, key, list);
  // Redis signals the key even when nothing was trimmed (WATCH fires) but counts no change,
  // so such an LTRIM is not propagated.
  if (fromHead + fromTail > 0) changed(ctx, key, fromHead + fromTail);
  else ctx.instance.keyspace.signalModified(ctx.db.index, key);
  notifyList(ctx, 'ltrim', key, list);
  return OK;
}

// --- pop -------------------------------------------------------------------------------------

function popGeneric(end: End) {
  return (ctx: Context, args: RequestArgs): Reply => {
    const hasCount = args.length === 3;
    if (args.length > 3) fail(Errors.wrongArity(end === 'left' ? 'lpop' : 'rpop'));
    const count = hasCount ? positiveArg(args.buffer(2)) : 0;
    const key = args.key(1);
    const list = lookupTyped(ctx.db, key, 'list');
    if (list === undefined) return hasCount ? NULL_ARRAY : null;
    if (hasCount && count === 0) return [];
    const popped = hasCount ? popMany(list, end, count) : [pop(list, end)];
    dropIfEmpty(ctx, key, list);
    changed(ctx, key, popped.length);
    notifyList(ctx, popEvent(end), key, list);
    return hasCount ? popped : popped[0]!;
  };
}

/**
 * Pops up to `count` from the first non-empty list of `keys` as [key, elements]; undefined when
 * every list is missing. Logged as LPOP/RPOP key n, as Redis rewrites LMPOP and BLMPOP.
 */
function mpopFrom(ctx: Context, keys: Buffer[], end: End, count: number): Reply | undefined {
  for (const keyArg of keys) {
    const key = keyOf(keyArg);
    const list = lookupTyped(ctx.db, key, 'list');
    if (list === undefined || list.length === 0) continue;
    return popRangeWithKey(ctx, keyArg, list, end, count);
  }
  return undefined;
}

function popRangeWithKey(ctx: Context, keyArg: Buffer, list: ListValue, end: End, count: number): Reply {
  const key = keyOf(keyArg);
  const popped = popMany(list, end, count);
  ctx.propagate([end === 'left' ? 'LPOP' : 'RPOP', keyArg, String(popped.length)]);
  dropIfEmpty(ctx, key, list);
  changed(ctx, key, popped.length);
  notifyList(ctx, popEvent(end), key, list);
  return [keyArg, popped];
}

interface MpopArgs {
  keys: Buffer[];
  end: End;
  count: number;
}

/** LMPOP numkeys key... LEFT|RIGHT [COUNT n], from the numkeys argument at `at`. */
function parseMpop(argv: Buffer[], at: number): MpopArgs {
  const numkeys = atLeastOneArg(argv[at]!, Errors.numkeysNotPositive);
  const whereAt = at + numkeys + 1;
  if (whereAt >= argv.length) fail(Errors.syntax);
  const end = endArg(argv[whereAt]!);
  let count = -1;
  for (let j = whereAt + 1; j < argv.length; j++) {
    if (count === -1 && isKeyword(argv[j], 'count') && j < argv.length - 1) {
      count = atLeastOneArg(argv[++j]!, Errors.countNotPositive);
    } else {
      fail(Errors.syntax);
    }
  }
  return { keys: argv.slice(at + 1, whereAt), end, count: count === -1 ? 1 : count };
}

function lmpop(ctx: Context, argv: Buffer[]): Reply {
  const { keys, end, count } = parseMpop(argv, 1);
  return mpopFrom(ctx, keys, end, count) ?? NULL_ARRAY;
}

// --- move ------------------------------------------------------------------------------------

/**
 * Pops from `src` and pushes onto `dst` (LMOVE's core), after checking the destination's type.
 * Returns the moved element. The destination is signalled first, as Redis does.
 */
function move(ctx: Context, src: string, list: ListValue, dstArg: Buffer, from: End, to: End): Buffer {
  const dst = keyOf(dstArg);
  let target = lookupTyped(ctx.db, dst, 'list');
  const value = pop(list, from);
  if (target === undefined) {
    target = newList(ctx);
    ctx.db.set(dst, target);
  }
  push(target, to, value);
  ctx.modified(dst);
  ctx.notify(NOTIFY_LIST, to === 'left' ? 'lpush' : 'rpush', dst);
  if (list.length === 0) ctx.db.delete(src);
  ctx.modified(src);
  notifyList(ctx, popEvent(from), src, list);
  return value;
}

function lmoveGeneric(ctx: Context, argv: Buffer[], from: End, to: End): Reply {
  const src = keyOf(argv[1]!);
  const list = lookupTyped(ctx.db, src, 'list');
  if (list === undefined) return null;
  return move(ctx, src, list, argv[2]!, from, to);
}

function lmove(ctx: Context, argv: Buffer[]): Reply {
  return lmoveGeneric(ctx, argv, endArg(argv[3]!), endArg(argv[4]!));
}

function rpoplpush(ctx: Context, argv: Buffer[]): Reply {
  return lmoveGeneric(ctx, argv, 'right', 'left');
}

// --- blocking --------------------------------------------------------------------------------

/**
 * BLPOP/BRPOP (count undefined: [key, element]) and BLMPOP (count: [key, elements]). The first
 * non-empty list is popped at once; else the client blocks on every key and is served from
 * whichever becomes ready first.
 */
function blockingPop(ctx: Context, keys: Buffer[], end: End, timeoutArg: Buffer, count: number | undefined): Reply | Promise<Reply> {
  const timeout = secondsTimeoutMs(timeoutArg);
  const serve = (c: Context, keyArg: Buffer, list: ListValue): Reply => {
    if (count !== undefined) return popRangeWithKey(c, keyArg, list, end, count);
    const key = keyOf(keyArg);
    c.propagate([end === 'left' ? 'LPOP' : 'RPOP', keyArg]);
    const value = pop(list, end);
    dropIfEmpty(c, key, list);
    changed(c, key, 1);
    notifyList(c, popEvent(end), key, list);
    return [keyArg, value];
  };
  for (const keyArg of keys) {
    const list = lookupTyped(ctx.db, keyOf(keyArg), 'list');
    if (list !== undefined && list.length > 0) return serve(ctx, keyArg, list);
  }
  if (ctx.noBlock) return NULL_ARRAY;
  const byKey = new Map(keys.map((k) => [keyOf(k), k]));
  return ctx.block([...byKey.keys()], timeout, (retryCtx, readyKey) => {
    const list = retryCtx.db.get(readyKey);
    if (!(list instanceof ListValue) || list.length === 0) return undefined;
    return serve(retryCtx, byKey.get(readyKey)!, list);
  }, NULL_ARRAY);
}

function bpopGeneric(end: End) {
  return (ctx: Context, argv: Buffer[]): Reply | Promise<Reply> =>
    blockingPop(ctx, argv.slice(1, -1), end, argv[argv.length - 1]!, undefined);
}

function blmpop(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const { keys, end, count } = parseMpop(argv, 2);
  return blockingPop(ctx, keys, end, argv[1]!, count);
}

/** BLMOVE/BRPOPLPUSH: an LMOVE at once, else blocks on the source; logged as LMOVE/RPOPLPUSH. */
function blmoveGeneric(ctx: Context, argv: Buffer[], from: End, to: End, timeoutArg: Buffer, asRpoplpush: boolean): Reply | Promise<Reply> {
  const timeout = secondsTimeoutMs(timeoutArg);
  const src = keyOf(argv[1]!);
  const dstArg = argv[2]!;
  const list = lookupTyped(ctx.db, src, 'list');
  if (list !== undefined) {
    const value = move(ctx, src, list, dstArg, from, to);
    // Logged with the caller's own LEFT/RIGHT words, as Redis rewrites BLMOVE's argv.
    ctx.propagate(asRpoplpush ? ['RPOPLPUSH', argv[1]!, dstArg] : ['LMOVE', argv[1]!, dstArg, argv[3]!, argv[4]!]);
    return value;
  }
  if (ctx.noBlock) return null;
  return ctx.block([src], timeout, (retryCtx) => {
    const ready = retryCtx.db.get(src);
    if (!(ready instanceof ListValue) || ready.length === 0) return undefined;
    // A destination of another type fails the blocked client without popping anything.
    const target = retryCtx.db.get(keyOf(dstArg));
    if (target !== undefined && !(target instanceof ListValue)) return new ErrorReply(Errors.wrongType);
    retryCtx.propagate(asRpoplpush ? ['RPOPLPUSH', argv[1]!, dstArg] : ['LMOVE', argv[1]!, dstArg, from, to]);
    return move(retryCtx, src, ready, dstArg, from, to);
    // A timed-out list client gets a null array, even BLMOVE (replyToBlockedClientTimedOut).
  }, NULL_ARRAY);
}

function blmove(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const from = endArg(argv[3]!);
  const to = endArg(argv[4]!);
  return blmoveGeneric(ctx, argv, from, to, argv[5]!, false);
}

function brpoplpush(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  return blmoveGeneric(ctx, argv, 'right', 'left', argv[3]!, true);
}

// --- table -----------------------------------------------------------------------------------

/** Key positions of LMPOP (numkeys at 1) and BLMPOP (numkeys at 2), for COMMAND GETKEYS. */
function mpopKeys(at: number) {
  return (argv: Buffer[]): number[] => {
    const n = int64Arg(argv[at]!, Errors.getkeysInvalid);
    if (n < 1n || BigInt(at) + n >= BigInt(argv.length)) return [];
    return Array.from({ length: Number(n) }, (_, i) => at + 1 + i);
  };
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
const TWO_KEYS = { first: 1, last: 2, step: 1 };
const KEYS_BEFORE_TIMEOUT = { first: 1, last: -2, step: 1 };
// ACL categories in Redis's order (read/write, then the family, then fast/slow), as COMMAND INFO lists them.
const cat = (access: string, speed: string, ...more: string[]) => ({ categories: [access, 'list', speed, ...more] });
const BLOCKING = cat('write', 'slow', 'blocking');

export const commands: CommandSpec[] = [
  inPlaceCommand('lpush', -3, ['write', 'denyoom', 'fast'], ONE_KEY, pushGeneric('left', false), cat('write', 'fast')),
  inPlaceCommand('rpush', -3, ['write', 'denyoom', 'fast'], ONE_KEY, pushGeneric('right', false), cat('write', 'fast')),
  inPlaceCommand('lpushx', -3, ['write', 'denyoom', 'fast'], ONE_KEY, pushGeneric('left', true), cat('write', 'fast')),
  inPlaceCommand('rpushx', -3, ['write', 'denyoom', 'fast'], ONE_KEY, pushGeneric('right', true), cat('write', 'fast')),
  inPlaceCommand('lpop', -2, ['write', 'fast'], ONE_KEY, popGeneric('left'), cat('write', 'fast')),
  inPlaceCommand('rpop', -2, ['write', 'fast'], ONE_KEY, popGeneric('right'), cat('write', 'fast')),
  inPlaceCommand('llen', 2, ['readonly', 'fast'], ONE_KEY, llen, cat('read', 'fast')),
  command('lrange', 4, ['readonly'], ONE_KEY, lrange, cat('read', 'slow')),
  command('lindex', 3, ['readonly'], ONE_KEY, lindex, cat('read', 'slow')),
  command('lset', 4, ['write', 'denyoom'], ONE_KEY, lset, cat('write', 'slow')),
  command('linsert', 5, ['write', 'denyoom'], ONE_KEY, linsert, cat('write', 'slow')),
  command('lrem', 4, ['write'], ONE_KEY, lrem, cat('write', 'slow')),
  command('ltrim', 4, ['write'], ONE_KEY, ltrim, cat('write', 'slow')),
  command('lpos', -3, ['readonly'], ONE_KEY, lpos, cat('read', 'slow')),
  command('lmove', 5, ['write', 'denyoom'], TWO_KEYS, lmove, cat('write', 'slow')),
  command('rpoplpush', 3, ['write', 'denyoom'], TWO_KEYS, rpoplpush, cat('write', 'slow')),
  command('lmpop', -4, ['write', 'movablekeys'], null, lmpop, { keys: mpopKeys(1), ...cat('write', 'slow') }),
  command('blpop', -3, ['write', 'noscript', 'blocking'], KEYS_BEFORE_TIMEOUT, bpopGeneric('left'), BLOCKING),
  command('brpop', -3, ['write', 'noscript', 'blocking'], KEYS_BEFORE_TIMEOUT, bpopGeneric('right'), BLOCKING),
  command('blmove', 6, ['write', 'denyoom', 'noscript', 'blocking'], TWO_KEYS, blmove, BLOCKING),
  command('brpoplpush', 4, ['write', 'denyoom', 'noscript', 'blocking'], TWO_KEYS, brpoplpush, BLOCKING),
  command('blmpop', -5, ['write', 'blocking', 'movablekeys'], null, blmpop, { keys: mpopKeys(2), ...BLOCKING }),
];
