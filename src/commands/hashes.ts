// Hash commands (t_hash.c); HRANDFIELD and HSCAN are in hash-random-scan.ts. Small hashes reply in insertion order, as Redis's listpack does.
import { NOTIFY_HASH } from './keyspace-events.js';
import { Buffer } from 'node:buffer';
import { HashValue } from '../engine/hash.js';
import { ByteRangesReply } from './byte-ranges-reply.js';
import { latin1Reply } from './latin1-reply.js';
import { type Database, keyOf } from '../engine/keyspace.js';
import { fail, MapReply, OK, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, parseInt64 } from './args.js';
import { addLongDouble, formatLongDouble, parseLongDouble } from './long-double.js';
import { hrandfield, hscan } from './hash-random-scan.js';
import { removeMembersCommand } from './members.js';
import type { RequestArgs } from '../resp/request-args.js';
import { command, type CommandSpec, type Context, inPlaceCommand } from './types.js';
import { lookupTyped } from './typed-lookup.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** hash-max-listpack-entries and -value: past either a hash is a hashtable (HashValue.set). */
function hashLimits(ctx: Context): [entries: number, value: number] {
  const config = ctx.instance.config;
  return [config.getNumber('hash-max-listpack-entries'), config.getNumber('hash-max-listpack-value')];
}

/** The hash at `key`, created empty (and stored) when missing. */
function lookupOrCreateHash(db: Database, key: string): HashValue {
  let hash = lookupTyped(db, key, 'hash');
  if (hash === undefined) {
    hash = new HashValue();
    db.set(key, hash);
  }
  return hash;
}

function hsetGeneric(name: 'hset' | 'hmset') {
  return (ctx: Context, args: RequestArgs): Reply => {
    if (args.length % 2 === 1) fail(Errors.wrongArity(name));
    const key = args.key(1);
    const hash = lookupOrCreateHash(ctx.db, key);
    const pairs = new Array<string>(args.length - 2);
    for (let i = 2; i < args.length; i++) pairs[i - 2] = args.key(i);
    const created = hash.setPairs(pairs, ...hashLimits(ctx));
    ctx.modified(key);
    ctx.notify(NOTIFY_HASH, 'hset', key);
    return name === 'hset' ? created : OK;
  };
}

function hsetnx(ctx: Context, args: RequestArgs): Reply {
  const key = args.key(1);
  const existing = lookupTyped(ctx.db, key, 'hash');
  const field = args.key(2);
  if (existing?.has(field)) return 0;
  lookupOrCreateHash(ctx.db, key).set(field, args.key(3), ...hashLimits(ctx));
  ctx.modified(key);
  ctx.notify(NOTIFY_HASH, 'hset', key);
  return 1;
}

function hget(ctx: Context, args: RequestArgs): Reply {
  return latin1Reply(lookupTyped(ctx.db, args.key(1), 'hash')?.getString(args.key(2)));
}

function hmget(ctx: Context, args: RequestArgs): Reply {
  const hash = lookupTyped(ctx.db, args.key(1), 'hash');
  const out = new Array<Reply>(args.length - 2);
  for (let i = 2; i < args.length; i++) out[i - 2] = latin1Reply(hash?.getString(args.key(i)));
  return out;
}

function hgetall(ctx: Context, argv: Buffer[]): Reply {
  const hash = lookupTyped(ctx.db, keyOf(argv[1]!), 'hash');
  return hash === undefined ? new MapReply([]) : new ByteRangesReply(hash.byteRanges('pairs'), true);
}

const hdel = removeMembersCommand('hash');

function hlen(ctx: Context, args: RequestArgs): Reply {
  return lookupTyped(ctx.db, args.key(1), 'hash')?.size ?? 0;
}

function hstrlen(ctx: Context, argv: Buffer[]): Reply {
  return lookupTyped(ctx.db, keyOf(argv[1]!), 'hash')?.getString(keyOf(argv[2]!))?.length ?? 0;
}

function hexists(ctx: Context, argv: Buffer[]): Reply {
  return lookupTyped(ctx.db, keyOf(argv[1]!), 'hash')?.has(keyOf(argv[2]!)) === true ? 1 : 0;
}

function hkeys(ctx: Context, argv: Buffer[]): Reply {
  const hash = lookupTyped(ctx.db, keyOf(argv[1]!), 'hash');
  return hash === undefined ? [] : new ByteRangesReply(hash.byteRanges('fields'));
}

function hvals(ctx: Context, argv: Buffer[]): Reply {
  const hash = lookupTyped(ctx.db, keyOf(argv[1]!), 'hash');
  return hash === undefined ? [] : new ByteRangesReply(hash.byteRanges('values'));
}

function hincrby(ctx: Context, args: RequestArgs): Reply {
  const by = int64Arg(args.key(3));
  const key = args.key(1);
  const hash = lookupOrCreateHash(ctx.db, key);
  const field = args.key(2);
  const current = hash.getString(field);
  let value = 0n;
  if (current !== undefined) {
    const parsed = parseInt64(current);
    if (parsed === undefined) fail(Errors.hashNotInteger);
    value = parsed;
  }
  if ((by < 0n && value < 0n && by < INT64_MIN - value) || (by > 0n && value > 0n && by > INT64_MAX - value)) {
    fail(Errors.overflow);
  }
  value += by;
  hash.set(field, value.toString(), ...hashLimits(ctx));
  ctx.modified(key);
  ctx.notify(NOTIFY_HASH, 'hincrby', key);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function hincrbyfloat(ctx: Context, argv: Buffer[]): Reply {
  const incr = parseLongDouble(argv[3]!);
  if (incr === undefined) fail(Errors.notFloat);
  if (incr.inf) fail(Errors.incrementNanOrInfinity);
  const key = keyOf(argv[1]!);
  const hash = lookupOrCreateHash(ctx.db, key);
  const field = keyOf(argv[2]!);
  const current = hash.getString(field);
  const base = parseLongDouble(current ?? '0');
  if (base === undefined) fail(Errors.hashNotFloat);
  const sum = addLongDouble(base, incr);
  if (sum === undefined || sum.inf) fail(Errors.nanOrInfinity);
  const text = formatLongDouble(sum);
  hash.set(field, text, ...hashLimits(ctx));
  ctx.modified(key);
  ctx.notify(NOTIFY_HASH, 'hincrbyfloat', key);
  // Logged as the resulting value, as Redis does, so replay does not redo float arithmetic.
  ctx.propagate(['HSET', argv[1]!, argv[2]!, text]);
  return text;
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
// ACL categories in Redis's order (read/write, then the family, then fast/slow), as COMMAND INFO lists them.
const cat = (access: string, speed: string) => ({ categories: [access, 'hash', speed] });

export const commands: CommandSpec[] = [
  inPlaceCommand('hset', -4, ['write', 'denyoom', 'fast'], ONE_KEY, hsetGeneric('hset'), cat('write', 'fast')),
  inPlaceCommand('hmset', -4, ['write', 'denyoom', 'fast'], ONE_KEY, hsetGeneric('hmset'), cat('write', 'fast')),
  inPlaceCommand('hsetnx', 4, ['write', 'denyoom', 'fast'], ONE_KEY, hsetnx, cat('write', 'fast')),
  inPlaceCommand('hget', 3, ['readonly', 'fast'], ONE_KEY, hget, cat('read', 'fast')),
  inPlaceCommand('hmget', -3, ['readonly', 'fast'], ONE_KEY, hmget, cat('read', 'fast')),
  command('hgetall', 2, ['readonly'], ONE_KEY, hgetall, cat('read', 'slow')),
  command('hrandfield', -2, ['readonly'], ONE_KEY, hrandfield, cat('read', 'slow')),
  command('hscan', -3, ['readonly'], ONE_KEY, hscan, cat('read', 'slow')),
  command('hdel', -3, ['write', 'fast'], ONE_KEY, hdel, cat('write', 'fast')),
  inPlaceCommand('hlen', 2, ['readonly', 'fast'], ONE_KEY, hlen, cat('read', 'fast')),
  command('hstrlen', 3, ['readonly', 'fast'], ONE_KEY, hstrlen, cat('read', 'fast')),
  command('hexists', 3, ['readonly', 'fast'], ONE_KEY, hexists, cat('read', 'fast')),
  command('hkeys', 2, ['readonly'], ONE_KEY, hkeys, cat('read', 'slow')),
  command('hvals', 2, ['readonly'], ONE_KEY, hvals, cat('read', 'slow')),
  inPlaceCommand('hincrby', 4, ['write', 'denyoom', 'fast'], ONE_KEY, hincrby, cat('write', 'fast')),
  command('hincrbyfloat', 4, ['write', 'denyoom', 'fast'], ONE_KEY, hincrbyfloat, cat('write', 'fast')),
];
