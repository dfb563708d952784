// Set commands (t_set.c of Redis 7.0): SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS,
// SMOVE, SSCAN here, and the whole family's table. Integer sets reply in ascending order, as
// Redis's intset does. Random members: set-random.ts; intersections, unions, differences:
// set-algebra.ts.
import { NOTIFY_GENERIC, NOTIFY_SET } from './keyspace-events.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { SetValue } from '../engine/set.js';
import { type Reply, SetReply } from '../resp/reply.js';
import { removeMembersCommand } from './members.js';
import { parseCursor } from './keys.js';
import { intsetLimit, sdiff, sdiffstore, sinter, sintercard, sintercardKeys, sinterstore, sunion, sunionstore } from './set-algebra.js';
import { spop, srandmember } from './set-random.js';
import { sscanReply } from './set-scan.js';
import type { RequestArgs } from '../resp/request-args.js';
import { command, type CommandSpec, type Context, inPlaceCommand } from './types.js';
import { lookupTyped } from './typed-lookup.js';

function sadd(ctx: Context, args: RequestArgs): Reply {
  const key = args.key(1);
  let set = lookupTyped(ctx.db, key, 'set');
  if (set === undefined) {
    set = new SetValue();
    ctx.db.set(key, set);
  }
  let added = 0;
  const maxIntset = intsetLimit(ctx);
  for (let i = 2; i < args.length; i++) if (set.add(args.key(i), maxIntset)) added++;
  if (added > 0) {
    ctx.modified(key);
    ctx.notify(NOTIFY_SET, 'sadd', key);
  }
  return added;
}

const srem = removeMembersCommand('set');

function scard(ctx: Context, argv: Buffer[]): Reply {
  return lookupTyped(ctx.db, keyOf(argv[1]!), 'set')?.size ?? 0;
}

function sismember(ctx: Context, argv: Buffer[]): Reply {
  return lookupTyped(ctx.db, keyOf(argv[1]!), 'set')?.has(keyOf(argv[2]!)) === true ? 1 : 0;
}

function smismember(ctx: Context, argv: Buffer[]): Reply {
  const set = lookupTyped(ctx.db, keyOf(argv[1]!), 'set');
  const out: Reply[] = [];
  for (let i = 2; i < argv.length; i++) out.push(set?.has(keyOf(argv[i]!)) === true ? 1 : 0);
  return out;
}

function smembers(ctx: Context, argv: Buffer[]): Reply {
  const set = lookupTyped(ctx.db, keyOf(argv[1]!), 'set');
  return new SetReply(set === undefined ? [] : set.list().map(keyBytes));
}

/** SMOVE source destination member: logged as itself (it picks nothing at random). */
function smove(ctx: Context, argv: Buffer[]): Reply {
  const srcKey = keyOf(argv[1]!);
  const dstKey = keyOf(argv[2]!);
  const src = ctx.db.get(srcKey);
  // A missing source answers 0 before any type is checked, as Redis does.
  if (src === undefined) return 0;
  const srcSet = lookupTyped(ctx.db, srcKey, 'set')!;
  let dstSet = lookupTyped(ctx.db, dstKey, 'set');
  const member = keyOf(argv[3]!);
  if (srcSet === dstSet) return srcSet.has(member) ? 1 : 0;
  if (!srcSet.delete(member)) return 0;
  if (srcSet.size === 0) ctx.db.delete(srcKey);
  if (dstSet === undefined) {
    dstSet = new SetValue();
    ctx.db.set(dstKey, dstSet);
  }
  ctx.modified(srcKey);
  ctx.notify(NOTIFY_SET, 'srem', srcKey);
  if (srcSet.size === 0) ctx.notify(NOTIFY_GENERIC, 'del', srcKey);
  if (dstSet.add(member, intsetLimit(ctx))) {
    ctx.modified(dstKey);
    ctx.notify(NOTIFY_SET, 'sadd', dstKey);
  }
  return 1;
}

/** SSCAN key cursor [MATCH pattern] [COUNT count] */
function sscan(ctx: Context, argv: Buffer[]): Reply {
  const cursor = parseCursor(argv[2]!);
  return sscanReply(ctx, argv, cursor, lookupTyped(ctx.db, keyOf(argv[1]!), 'set'));
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
const TWO_KEYS = { first: 1, last: 2, step: 1 };
const ALL_KEYS = { first: 1, last: -1, step: 1 };
// ACL categories in Redis's order (read/write, then the family, then fast/slow), as COMMAND INFO lists them.
const cat = (access: string, speed: string) => ({ categories: [access, 'set', speed] });

export const commands: CommandSpec[] = [
  inPlaceCommand('sadd', -3, ['write', 'denyoom', 'fast'], ONE_KEY, sadd, cat('write', 'fast')),
  command('srem', -3, ['write', 'fast'], ONE_KEY, srem, cat('write', 'fast')),
  command('scard', 2, ['readonly', 'fast'], ONE_KEY, scard, cat('read', 'fast')),
  command('sismember', 3, ['readonly', 'fast'], ONE_KEY, sismember, cat('read', 'fast')),
  command('smismember', -3, ['readonly', 'fast'], ONE_KEY, smismember, cat('read', 'fast')),
  command('smembers', 2, ['readonly'], ONE_KEY, smembers, cat('read', 'slow')),
  command('spop', -2, ['write', 'fast'], ONE_KEY, spop, cat('write', 'fast')),
  command('srandmember', -2, ['readonly'], ONE_KEY, srandmember, cat('read', 'slow')),
  command('smove', 4, ['write', 'fast'], TWO_KEYS, smove, cat('write', 'fast')),
  command('sinter', -2, ['readonly'], ALL_KEYS, sinter, cat('read', 'slow')),
  command('sintercard', -3, ['readonly', 'movablekeys'], null, sintercard, { keys: sintercardKeys, ...cat('read', 'slow') }),
  command('sinterstore', -3, ['write', 'denyoom'], ALL_KEYS, sinterstore, cat('write', 'slow')),
  command('sunion', -2, ['readonly'], ALL_KEYS, sunion, cat('read', 'slow')),
  command('sunionstore', -3, ['write', 'denyoom'], ALL_KEYS, sunionstore, cat('write', 'slow')),
  command('sdiff', -2, ['readonly'], ALL_KEYS, sdiff, cat('read', 'slow')),
  command('sdiffstore', -3, ['write', 'denyoom'], ALL_KEYS, sdiffstore, cat('write', 'slow')),
  command('sscan', -3, ['readonly'], ONE_KEY, sscan, cat('read', 'slow')),
];
