// Set commands (t_set.c) used by the broker's receipts: SADD, SREM, SCARD, SISMEMBER,
// SMISMEMBER, SMEMBERS. Integer sets reply in ascending order, as Redis's intset does.
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { SetValue } from '../engine/set.js';
import { type Reply, SetReply } from '../resp/reply.js';
import { removeMembersCommand } from './members.js';
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
  for (let i = 2; i < args.length; i++) if (set.add(args.key(i))) added++;
  if (added > 0) ctx.modified(key);
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

const ONE_KEY = { first: 1, last: 1, step: 1 };
// ACL categories in Redis's order (read/write, then the family, then fast/slow), as COMMAND INFO lists them.
const cat = (access: string, speed: string) => ({ categories: [access, 'set', speed] });

export const commands: CommandSpec[] = [
  inPlaceCommand('sadd', -3, ['write', 'denyoom', 'fast'], ONE_KEY, sadd, cat('write', 'fast')),
  command('srem', -3, ['write', 'fast'], ONE_KEY, srem, cat('write', 'fast')),
  command('scard', 2, ['readonly', 'fast'], ONE_KEY, scard, cat('read', 'fast')),
  command('sismember', 3, ['readonly', 'fast'], ONE_KEY, sismember, cat('read', 'fast')),
  command('smismember', -3, ['readonly', 'fast'], ONE_KEY, smismember, cat('read', 'fast')),
  command('smembers', 2, ['readonly'], ONE_KEY, smembers, cat('read', 'slow')),
];
