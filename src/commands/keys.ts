// Generic keyspace commands: DEL, EXISTS, TYPE, KEYS, SCAN, RENAME, FLUSH*, the EXPIRE family,
// TTL and friends, PERSIST, RANDOMKEY, DBSIZE. Replies and errors are Redis 7.0's (db.c, expire.c).
import { scanStep } from './scan-cursors.js';
import { type Database, keyBytes, keyOf, typeOf } from '../engine/keyspace.js';
import { fail, OK, type Reply, SimpleString } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, lower, parseInt64 } from './args.js';
import { canonicalIntNumber } from '../engine/canonical-int.js';
import { globMatch } from './glob.js';
import { NOTIFY_GENERIC } from './keyspace-events.js';
import { command, type CommandSpec, type Context, inPlaceCommand } from './types.js';
import type { RequestArgs } from '../resp/request-args.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** Redis's addReplyErrorExpireTime. */
export function invalidExpireTime(commandName: string): never {
  fail(Errors.invalidExpire(commandName));
}

/**
 * The absolute expiry in ms for SET/GETEX/SETEX style arguments (t_string.c
 * getExpireMillisecondsOrReply): positive only, relative units added to now.
 */
export function expireArgToAbsoluteMs(
  arg: Buffer,
  unit: 'seconds' | 'ms',
  relative: boolean,
  now: number,
  commandName: string,
): number {
  // The usual TTL (positive, under 10^12) in plain numbers: the sum stays far below 2^53, so
  // it is exact, and none of the int64 checks below can fail. BigInt otherwise.
  const small = canonicalIntNumber(arg);
  if (small !== null && small > 0 && small < 1e12) {
    const scaled = unit === 'seconds' ? small * 1000 : small;
    return relative ? scaled + now : scaled;
  }
  let ms = int64Arg(arg);
  if (ms <= 0n || (unit === 'seconds' && ms > INT64_MAX / 1000n)) invalidExpireTime(commandName);
  if (unit === 'seconds') ms *= 1000n;
  if (relative) ms += BigInt(now);
  if (ms > INT64_MAX) invalidExpireTime(commandName);
  return Number(ms);
}

/** True when an absolute expiry is already due: the key is deleted instead (not while loading). */
export function alreadyExpired(ctx: Context, atMs: number): boolean {
  return atMs <= ctx.instance.keyspace.now() && !ctx.instance.keyspace.loading;
}

/** Keys of one database that are present (expired ones are removed on the way, as Redis does). */
/** Whether a key exists (an expired one is removed), leaving its access time alone. */
function liveKey(db: Database, key: string): boolean {
  return db.peek(key) !== undefined;
}

function del(ctx: Context, args: RequestArgs): Reply {
  let removed = 0;
  for (let i = 1; i < args.length; i++) {
    const key = args.key(i);
    if (liveKey(ctx.db, key) && ctx.db.delete(key)) {
      removed++;
      ctx.modified(key);
      ctx.notify(NOTIFY_GENERIC, 'del', key);
    }
  }
  return removed;
}

function exists(ctx: Context, args: RequestArgs): Reply {
  let n = 0;
  for (let i = 1; i < args.length; i++) if (liveKey(ctx.db, args.key(i))) n++;
  return n;
}

/** TOUCH: counts the keys that exist, updating their access time (EXISTS leaves it alone). */
function touch(ctx: Context, argv: Buffer[]): Reply {
  let n = 0;
  for (let i = 1; i < argv.length; i++) if (ctx.db.get(keyOf(argv[i]!)) !== undefined) n++;
  return n;
}

function type(ctx: Context, argv: Buffer[]): Reply {
  const value = ctx.db.peek(keyOf(argv[1]!));
  return new SimpleString(value === undefined ? 'none' : typeOf(value));
}

function keys(ctx: Context, argv: Buffer[]): Reply {
  const pattern = keyOf(argv[1]!);
  const all = pattern === '*';
  const out: Reply[] = [];
  for (const key of [...ctx.db.values.keys()]) {
    if (!all && !globMatch(pattern, key)) continue;
    if (liveKey(ctx.db, key)) out.push(keyBytes(key));
  }
  return out;
}

// --- SCAN ----------------------------------------------------------------------------------
// Redis's cursor walks hash buckets in reverse-binary order. Our keys live in a Map, whose
// iterators are live: they keep their place across inserts and deletes and never skip an entry
// that stays in the map. So a cursor names a parked iterator: every key present for the whole
// scan is returned once, keys added or removed meanwhile may or may not be. An unknown cursor
// (too old, or from before a restart) restarts the scan, which keeps the guarantee.

/** Parses a cursor as Redis's parseScanCursorOrReply (strtoul: '+', '-' and "" accepted). */
export function parseCursor(arg: Buffer): string {
  const s = arg.toString('latin1');
  if (s === '') return '0';
  const m = /^([+-]?)([0-9]+)$/.exec(s);
  if (m === null) fail(Errors.invalidCursor);
  let v = BigInt(m[2]!);
  if (v > 18446744073709551615n) fail(Errors.invalidCursor);
  if (m[1] === '-' && v !== 0n) v = 18446744073709551616n - v;
  return v.toString();
}

function scan(ctx: Context, argv: Buffer[]): Reply {
  const cursor = parseCursor(argv[1]!);
  let count = 10;
  let pattern: string | null = null;
  let typeFilter: string | null = null;
  for (let i = 2; i < argv.length; i++) {
    const remaining = argv.length - i - 1;
    if (isKeyword(argv[i], 'count') && remaining >= 1) {
      const v = parseInt64(argv[++i]!);
      if (v === undefined) fail(Errors.notInteger);
      if (v < 1n) fail(Errors.syntax);
      count = v > 1000000n ? 1000000 : Number(v);
    } else if (isKeyword(argv[i], 'match') && remaining >= 1) {
      pattern = keyOf(argv[++i]!);
      if (pattern === '*') pattern = null;
    } else if (isKeyword(argv[i], 'type') && remaining >= 1) {
      typeFilter = lower(argv[++i]!);
    } else {
      fail(Errors.syntax);
    }
  }
  const db = ctx.db;
  const found: Reply[] = [];
  const next = scanStep(ctx.instance, cursor, db, () => db.values.keys(), count, (key) => {
    if (pattern !== null && !globMatch(pattern, key)) return;
    const value = db.peek(key);
    if (value === undefined) return;
    if (typeFilter !== null && typeOf(value) !== typeFilter) return;
    found.push(keyBytes(key));
  });
  return [next, found];
}

// --- RENAME, DBSIZE, FLUSH, RANDOMKEY --------------------------------------------------------

function renameGeneric(ctx: Context, argv: Buffer[], nx: boolean): Reply {
  const src = keyOf(argv[1]!);
  const dst = keyOf(argv[2]!);
  const value = ctx.db.get(src);
  if (value === undefined) fail(Errors.noSuchKey);
  if (src === dst) return nx ? 0 : OK;
  if (ctx.db.get(dst) !== undefined) {
    if (nx) return 0;
    ctx.db.delete(dst);
  }
  const expireAt = ctx.db.getExpire(src);
  ctx.db.delete(src);
  ctx.db.set(dst, value);
  if (expireAt !== undefined) ctx.db.setExpire(dst, expireAt);
  ctx.modified(src);
  ctx.modified(dst);
  ctx.notify(NOTIFY_GENERIC, 'rename_from', src);
  ctx.notify(NOTIFY_GENERIC, 'rename_to', dst);
  return nx ? 1 : OK;
}

function dbsize(ctx: Context): Reply {
  return ctx.db.size;
}

/** FLUSHDB/FLUSHALL take one optional ASYNC|SYNC (db.c getFlushCommandFlags). */
function checkFlushArgs(argv: Buffer[]): void {
  if (argv.length > 2) fail(Errors.syntax);
  if (argv.length === 2 && !isKeyword(argv[1], 'sync') && !isKeyword(argv[1], 'async')) fail(Errors.syntax);
}

function flushdb(ctx: Context, argv: Buffer[]): Reply {
  checkFlushArgs(argv);
  ctx.instance.signalFlushedDb(ctx.db.index);
  const removed = ctx.db.size;
  ctx.db.clear();
  ctx.instance.blocked.dbFlushed(ctx.db.index);
  ctx.addDirty(removed);
  // Redis forces propagation even when the database was already empty.
  ctx.propagate(argv);
  return OK;
}

function flushall(ctx: Context, argv: Buffer[]): Reply {
  checkFlushArgs(argv);
  ctx.instance.signalFlushedDb(null);
  let removed = 0;
  for (const db of ctx.instance.keyspace.dbs) {
    removed += db.size;
    db.clear();
  }
  ctx.instance.blocked.dbFlushed(null);
  ctx.addDirty(removed);
  ctx.propagate(argv);
  return OK;
}

/** SWAPDB a b: as Redis's swapdbCommand, clients of either database see the other's keys. */
function swapdb(ctx: Context, argv: Buffer[]): Reply {
  const a = parseInt64(argv[1]!);
  if (a === undefined) fail(Errors.invalidFirstDb);
  const b = parseInt64(argv[2]!);
  if (b === undefined) fail(Errors.invalidSecondDb);
  const dbs = ctx.instance.keyspace.dbs;
  if (a < 0n || a >= BigInt(dbs.length) || b < 0n || b >= BigInt(dbs.length)) fail(Errors.dbIndexOutOfRange);
  const [first, second] = [dbs[Number(a)]!, dbs[Number(b)]!];
  if (first !== second) {
    ctx.instance.touchSwappedWatched(first.index, second.index);
    first.swapContents(second);
    // Blocked clients of both databases re-check their keys: lists may now be served, and a
    // XREADGROUP whose stream is gone gets UNBLOCKED (scanDatabaseForDeletedKeys).
    ctx.instance.blocked.dbFlushed(first.index);
    ctx.instance.blocked.dbFlushed(second.index);
  }
  ctx.addDirty(1);
  ctx.propagate(argv);
  return OK;
}

function randomkey(ctx: Context): Reply {
  // A Map has no random access; walking to a random position is O(n), fine at our sizes.
  const db = ctx.db;
  for (let tries = 0; db.size > 0 && tries < 100; tries++) {
    let target = Math.floor(Math.random() * db.size);
    for (const key of db.values.keys()) {
      if (target-- > 0) continue;
      if (liveKey(db, key)) return keyBytes(key);
      break;
    }
  }
  // Everything sampled had expired; fall back to a full walk.
  for (const key of [...db.values.keys()]) if (liveKey(db, key)) return keyBytes(key);
  return null;
}

// --- EXPIRE family ---------------------------------------------------------------------------

type ExpireCondition = 'nx' | 'xx' | 'gt' | 'lt';

/** Parses NX|XX|GT|LT as expire.c parseExtendedExpireArgumentsOrReply. */
function parseExpireConditions(argv: Buffer[]): Set<ExpireCondition> {
  const flags = new Set<ExpireCondition>();
  for (let i = 3; i < argv.length; i++) {
    const opt = lower(argv[i]!);
    if (opt === 'nx' || opt === 'xx' || opt === 'gt' || opt === 'lt') flags.add(opt);
    else fail(Errors.unsupportedOption(argv[i]!.toString('utf8')));
  }
  if (flags.has('nx') && (flags.has('xx') || flags.has('gt') || flags.has('lt'))) {
    fail(Errors.expireNxXx);
  }
  if (flags.has('gt') && flags.has('lt')) fail(Errors.expireGtLt);
  return flags;
}

function expireGeneric(name: string, unit: 'seconds' | 'ms', relative: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    const key = keyOf(argv[1]!);
    const conditions = parseExpireConditions(argv);
    let when = int64Arg(argv[2]!);
    if (unit === 'seconds') {
      if (when > INT64_MAX / 1000n || when < INT64_MIN / 1000n) invalidExpireTime(name);
      when *= 1000n;
    }
    const base = relative ? BigInt(ctx.instance.keyspace.now()) : 0n;
    if (when > INT64_MAX - base) invalidExpireTime(name);
    when += base;
    if (ctx.db.get(key) === undefined) return 0;
    const current = ctx.db.getExpire(key);
    const whenMs = Number(when);
    if (conditions.has('nx') && current !== undefined) return 0;
    if (conditions.has('xx') && current === undefined) return 0;
    if (conditions.has('gt') && (current === undefined || whenMs <= current)) return 0;
    if (conditions.has('lt') && current !== undefined && whenMs >= current) return 0;
    if (alreadyExpired(ctx, whenMs)) {
      ctx.db.delete(key);
      ctx.modified(key);
      ctx.notify(NOTIFY_GENERIC, 'del', key);
      ctx.propagate(['DEL', argv[1]!]);
      return 1;
    }
    ctx.db.setExpire(key, whenMs);
    ctx.modified(key);
    ctx.notify(NOTIFY_GENERIC, 'expire', key);
    // Logged as an absolute time so replay does not depend on when it happens.
    ctx.propagate(['PEXPIREAT', argv[1]!, when.toString(), ...argv.slice(3)]);
    return 1;
  };
}

/** The key's absolute expiry in ms, or what TTL replies without one: -2 no key, -1 no expiry. */
function expireAtOrCode(ctx: Context, keyArg: Buffer): number {
  const key = keyOf(keyArg);
  if (ctx.db.peek(key) === undefined) return -2;
  return ctx.db.getExpire(key) ?? -1;
}

function ttlGeneric(inMs: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    const at = expireAtOrCode(ctx, argv[1]!);
    if (at < 0) return at;
    const ttl = Math.max(0, at - ctx.instance.keyspace.now());
    return inMs ? ttl : Math.floor((ttl + 500) / 1000);
  };
}

function expiretimeGeneric(inMs: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    const at = expireAtOrCode(ctx, argv[1]!);
    if (at < 0) return at;
    return inMs ? at : Math.floor(at / 1000);
  };
}

function persist(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  if (ctx.db.get(key) === undefined) return 0;
  if (!ctx.db.persist(key)) return 0;
  ctx.modified(key);
  ctx.notify(NOTIFY_GENERIC, 'persist', key);
  return 1;
}

const ALL_KEYS = { first: 1, last: -1, step: 1 };
const ONE_KEY = { first: 1, last: 1, step: 1 };
const TWO_KEYS = { first: 1, last: 2, step: 1 };

export const commands: CommandSpec[] = [
  inPlaceCommand('del', -2, ['write'], ALL_KEYS, del, { categories: ['keyspace', 'write', 'slow'] }),
  inPlaceCommand('unlink', -2, ['write', 'fast'], ALL_KEYS, del, { categories: ['keyspace', 'write', 'fast'] }),
  inPlaceCommand('exists', -2, ['readonly', 'fast'], ALL_KEYS, exists, { categories: ['keyspace', 'read', 'fast'] }),
  command('touch', -2, ['readonly', 'fast'], ALL_KEYS, touch, { categories: ['keyspace', 'read', 'fast'] }),
  command('type', 2, ['readonly', 'fast'], ONE_KEY, type, { categories: ['keyspace', 'read', 'fast'] }),
  command('keys', 2, ['readonly'], null, keys, { categories: ['keyspace', 'read', 'slow', 'dangerous'] }),
  command('scan', -2, ['readonly'], null, scan, { categories: ['keyspace', 'read', 'slow'] }),
  command('rename', 3, ['write'], TWO_KEYS, (ctx, argv) => renameGeneric(ctx, argv, false), {
    categories: ['keyspace', 'write', 'slow'],
  }),
  command('renamenx', 3, ['write', 'fast'], TWO_KEYS, (ctx, argv) => renameGeneric(ctx, argv, true), {
    categories: ['keyspace', 'write', 'fast'],
  }),
  command('dbsize', 1, ['readonly', 'fast'], null, dbsize, { categories: ['keyspace', 'read', 'fast'] }),
  command('flushdb', -1, ['write'], null, flushdb, { categories: ['keyspace', 'write', 'slow', 'dangerous'] }),
  command('flushall', -1, ['write'], null, flushall, { categories: ['keyspace', 'write', 'slow', 'dangerous'] }),
  command('swapdb', 3, ['write', 'fast'], null, swapdb, { categories: ['keyspace', 'write', 'fast', 'dangerous'] }),
  command('randomkey', 1, ['readonly'], null, randomkey, { categories: ['keyspace', 'read', 'slow'] }),
  command('expire', -3, ['write', 'fast'], ONE_KEY, expireGeneric('expire', 'seconds', true), {
    categories: ['keyspace', 'write', 'fast'],
  }),
  command('pexpire', -3, ['write', 'fast'], ONE_KEY, expireGeneric('pexpire', 'ms', true), {
    categories: ['keyspace', 'write', 'fast'],
  }),
  command('expireat', -3, ['write', 'fast'], ONE_KEY, expireGeneric('expireat', 'seconds', false), {
    categories: ['keyspace', 'write', 'fast'],
  }),
  command('pexpireat', -3, ['write', 'fast'], ONE_KEY, expireGeneric('pexpireat', 'ms', false), {
    categories: ['keyspace', 'write', 'fast'],
  }),
  command('ttl', 2, ['readonly', 'fast'], ONE_KEY, ttlGeneric(false), { categories: ['keyspace', 'read', 'fast'] }),
  command('pttl', 2, ['readonly', 'fast'], ONE_KEY, ttlGeneric(true), { categories: ['keyspace', 'read', 'fast'] }),
  command('expiretime', 2, ['readonly', 'fast'], ONE_KEY, expiretimeGeneric(false), {
    categories: ['keyspace', 'read', 'fast'],
  }),
  command('pexpiretime', 2, ['readonly', 'fast'], ONE_KEY, expiretimeGeneric(true), {
    categories: ['keyspace', 'read', 'fast'],
  }),
  command('persist', 2, ['write', 'fast'], ONE_KEY, persist, { categories: ['keyspace', 'write', 'fast'] }),
];
