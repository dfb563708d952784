// String commands (t_string.c): GET/SET and their variants (GETSET, GETDEL, GETEX), MGET/MSET,
// counters, APPEND, STRLEN, GETRANGE (and SUBSTR), SETRANGE; LCS is in lcs.ts. Strings are
// stored as Buffers (copied from argv, so a value never pins a whole socket read buffer).
import { Buffer } from 'node:buffer';
import { keyOf } from '../engine/keyspace.js';
import { fail, OK, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, lower, parseInt64 } from './args.js';
import { alreadyExpired, expireArgToAbsoluteMs } from './keys.js';
import { addLongDouble, formatLongDouble, parseLongDouble } from './long-double.js';
import { ownedCopy, type RequestArgs } from '../resp/request-args.js';
import { canonicalIntNumber } from '../engine/canonical-int.js';
import { command, type CommandSpec, type Context, inPlaceCommand } from './types.js';
import { lookupTyped } from './typed-lookup.js';
import { NOTIFY_GENERIC, NOTIFY_STRING } from './keyspace-events.js';
import { rawString } from './object-encoding.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
/** proto-max-bulk-len's default: the largest string APPEND/SETRANGE may build. */
const MAX_STRING_LENGTH = 512 * 1024 * 1024;

/** A stored value owns its bytes: argv shares the connection's read buffer. */
function copy(buf: Buffer): Buffer {
  return ownedCopy(buf, 0, buf.length);
}

function checkStringLength(size: number): void {
  if (size > MAX_STRING_LENGTH) fail(Errors.stringTooLong);
}

/** The integer as a reply: a number when it is safe, else a bigint. */
function integerReply(v: bigint): Reply {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

// --- SET and its options ---------------------------------------------------------------------

interface SetOptions {
  nx: boolean;
  xx: boolean;
  get: boolean;
  keepTtl: boolean;
  persist: boolean;
  /** Which expiry option was given and its argument. */
  expire: { kind: 'ex' | 'px' | 'exat' | 'pxat'; arg: Buffer } | null;
}

/**
 * Parses SET/GETEX options exactly as t_string.c parseExtendedStringArgumentsOrReply:
 * a repeated option is accepted, a conflicting one is a syntax error.
 */
function parseStringOptions(argv: Buffer[], from: number, forSet: boolean): SetOptions {
  const o: SetOptions = { nx: false, xx: false, get: false, keepTtl: false, persist: false, expire: null };
  for (let j = from; j < argv.length; j++) {
    const opt = lower(argv[j]!);
    const next = j + 1 < argv.length ? argv[j + 1]! : undefined;
    const kind = o.expire?.kind;
    if (opt === 'nx' && forSet && !o.xx) o.nx = true;
    else if (opt === 'xx' && forSet && !o.nx) o.xx = true;
    else if (opt === 'get' && forSet) o.get = true;
    else if (opt === 'keepttl' && forSet && !o.persist && kind === undefined) o.keepTtl = true;
    else if (opt === 'persist' && !forSet && kind === undefined && !o.keepTtl) o.persist = true;
    else if (
      (opt === 'ex' || opt === 'px' || opt === 'exat' || opt === 'pxat') &&
      !o.keepTtl &&
      !o.persist &&
      (kind === undefined || kind === opt) &&
      next !== undefined
    ) {
      o.expire = { kind: opt, arg: next };
      j++;
    } else fail(Errors.syntax);
  }
  return o;
}

function expireOptionToMs(ctx: Context, expire: NonNullable<SetOptions['expire']>, name: string): number {
  const unit = expire.kind === 'ex' || expire.kind === 'exat' ? 'seconds' : 'ms';
  const relative = expire.kind === 'ex' || expire.kind === 'px';
  return expireArgToAbsoluteMs(expire.arg, unit, relative, ctx.instance.keyspace.now(), name);
}

/** SET key value: nothing to parse. */
const NO_OPTIONS: Readonly<SetOptions> = Object.freeze({ nx: false, xx: false, get: false, keepTtl: false, persist: false, expire: null });

/**
 * t_string.c setGenericCommand: the shared core of SET, SETNX, SETEX, PSETEX. The key is
 * argument 1, the value argument `valueAt`.
 */
function setGeneric(
  ctx: Context,
  args: RequestArgs,
  valueAt: number,
  o: Readonly<SetOptions>,
  name: string,
  okReply: Reply,
  abortReply: Reply,
): Reply {
  const key = args.key(1);
  const expireAt = o.expire === null ? null : expireOptionToMs(ctx, o.expire, name);
  let old: Reply = null;
  if (o.get) {
    const value = lookupTyped(ctx.db, key, 'string');
    old = value ?? null;
  }
  // As lookupKeyWrite: an expired key is deleted (and its DEL logged) before it is overwritten;
  // without NX / XX and expiring keys there is nothing to look up.
  const found = o.nx || o.xx || ctx.db.expires.size > 0 ? ctx.db.get(key) !== undefined : false;
  if ((o.nx && found) || (o.xx && !found)) return o.get ? old : abortReply;
  ctx.db.set(key, args.copy(valueAt), o.keepTtl);
  if (expireAt !== null) ctx.db.setExpire(key, expireAt);
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'set', key);
  if (expireAt !== null) ctx.notify(NOTIFY_GENERIC, 'expire', key);
  if (expireAt !== null) {
    // Redis 7 logs every expiry (PXAT given too, in any case, with NX/XX/GET dropped) as
    // `SET key value PXAT ms`, so replay does not depend on the clock (setGenericCommand).
    ctx.propagate(['SET', args.buffer(1), args.buffer(valueAt), 'PXAT', String(expireAt)]);
  } else if (o.get && expireAt === null) {
    ctx.propagate(args.toArgv().filter((a, i) => i < 3 || lower(a) !== 'get'));
  }
  return o.get ? old : okReply;
}

/** Options with only an expiry: one literal (a spread of NO_OPTIONS costs ~140 ns, this ~20). */
function expiring(kind: 'ex' | 'px', arg: Buffer): SetOptions {
  return { nx: false, xx: false, get: false, keepTtl: false, persist: false, expire: { kind, arg } };
}

function set(ctx: Context, args: RequestArgs): Reply {
  let o: Readonly<SetOptions>;
  if (args.length === 3) o = NO_OPTIONS;
  // SET key value EX|PX ttl, the form caches send, read in place (no argv to build).
  else if (args.length === 5 && args.is(3, 'ex')) o = expiring('ex', args.buffer(4));
  else if (args.length === 5 && args.is(3, 'px')) o = expiring('px', args.buffer(4));
  else o = parseStringOptions(args.toArgv(), 3, true);
  return setGeneric(ctx, args, 2, o, 'set', OK, null);
}

const NX: Readonly<SetOptions> = Object.freeze({ ...NO_OPTIONS, nx: true });

function setnx(ctx: Context, args: RequestArgs): Reply {
  return setGeneric(ctx, args, 2, NX, 'setnx', 1, 0);
}

function setexGeneric(name: string, kind: 'ex' | 'px') {
  return (ctx: Context, args: RequestArgs): Reply => {
    return setGeneric(ctx, args, 3, expiring(kind, args.buffer(2)), name, OK, null);
  };
}

function get(ctx: Context, args: RequestArgs): Reply {
  return lookupTyped(ctx.db, args.key(1), 'string') ?? null;
}

/** GETSET: SET that answers the old value; the TTL goes, and it is logged as a SET (t_string.c). */
function getset(ctx: Context, args: RequestArgs): Reply {
  const key = args.key(1);
  const old = lookupTyped(ctx.db, key, 'string') ?? null;
  ctx.db.set(key, args.copy(2));
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'set', key);
  if (ctx.propagating) ctx.propagate(['SET', args.buffer(1), args.buffer(2)]);
  return old;
}

function getdel(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const value = lookupTyped(ctx.db, key, 'string');
  if (value === undefined) return null;
  ctx.db.delete(key);
  ctx.modified(key);
  ctx.notify(NOTIFY_GENERIC, 'del', key);
  ctx.propagate(['DEL', argv[1]!]);
  return value;
}

function getex(ctx: Context, argv: Buffer[]): Reply {
  const o = parseStringOptions(argv, 2, false);
  const key = keyOf(argv[1]!);
  const value = lookupTyped(ctx.db, key, 'string');
  if (value === undefined) return null;
  // Redis validates the time only once it knows the key holds a string.
  const expireAt = o.expire === null ? null : expireOptionToMs(ctx, o.expire, 'getex');
  if (expireAt !== null) {
    const absolute = o.expire!.kind === 'exat' || o.expire!.kind === 'pxat';
    if (absolute && alreadyExpired(ctx, expireAt)) {
      ctx.db.delete(key);
      ctx.modified(key);
      ctx.notify(NOTIFY_GENERIC, 'del', key);
      ctx.propagate(['DEL', argv[1]!]);
    } else {
      ctx.db.setExpire(key, expireAt);
      ctx.modified(key);
      ctx.notify(NOTIFY_GENERIC, 'expire', key);
      ctx.propagate(['PEXPIREAT', argv[1]!, String(expireAt)]);
    }
  } else if (o.persist && ctx.db.persist(key)) {
    ctx.modified(key);
    ctx.notify(NOTIFY_GENERIC, 'persist', key);
    ctx.propagate(['PERSIST', argv[1]!]);
  }
  return value;
}

function mget(ctx: Context, argv: Buffer[]): Reply {
  const out: Reply[] = [];
  for (let i = 1; i < argv.length; i++) {
    const value = ctx.db.get(keyOf(argv[i]!));
    out.push(Buffer.isBuffer(value) ? value : null);
  }
  return out;
}

function msetGeneric(nx: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    if (argv.length % 2 === 0) fail(Errors.wrongArity(nx ? 'msetnx' : 'mset'));
    if (nx) {
      for (let i = 1; i < argv.length; i += 2) if (ctx.db.get(keyOf(argv[i]!)) !== undefined) return 0;
    }
    for (let i = 1; i < argv.length; i += 2) {
      const key = keyOf(argv[i]!);
      ctx.db.set(key, copy(argv[i + 1]!));
      ctx.modified(key);
      ctx.notify(NOTIFY_STRING, 'set', key);
    }
    return nx ? 1 : OK;
  };
}

// --- counters --------------------------------------------------------------------------------

/**
 * INCR and its kin: the key is argument 1. INCR and DECR pass `by` as a number: a counter
 * below 10^15 is then incremented without BigInt work (about half of INCR's cost).
 */
function incrDecr(ctx: Context, args: RequestArgs, by: bigint | number): Reply {
  const key = args.key(1);
  const current = lookupTyped(ctx.db, key, 'string');
  // A counter of at most 15 digits is a number (string2ll's rules), whose sum with 1 is exact.
  const short = current === undefined ? 0 : canonicalIntNumber(current);
  let next: number | bigint;
  if (typeof by === 'number' && short !== null) {
    next = short + by;
  } else {
    let value = 0n;
    if (current !== undefined) {
      const parsed = parseInt64(current);
      if (parsed === undefined) fail(Errors.notInteger);
      value = parsed;
    }
    const step = BigInt(by);
    if ((step < 0n && value < 0n && step < INT64_MIN - value) || (step > 0n && value > 0n && step > INT64_MAX - value)) {
      fail(Errors.overflow);
    }
    next = value + step;
  }
  // INCR keeps the key's TTL (dbOverwrite).
  ctx.db.set(key, Buffer.from(String(next), 'latin1'), true);
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'incrby', key);
  return typeof next === 'number' ? next : integerReply(next);
}

function incrbyfloat(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const current = lookupTyped(ctx.db, key, 'string');
  const base = current === undefined ? parseLongDouble('0') : parseLongDouble(current);
  const incr = parseLongDouble(argv[2]!);
  if (base === undefined || incr === undefined) fail(Errors.notFloat);
  const sum = addLongDouble(base, incr);
  if (sum === undefined || sum.inf) fail(Errors.nanOrInfinity);
  const text = formatLongDouble(sum);
  ctx.db.set(key, Buffer.from(text, 'latin1'), true);
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'incrbyfloat', key);
  // Logged as the resulting value so replay does not depend on float formatting.
  ctx.propagate(['SET', argv[1]!, text, 'KEEPTTL']);
  return text;
}

// --- APPEND, STRLEN, GETRANGE, SETRANGE ------------------------------------------------------

function append(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const current = lookupTyped(ctx.db, key, 'string');
  if (current === undefined) {
    ctx.db.set(key, copy(argv[2]!));
    ctx.modified(key);
    ctx.notify(NOTIFY_STRING, 'append', key);
    return argv[2]!.length;
  }
  checkStringLength(current.length + argv[2]!.length);
  const next = rawString(Buffer.concat([current, argv[2]!]));
  ctx.db.set(key, next, true);
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'append', key);
  return next.length;
}

function strlen(ctx: Context, argv: Buffer[]): Reply {
  return lookupTyped(ctx.db, keyOf(argv[1]!), 'string')?.length ?? 0;
}

function getrange(ctx: Context, argv: Buffer[]): Reply {
  let start = int64Arg(argv[2]!);
  let end = int64Arg(argv[3]!);
  const value = lookupTyped(ctx.db, keyOf(argv[1]!), 'string');
  if (value === undefined) return Buffer.alloc(0);
  const len = BigInt(value.length);
  if (start < 0n && end < 0n && start > end) return Buffer.alloc(0);
  if (start < 0n) start += len;
  if (end < 0n) end += len;
  if (start < 0n) start = 0n;
  if (end < 0n) end = 0n;
  if (end >= len) end = len - 1n;
  if (start > end || len === 0n) return Buffer.alloc(0);
  return value.subarray(Number(start), Number(end) + 1);
}

function setrange(ctx: Context, argv: Buffer[]): Reply {
  const offset = int64Arg(argv[2]!);
  if (offset < 0n) fail(Errors.offsetOutOfRange);
  const key = keyOf(argv[1]!);
  const patch = argv[3]!;
  const current = lookupTyped(ctx.db, key, 'string');
  if (current === undefined && patch.length === 0) return 0;
  if (current !== undefined && patch.length === 0) return current.length;
  checkStringLength(Number(offset) + patch.length);
  const off = Number(offset);
  const base = current ?? Buffer.alloc(0);
  const next = rawString(Buffer.alloc(Math.max(base.length, off + patch.length)));
  base.copy(next);
  patch.copy(next, off);
  ctx.db.set(key, next, true);
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'setrange', key);
  return next.length;
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
const ALL_KEYS = { first: 1, last: -1, step: 1 };
const KEY_VALUE_PAIRS = { first: 1, last: -1, step: 2 };
// ACL categories in Redis's order (read/write, then the family, then fast/slow), as COMMAND INFO lists them.
const cat = (access: string, speed: string) => ({ categories: [access, 'string', speed] });

export const commands: CommandSpec[] = [
  inPlaceCommand('get', 2, ['readonly', 'fast'], ONE_KEY, get, cat('read', 'fast')),
  inPlaceCommand('set', -3, ['write', 'denyoom'], ONE_KEY, set, cat('write', 'slow')),
  inPlaceCommand('setnx', 3, ['write', 'denyoom', 'fast'], ONE_KEY, setnx, cat('write', 'fast')),
  inPlaceCommand('setex', 4, ['write', 'denyoom'], ONE_KEY, setexGeneric('setex', 'ex'), cat('write', 'slow')),
  inPlaceCommand('psetex', 4, ['write', 'denyoom'], ONE_KEY, setexGeneric('psetex', 'px'), cat('write', 'slow')),
  inPlaceCommand('getset', 3, ['write', 'denyoom', 'fast'], ONE_KEY, getset, cat('write', 'fast')),
  command('getdel', 2, ['write', 'fast'], ONE_KEY, getdel, cat('write', 'fast')),
  command('getex', -2, ['write', 'fast'], ONE_KEY, getex, cat('write', 'fast')),
  command('mget', -2, ['readonly', 'fast'], ALL_KEYS, mget, cat('read', 'fast')),
  command('mset', -3, ['write', 'denyoom'], KEY_VALUE_PAIRS, msetGeneric(false), cat('write', 'slow')),
  command('msetnx', -3, ['write', 'denyoom'], KEY_VALUE_PAIRS, msetGeneric(true), cat('write', 'slow')),
  inPlaceCommand('incr', 2, ['write', 'denyoom', 'fast'], ONE_KEY, (ctx, args) => incrDecr(ctx, args, 1), cat('write', 'fast')),
  inPlaceCommand('decr', 2, ['write', 'denyoom', 'fast'], ONE_KEY, (ctx, args) => incrDecr(ctx, args, -1), cat('write', 'fast')),
  inPlaceCommand(
    'incrby',
    3,
    ['write', 'denyoom', 'fast'],
    ONE_KEY,
    (ctx, args) => incrDecr(ctx, args, int64Arg(args.buffer(2))),
    cat('write', 'fast'),
  ),
  inPlaceCommand(
    'decrby',
    3,
    ['write', 'denyoom', 'fast'],
    ONE_KEY,
    (ctx, args) => {
      const by = int64Arg(args.buffer(2));
      if (by === INT64_MIN) fail(Errors.decrementOverflow);
      return incrDecr(ctx, args, -by);
    },
    cat('write', 'fast'),
  ),
  command('incrbyfloat', 3, ['write', 'denyoom', 'fast'], ONE_KEY, incrbyfloat, cat('write', 'fast')),
  command('append', 3, ['write', 'denyoom', 'fast'], ONE_KEY, append, cat('write', 'fast')),
  command('strlen', 2, ['readonly', 'fast'], ONE_KEY, strlen, cat('read', 'fast')),
  command('getrange', 4, ['readonly'], ONE_KEY, getrange, cat('read', 'slow')),
  // SUBSTR is GETRANGE's old name, still in Redis 7.0's table.
  command('substr', 4, ['readonly'], ONE_KEY, getrange, cat('read', 'slow')),
  command('setrange', 4, ['write', 'denyoom'], ONE_KEY, setrange, cat('write', 'slow')),
];
