// Sorted-set commands (t_zset.c, Redis 7.0): ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE, the
// ZRANGE family, ZRANK/ZREVRANK, ZCOUNT/ZLEXCOUNT, ZPOPMIN/ZPOPMAX and their blocking forms,
// ZREMRANGEBY*, ZRANGESTORE, ZMPOP/BZMPOP, ZSCAN (the set algebra is in zset-algebra.ts,
// ZRANDMEMBER in zset-random.ts). Arguments are validated in Redis's order, so the same bad command
// gets the same error (a syntax error before a bad float before WRONGTYPE ...).
import { NOTIFY_GENERIC, NOTIFY_ZSET } from './keyspace-events.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { type ScoreEntry, SortedSetValue } from '../engine/sorted-set.js';
import { DoubleReply, fail, NULL_ARRAY, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, lower, parseInt64 } from './args.js';
import { parseCursor } from './keys.js';
import { secondsTimeoutMs } from './block-timeout.js';
import { removeMembersCommand } from './members.js';
import { type LexBound, parseLexRange, parseScoreRange, scoreArg } from './zset-args.js';
import { zscanReply } from './zset-scan.js';
import { numkeysKeys, zdiff, zdiffstore, zinter, zintercard, zinterstore, zunion, zunionstore } from './zset-algebra.js';
import { zrandmember } from './zset-random.js';
import { entriesReply, storeSortedSet, zsetLimits } from './zset-results.js';
import { command, type CommandSpec, type Context, inPlaceCommand } from './types.js';
import type { RequestArgs } from '../resp/request-args.js';
import { lookupTyped } from './typed-lookup.js';

/** A long argument as getLongFromObjectOrReply reads it, as a JS number (order is all we need). */
function longArg(arg: Buffer): number {
  return Number(int64Arg(arg));
}

// --- ZADD / ZINCRBY ------------------------------------------------------------------------------

/**
 * ZADD/ZINCRBY on `argv` (also GEOADD's rewritten ZADD, commands/geo.ts): the reply, and
 * whether anything changed (what decides whether the command is propagated).
 */
export function zaddGeneric(ctx: Context, argv: Buffer[], incrCommand: boolean): { reply: Reply; changed: boolean } {
  let nx = false;
  let xx = false;
  let gt = false;
  let lt = false;
  let ch = false;
  let incr = incrCommand;
  let i = 2;
  for (; i < argv.length; i++) {
    const opt = lower(argv[i]!);
    if (opt === 'nx') nx = true;
    else if (opt === 'xx') xx = true;
    else if (opt === 'gt') gt = true;
    else if (opt === 'lt') lt = true;
    else if (opt === 'ch') ch = true;
    else if (opt === 'incr') incr = true;
    else break;
  }
  const pairs = argv.length - i;
  if (pairs % 2 !== 0 || pairs === 0) fail(Errors.syntax);
  if (nx && xx) fail(Errors.zaddXxNx);
  if ((gt && nx) || (lt && nx) || (gt && lt)) fail(Errors.zaddGtLtNx);
  if (incr && pairs > 2) fail(Errors.zaddIncrPairs);
  const scores: number[] = [];
  for (let j = i; j < argv.length; j += 2) scores.push(scoreArg(argv[j]!));

  const key = keyOf(argv[1]!);
  let zset = lookupTyped(ctx.db, key, 'zset');
  let added = 0;
  let updated = 0;
  let processed = 0;
  let lastScore = 0;
  if (zset === undefined && !xx) {
    zset = new SortedSetValue();
    ctx.db.set(key, zset);
  }
  if (zset !== undefined) {
    const [maxEntries, maxValue] = zsetLimits(ctx);
    for (let j = 0; j < scores.length; j++) {
      const member = keyOf(argv[i + 1 + j * 2]!);
      let score = scores[j]!;
      const current = zset.score(member);
      if (current === undefined) {
        if (xx) continue;
        zset.set(member, score, maxEntries, maxValue);
        added++;
      } else {
        if (nx) continue;
        if (incr) {
          score += current;
          if (Number.isNaN(score)) fail(Errors.scoreNan);
        }
        if ((lt && score >= current) || (gt && score <= current)) continue;
        if (score !== current) {
          zset.set(member, score, maxEntries, maxValue);
          updated++;
        }
      }
      processed++;
      lastScore = score;
    }
  }
  const changed = added + updated > 0;
  if (changed) {
    ctx.modified(key);
    ctx.notify(NOTIFY_ZSET, incr ? 'zincr' : 'zadd', key);
  }
  if (incr) return { reply: processed > 0 ? new DoubleReply(lastScore) : null, changed };
  return { reply: ch ? added + updated : added, changed };
}

// --- removal -----------------------------------------------------------------------------------

/** Deletes the key when its last member went, as Redis never keeps an empty sorted set. */
function dropIfEmpty(ctx: Context, key: string, zset: SortedSetValue): void {
  if (zset.size === 0) ctx.db.delete(key);
}

const zrem = removeMembersCommand('zset');

/** [start, end) ranks of a Redis rank range (negative from the end), clamped; empty when start >= end. */
function rankWindow(size: number, startArg: number, endArg: number): [number, number] {
  let start = startArg < 0 ? size + startArg : startArg;
  let end = endArg < 0 ? size + endArg : endArg;
  if (start < 0) start = 0;
  if (start > end || start >= size) return [0, 0];
  if (end >= size) end = size - 1;
  return [start, end + 1];
}

/** [start, end) ranks of the members with scores in the range. */
function scoreWindow(zset: SortedSetValue, minArg: Buffer, maxArg: Buffer): [number, number] {
  const r = parseScoreRange(minArg, maxArg);
  return [zset.countBelowScore(r.min, r.minExclusive), zset.countBelowScore(r.max, !r.maxExclusive)];
}

function lexStart(zset: SortedSetValue, bound: LexBound): number {
  if (bound === '-') return 0;
  if (bound === '+') return zset.size;
  return zset.countBelowMember(bound.member, bound.exclusive);
}

function lexEnd(zset: SortedSetValue, bound: LexBound): number {
  if (bound === '-') return 0;
  if (bound === '+') return zset.size;
  return zset.countBelowMember(bound.member, !bound.exclusive);
}

type RangeKind = 'rank' | 'score' | 'lex';

/**
 * ZREMRANGEBYRANK/SCORE/LEX: the range is parsed before the key is looked up, as
 * zremrangeGenericCommand does.
 */
function zremrange(kind: RangeKind) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    let window: (z: SortedSetValue) => [number, number];
    if (kind === 'rank') {
      const start = longArg(argv[2]!);
      const end = longArg(argv[3]!);
      window = (z) => rankWindow(z.size, start, end);
    } else if (kind === 'score') {
      parseScoreRange(argv[2]!, argv[3]!);
      window = (z) => scoreWindow(z, argv[2]!, argv[3]!);
    } else {
      const range = parseLexRange(argv[2]!, argv[3]!);
      window = (z) => [lexStart(z, range.min), lexEnd(z, range.max)];
    }
    const key = keyOf(argv[1]!);
    const zset = lookupTyped(ctx.db, key, 'zset');
    if (zset === undefined) return 0;
    const [start, end] = window(zset);
    if (start >= end) return 0;
    const removed = zset.deleteRange(start, end).length;
    dropIfEmpty(ctx, key, zset);
    ctx.modified(key);
    ctx.notify(NOTIFY_ZSET, `zremrangeby${kind}`, key);
    if (zset.size === 0) ctx.notify(NOTIFY_GENERIC, 'del', key);
    return removed;
  };
}

// --- reads -------------------------------------------------------------------------------------

function zcard(ctx: Context, args: RequestArgs): Reply {
  return lookupTyped(ctx.db, args.key(1), 'zset')?.size ?? 0;
}

function zscore(ctx: Context, args: RequestArgs): Reply {
  const score = lookupTyped(ctx.db, args.key(1), 'zset')?.score(args.key(2));
  return score === undefined ? null : new DoubleReply(score);
}

function zmscore(ctx: Context, argv: Buffer[]): Reply {
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  const out: Reply[] = [];
  for (let i = 2; i < argv.length; i++) {
    const score = zset?.score(keyOf(argv[i]!));
    out.push(score === undefined ? null : new DoubleReply(score));
  }
  return out;
}

function zrank(reverse: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
    const rank = zset?.rank(keyOf(argv[2]!));
    if (zset === undefined || rank === undefined) return null;
    return reverse ? zset.size - 1 - rank : rank;
  };
}

function zcount(ctx: Context, argv: Buffer[]): Reply {
  parseScoreRange(argv[2]!, argv[3]!);
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  if (zset === undefined) return 0;
  const [start, end] = scoreWindow(zset, argv[2]!, argv[3]!);
  return Math.max(0, end - start);
}

function zlexcount(ctx: Context, argv: Buffer[]): Reply {
  const range = parseLexRange(argv[2]!, argv[3]!);
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  if (zset === undefined) return 0;
  return Math.max(0, lexEnd(zset, range.max) - lexStart(zset, range.min));
}

interface RangeDefaults {
  kind: RangeKind | null;
  reverse: boolean | null;
}

/**
 * The ZRANGE family as zrangeGenericCommand: options first (a preset kind or direction turns
 * its keyword into a syntax error), then conflicts, then the range, then the key. ZRANGESTORE
 * (`store`: its source key at 2, no WITHSCORES) stores the range at argv[1] instead, in the
 * order the range is read, as Redis adds it: a rank range longer than
 * zset-max-listpack-entries starts as a skiplist, any other as a listpack.
 */
function zrangeGeneric(defaults: RangeDefaults, store = false) {
  const at = store ? 2 : 1;
  return (ctx: Context, argv: Buffer[]): Reply => {
    let kind = defaults.kind;
    let reverse = defaults.reverse;
    let withScores = false;
    let offset = 0;
    let limit = -1;
    for (let j = at + 3; j < argv.length; j++) {
      const left = argv.length - j - 1;
      if (!store && isKeyword(argv[j], 'withscores')) withScores = true;
      else if (isKeyword(argv[j], 'limit') && left >= 2) {
        offset = longArg(argv[j + 1]!);
        limit = longArg(argv[j + 2]!);
        j += 2;
      } else if (reverse === null && isKeyword(argv[j], 'rev')) reverse = true;
      else if (kind === null && isKeyword(argv[j], 'bylex')) kind = 'lex';
      else if (kind === null && isKeyword(argv[j], 'byscore')) kind = 'score';
      else fail(Errors.syntax);
    }
    reverse ??= false;
    kind ??= 'rank';
    if (limit !== -1 && kind === 'rank') {
      fail(Errors.zrangeLimit);
    }
    if (withScores && kind === 'lex') fail(Errors.zrangeWithScoresByLex);
    // BYSCORE/BYLEX with REV take the range as max, min.
    const [minArg, maxArg] = reverse && kind !== 'rank' ? [argv[at + 2]!, argv[at + 1]!] : [argv[at + 1]!, argv[at + 2]!];
    let window: (z: SortedSetValue) => [number, number];
    if (kind === 'rank') {
      const start = longArg(minArg);
      const end = longArg(maxArg);
      window = (z) => {
        const [s, e] = rankWindow(z.size, start, end);
        return reverse ? [z.size - e, z.size - s] : [s, e];
      };
    } else if (kind === 'score') {
      parseScoreRange(minArg, maxArg);
      window = (z) => scoreWindow(z, minArg, maxArg);
    } else {
      const range = parseLexRange(minArg, maxArg);
      window = (z) => [lexStart(z, range.min), lexEnd(z, range.max)];
    }
    const zset = lookupTyped(ctx.db, keyOf(argv[at]!), 'zset');
    if (zset === undefined) return store ? storeSortedSet(ctx, argv[1]!, [], 'incremental', 'zrangestore') : [];
    let [start, end] = window(zset);
    if (kind !== 'rank') {
      // Redis skips `offset` entries with `while (offset--)`: a negative offset skips them all
      // (ZRANGESTORE then stores nothing: the destination is deleted, the reply is 0).
      if (offset < 0) return store ? storeSortedSet(ctx, argv[1]!, [], 'incremental', 'zrangestore') : [];
      if (reverse) {
        end -= offset;
        if (limit >= 0) start = Math.max(start, end - limit);
      } else {
        start += offset;
        if (limit >= 0) end = Math.min(end, start + limit);
      }
    }
    const entries = zset.slice(start, end);
    if (reverse) entries.reverse();
    if (store) {
      const upfront = kind === 'rank' && entries.length > zsetLimits(ctx)[0];
      return storeSortedSet(ctx, argv[1]!, entries, upfront ? 'upfront' : 'incremental', 'zrangestore');
    }
    return entriesReply(ctx, entries, withScores);
  };
}

// --- pops --------------------------------------------------------------------------------------

/** Pops up to `count` lowest (or highest) entries, deleting the key when it empties. */
function popEntries(ctx: Context, key: string, zset: SortedSetValue, max: boolean, count: number): ScoreEntry[] {
  const n = Math.min(count, zset.size);
  const popped = max ? zset.deleteRange(zset.size - n, zset.size).reverse() : zset.deleteRange(0, n);
  dropIfEmpty(ctx, key, zset);
  ctx.modified(key);
  ctx.notify(NOTIFY_ZSET, max ? 'zpopmax' : 'zpopmin', key);
  if (zset.size === 0) ctx.notify(NOTIFY_GENERIC, 'del', key);
  return popped;
}

function zpop(max: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    if (argv.length > 3) fail(Errors.syntax);
    let count = -1;
    if (argv.length === 3) {
      // getPositiveLongFromObjectOrReply: one message for a bad and a negative count.
      const v = parseInt64(argv[2]!);
      if (v === undefined || v < 0n) fail(Errors.notPositive);
      count = Number(v);
    }
    const key = keyOf(argv[1]!);
    const zset = lookupTyped(ctx.db, key, 'zset');
    if (zset === undefined || count === 0) return [];
    const popped = popEntries(ctx, key, zset, max, count === -1 ? 1 : count);
    // RESP3 nests pairs only when COUNT was given.
    if (ctx.client.resp === 3 && count !== -1) return entriesReply(ctx, popped, true);
    const out: Reply[] = [];
    for (const e of popped) out.push(keyBytes(e.member), new DoubleReply(e.score));
    return out;
  };
}

/**
 * BZPOPMIN/BZPOPMAX: the first non-empty key is popped at once; otherwise the client blocks
 * (not inside MULTI, where it replies a null array) and is served from the key that became
 * ready. Logged as ZPOPMIN/ZPOPMAX, as Redis does.
 */
function bzpop(max: boolean) {
  const popName = max ? 'ZPOPMAX' : 'ZPOPMIN';
  const popFirst = (ctx: Context, keyArgs: Buffer[]): Reply | undefined => {
    for (const keyArg of keyArgs) {
      const key = keyOf(keyArg);
      const zset = lookupTyped(ctx.db, key, 'zset');
      if (zset === undefined || zset.size === 0) continue;
      const [e] = popEntries(ctx, key, zset, max, 1);
      ctx.propagate([popName, keyArg]);
      return [keyArg, keyBytes(e!.member), new DoubleReply(e!.score)];
    }
    return undefined;
  };
  return (ctx: Context, argv: Buffer[]): Reply | Promise<Reply> => {
    const timeoutMs = secondsTimeoutMs(argv[argv.length - 1]!);
    const keyArgs = argv.slice(1, -1);
    const served = popFirst(ctx, keyArgs);
    if (served !== undefined) return served;
    if (ctx.noBlock) return NULL_ARRAY;
    const byKey = new Map(keyArgs.map((k) => [keyOf(k), k]));
    return ctx.block(
      [...byKey.keys()],
      timeoutMs,
      // Served from the key that became ready, as serveClientsBlockedOnSortedSetKey; a key that
      // became another type keeps the client waiting, as Redis serves only zsets.
      (retryCtx, readyKey) => (retryCtx.db.get(readyKey) instanceof SortedSetValue ? popFirst(retryCtx, [byKey.get(readyKey)!]) : undefined),
      NULL_ARRAY,
    );
  };
}

interface MpopArgs {
  keys: Buffer[];
  max: boolean;
  count: number;
}

/** getRangeLongFromObjectOrReply(1, LONG_MAX, message): text and numbers below 1 get `message`. */
function atLeastOne(arg: Buffer, message: string): number {
  const v = parseInt64(arg);
  if (v === undefined || v < 1n) fail(message);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

/** ZMPOP numkeys key... MIN|MAX [COUNT n], from the numkeys argument at `at` (zmpopGenericCommand). */
function parseMpop(argv: Buffer[], at: number): MpopArgs {
  const numkeys = atLeastOne(argv[at]!, Errors.numkeysNotPositive);
  const whereAt = at + numkeys + 1;
  if (whereAt >= argv.length) fail(Errors.syntax);
  const where = lower(argv[whereAt]!);
  if (where !== 'min' && where !== 'max') fail(Errors.syntax);
  let count = -1;
  for (let j = whereAt + 1; j < argv.length; j++) {
    if (count === -1 && isKeyword(argv[j], 'count') && j < argv.length - 1) count = atLeastOne(argv[++j]!, Errors.countNotPositive);
    else fail(Errors.syntax);
  }
  return { keys: argv.slice(at + 1, whereAt), max: where === 'max', count: count === -1 ? 1 : count };
}

/**
 * Pops up to `count` entries of one sorted set as ZMPOP replies them, [key, [[member, score]...]]
 * in RESP2 and RESP3 alike, logged as ZPOPMIN/ZPOPMAX key n (n the number popped), as Redis
 * rewrites ZMPOP and BZMPOP. Redis counts one change per element.
 */
function mpopServe(ctx: Context, keyArg: Buffer, zset: SortedSetValue, max: boolean, count: number): Reply {
  const popped = popEntries(ctx, keyOf(keyArg), zset, max, count);
  if (popped.length > 1) ctx.addDirty(popped.length - 1);
  ctx.propagate([max ? 'ZPOPMAX' : 'ZPOPMIN', keyArg, String(popped.length)]);
  return [keyArg, popped.map((e) => [keyBytes(e.member), new DoubleReply(e.score)])];
}

/** ZMPOP: the first key that exists is popped (WRONGTYPE if it is no sorted set); else a null array. */
function zmpop(ctx: Context, argv: Buffer[]): Reply {
  const { keys, max, count } = parseMpop(argv, 1);
  for (const keyArg of keys) {
    const zset = lookupTyped(ctx.db, keyOf(keyArg), 'zset');
    if (zset !== undefined) return mpopServe(ctx, keyArg, zset, max, count);
  }
  return NULL_ARRAY;
}

/**
 * BZMPOP timeout numkeys key... MIN|MAX [COUNT n]: the arguments are checked before the timeout,
 * as Redis does; a ZMPOP at once when a key holds a sorted set, else the client blocks (a null
 * array inside MULTI or at the timeout) and is served from the key that became ready, as
 * serveClientsBlockedOnSortedSetKey does (a key that became another type keeps it waiting).
 */
function bzmpop(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const { keys, max, count } = parseMpop(argv, 2);
  const timeoutMs = secondsTimeoutMs(argv[1]!);
  for (const keyArg of keys) {
    const zset = lookupTyped(ctx.db, keyOf(keyArg), 'zset');
    if (zset !== undefined && zset.size > 0) return mpopServe(ctx, keyArg, zset, max, count);
  }
  if (ctx.noBlock) return NULL_ARRAY;
  const byKey = new Map(keys.map((k) => [keyOf(k), k]));
  return ctx.block(
    [...byKey.keys()],
    timeoutMs,
    (retryCtx, readyKey) => {
      const zset = retryCtx.db.get(readyKey);
      if (!(zset instanceof SortedSetValue) || zset.size === 0) return undefined;
      return mpopServe(retryCtx, byKey.get(readyKey)!, zset, max, count);
    },
    NULL_ARRAY,
  );
}

function zscan(ctx: Context, argv: Buffer[]): Reply {
  const cursor = parseCursor(argv[2]!);
  return zscanReply(ctx, argv, cursor, lookupTyped(ctx.db, keyOf(argv[1]!), 'zset'));
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
const BLOCKING_KEYS = { first: 1, last: -2, step: 1 };
// ACL categories in Redis's order (read/write, then the family, then fast/slow), as COMMAND INFO lists them.
const cat = (access: string, speed: string, ...more: string[]) => ({ categories: [access, 'sortedset', speed, ...more] });

export const commands: CommandSpec[] = [
  command('zadd', -4, ['write', 'denyoom', 'fast'], ONE_KEY, (ctx, argv) => zaddGeneric(ctx, argv, false).reply, cat('write', 'fast')),
  command('zincrby', 4, ['write', 'denyoom', 'fast'], ONE_KEY, (ctx, argv) => zaddGeneric(ctx, argv, true).reply, cat('write', 'fast')),
  command('zrem', -3, ['write', 'fast'], ONE_KEY, zrem, cat('write', 'fast')),
  command('zremrangebyscore', 4, ['write'], ONE_KEY, zremrange('score'), cat('write', 'slow')),
  command('zremrangebyrank', 4, ['write'], ONE_KEY, zremrange('rank'), cat('write', 'slow')),
  command('zremrangebylex', 4, ['write'], ONE_KEY, zremrange('lex'), cat('write', 'slow')),
  inPlaceCommand('zcard', 2, ['readonly', 'fast'], ONE_KEY, zcard, cat('read', 'fast')),
  inPlaceCommand('zscore', 3, ['readonly', 'fast'], ONE_KEY, zscore, cat('read', 'fast')),
  command('zmscore', -3, ['readonly', 'fast'], ONE_KEY, zmscore, cat('read', 'fast')),
  command('zrank', 3, ['readonly', 'fast'], ONE_KEY, zrank(false), cat('read', 'fast')),
  command('zrevrank', 3, ['readonly', 'fast'], ONE_KEY, zrank(true), cat('read', 'fast')),
  command('zcount', 4, ['readonly', 'fast'], ONE_KEY, zcount, cat('read', 'fast')),
  command('zlexcount', 4, ['readonly', 'fast'], ONE_KEY, zlexcount, cat('read', 'fast')),
  command('zrange', -4, ['readonly'], ONE_KEY, zrangeGeneric({ kind: null, reverse: null }), cat('read', 'slow')),
  command('zrangebyscore', -4, ['readonly'], ONE_KEY, zrangeGeneric({ kind: 'score', reverse: false }), cat('read', 'slow')),
  command('zrevrangebyscore', -4, ['readonly'], ONE_KEY, zrangeGeneric({ kind: 'score', reverse: true }), cat('read', 'slow')),
  command('zrangebylex', -4, ['readonly'], ONE_KEY, zrangeGeneric({ kind: 'lex', reverse: false }), cat('read', 'slow')),
  command('zrevrangebylex', -4, ['readonly'], ONE_KEY, zrangeGeneric({ kind: 'lex', reverse: true }), cat('read', 'slow')),
  command('zrangestore', -5, ['write', 'denyoom'], { first: 1, last: 2, step: 1 }, zrangeGeneric({ kind: null, reverse: null }, true), cat('write', 'slow')),
  command('zrevrange', -4, ['readonly'], ONE_KEY, zrangeGeneric({ kind: 'rank', reverse: true }), cat('read', 'slow')),
  command('zpopmin', -2, ['write', 'fast'], ONE_KEY, zpop(false), cat('write', 'fast')),
  command('zpopmax', -2, ['write', 'fast'], ONE_KEY, zpop(true), cat('write', 'fast')),
  command('bzpopmin', -3, ['write', 'noscript', 'blocking', 'fast'], BLOCKING_KEYS, bzpop(false), cat('write', 'fast', 'blocking')),
  command('bzpopmax', -3, ['write', 'noscript', 'blocking', 'fast'], BLOCKING_KEYS, bzpop(true), cat('write', 'fast', 'blocking')),
  command('zmpop', -4, ['write', 'movablekeys'], null, zmpop, { keys: numkeysKeys(1, false), ...cat('write', 'slow') }),
  command('bzmpop', -5, ['write', 'blocking', 'movablekeys'], null, bzmpop, { keys: numkeysKeys(2, false), ...cat('write', 'slow', 'blocking') }),
  command('zrandmember', -2, ['readonly'], ONE_KEY, zrandmember, cat('read', 'slow')),
  command('zunion', -3, ['readonly', 'movablekeys'], null, zunion, { keys: numkeysKeys(1, false), ...cat('read', 'slow') }),
  command('zinter', -3, ['readonly', 'movablekeys'], null, zinter, { keys: numkeysKeys(1, false), ...cat('read', 'slow') }),
  command('zdiff', -3, ['readonly', 'movablekeys'], null, zdiff, { keys: numkeysKeys(1, false), ...cat('read', 'slow') }),
  command('zintercard', -3, ['readonly', 'movablekeys'], null, zintercard, { keys: numkeysKeys(1, false), ...cat('read', 'slow') }),
  command('zunionstore', -4, ['write', 'denyoom', 'movablekeys'], ONE_KEY, zunionstore, { keys: numkeysKeys(2, true), ...cat('write', 'slow') }),
  command('zinterstore', -4, ['write', 'denyoom', 'movablekeys'], ONE_KEY, zinterstore, { keys: numkeysKeys(2, true), ...cat('write', 'slow') }),
  command('zdiffstore', -4, ['write', 'denyoom', 'movablekeys'], ONE_KEY, zdiffstore, { keys: numkeysKeys(2, true), ...cat('write', 'slow') }),
  command('zscan', -3, ['readonly'], ONE_KEY, zscan, cat('read', 'slow')),
];
