// COPY source destination [DB index] [REPLACE] and MOVE key db (db.c of Redis 7.0): a key
// duplicated, or moved to another database, with its expiry. A copy is a deep one, made through
// the DUMP serialisation, which every type has (a stream with its groups, consumers and PEL).
import { NOTIFY_GENERIC } from './keyspace-events.js';
import { DATABASE_COUNT, keyOf } from '../engine/keyspace.js';
import { dumpPayload, parseDumpPayload } from '../rdb/dump-payload.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { integerArg, lower } from './args.js';
import { command, type CommandSpec, type Context } from './types.js';

/** A database index argument: an int (getIntFromObjectOrReply), then one of the databases. */
function dbIndex(arg: Buffer): number {
  const index = integerArg(arg);
  if (index < 0 || index >= DATABASE_COUNT) fail(Errors.dbIndexOutOfRange);
  return index;
}

function copy(ctx: Context, argv: Buffer[]): Reply {
  let replace = false;
  let target = ctx.db.index;
  for (let j = 3; j < argv.length; j++) {
    const opt = lower(argv[j]!);
    if (opt === 'replace') replace = true;
    else if (opt === 'db' && j + 1 < argv.length) target = dbIndex(argv[++j]!);
    else fail(Errors.syntax);
  }
  const key = keyOf(argv[1]!);
  const newKey = keyOf(argv[2]!);
  if (target === ctx.db.index && key === newKey) fail(Errors.sameObject);
  const value = ctx.db.get(key);
  if (value === undefined) return 0;
  const expireAt = ctx.db.getExpire(key);
  const dst = ctx.instance.keyspace.db(target);
  if (dst.get(newKey) !== undefined) {
    if (!replace) return 0;
    dst.delete(newKey);
  }
  dst.set(newKey, parseDumpPayload(dumpPayload(value)));
  if (expireAt !== undefined) dst.setExpire(newKey, expireAt);
  ctx.modified(newKey, target);
  ctx.notify(NOTIFY_GENERIC, 'copy_to', newKey, target);
  return 1;
}

function move(ctx: Context, argv: Buffer[]): Reply {
  const target = dbIndex(argv[2]!);
  if (target === ctx.db.index) fail(Errors.sameObject);
  const key = keyOf(argv[1]!);
  const value = ctx.db.get(key);
  if (value === undefined) return 0;
  const dst = ctx.instance.keyspace.db(target);
  if (dst.get(key) !== undefined) return 0;
  const expireAt = ctx.db.getExpire(key);
  ctx.db.delete(key);
  dst.set(key, value);
  if (expireAt !== undefined) dst.setExpire(key, expireAt);
  ctx.modified(key);
  ctx.modified(key, target);
  ctx.notify(NOTIFY_GENERIC, 'move_from', key);
  ctx.notify(NOTIFY_GENERIC, 'move_to', key, target);
  return 1;
}

export const commands: CommandSpec[] = [
  command('copy', -3, ['write', 'denyoom'], { first: 1, last: 2, step: 1 }, copy, { categories: ['keyspace', 'write', 'slow'] }),
  command('move', 3, ['write', 'fast'], { first: 1, last: 1, step: 1 }, move, { categories: ['keyspace', 'write', 'fast'] }),
];
