// DEBUG, as Redis 7.0's debugCommand: one command (not a container: COMMAND INFO shows no
// subcommands) whose first argument picks the action. Refused unless `enable-debug-command`
// allows it (core/protected.ts). RELOAD and LOADAOF go through the instance's DatasetControl,
// implemented by the persistence layer.
import { scriptsOf } from './lua/script-engine.js';
import { keyOf } from '../engine/keyspace.js';
import { BooleanReply, DoubleReply, ErrorReply, MapReply, OK, SetReply, SimpleString, VerbatimReply, fail, type Reply } from '../resp/reply.js';
import { Buffer } from 'node:buffer';
import { ScriptReply } from './lua/script-reply.js';
import { datasetDigest, valueDigest } from './dataset-digest.js';
import { debugObject } from './debug-object.js';
import { Errors } from '../resp/errors.js';
import { lower, parseInt64, text } from './args.js';
import { helpReply, subcommandSyntaxError } from './help.js';
import type { DatasetControl } from './core/persistence.js';
import { command, type CommandSpec, type Context } from './types.js';

const HELP = [
  'CHANGE-REPL-ID',
  '    Change the replication IDs of the instance.',
  '    Dangerous: should be used only for testing the replication subsystem.',
  'DIGEST',
  '    Output a hex signature representing the current DB content.',
  'DIGEST-VALUE <key> [<key> ...]',
  '    Output a hex signature of the values of all the specified keys.',
  'ERROR <string>',
  '    Return a Redis protocol error with <string> as message. Useful for clients',
  '    unit tests to simulate Redis errors.',
  'LOG <message>',
  '    Write <message> to the server log.',
  'LOADAOF',
  '    Flush the AOF buffers on disk and reload the AOF in memory.',
  'OBJECT <key>',
  '    Show low level info about `key` and associated value.',
  'POPULATE <count> [<prefix>] [<size>]',
  '    Create <count> string keys named key:<num>. If <prefix> is specified then',
  "    it is used instead of the 'key' prefix. These are not propagated to",
  '    replicas. Cluster slots are not respected so keys not belonging to the',
  '    current node can be created in cluster mode.',
  'RELOAD [option ...]',
  '    Save the RDB on disk and reload it back to memory. Valid <option> values:',
  '    * MERGE: conflicting keys will be loaded from RDB.',
  '    * NOFLUSH: the existing database will not be removed before load, but',
  '      conflicting keys will generate an exception and kill the server.',
  '    * NOSAVE: the database will be loaded from an existing RDB file.',
  '    Examples:',
  '    * DEBUG RELOAD: verify that the server is able to persist, flush and reload',
  '      the database.',
  '    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an',
  '      existing RDB file.',
  '    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB',
  '      file to the database.',
  'SET-ACTIVE-EXPIRE <0|1>',
  '    Setting it to 0 disables expiring keys in background when they are not',
  '    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the',
  '    default.',
  'SLEEP <seconds>',
  '    Stop the server for <seconds>. Decimals allowed.',
];

/** C's strtod/atoi on a prefix: Redis's DEBUG SLEEP and SET-ACTIVE-EXPIRE never reject a number. */
function leadingNumber(arg: Buffer): number {
  const n = Number.parseFloat(text(arg).trimStart());
  return Number.isFinite(n) ? n : 0;
}

function control(ctx: Context): DatasetControl {
  const c = ctx.instance.datasetControl;
  if (c === null) fail(Errors.debugNoPersistence);
  return c;
}

function reload(ctx: Context, argv: Buffer[]): Reply {
  const options = { flush: true, save: true, merge: false };
  for (const arg of argv.slice(2)) {
    const opt = lower(arg);
    if (opt === 'merge') options.merge = true;
    else if (opt === 'noflush') options.flush = false;
    else if (opt === 'nosave') options.save = false;
    else fail(Errors.debugReloadOptions);
  }
  control(ctx).reload(options);
  ctx.instance.logger.warn('sluice: DB reloaded by DEBUG RELOAD');
  return OK;
}

function loadAof(ctx: Context): Promise<Reply> {
  // Loading yields between files; a transaction must run to its end without yielding.
  if (ctx.noBlock) fail(Errors.debugLoadaofInMulti);
  return control(ctx).loadAof().then(() => {
    ctx.instance.logger.warn('sluice: Append Only File loaded by DEBUG LOADAOF');
    return OK;
  });
}

/** getPositiveLongFromObjectOrReply without a message: one error for a text and for a negative. */
function positiveLong(arg: Buffer): number {
  const v = parseInt64(arg);
  if (v === undefined || v < 0n) fail(Errors.notPositive);
  return Number(v);
}

/** Keys DEBUG POPULATE makes at most: dictTryExpand refuses a table past memory (Redis answers OOM). */
const MOST_POPULATED = 1 << 30;

/**
 * DEBUG POPULATE count [prefix] [size]: keys `prefix:0` ... (`key:` by default, cut at 127
 * bytes as debug.c's buffer does) holding `value:N`, cut or zero-padded to `size`; a key that
 * exists is left alone. As in Redis nothing is propagated (dbAdd does not count as a change):
 * the replication tests populate a replica's dataset on their own.
 */
function populate(ctx: Context, argv: Buffer[]): Reply {
  const count = positiveLong(argv[2]!);
  const size = argv.length === 5 ? positiveLong(argv[4]!) : 0;
  if (count > MOST_POPULATED) fail(Errors.debugPopulateOom);
  let prefix = argv.length >= 4 ? argv[3]!.toString('latin1') : 'key';
  // %s stops at a NUL byte.
  const nul = prefix.indexOf('\0');
  if (nul >= 0) prefix = prefix.slice(0, nul);
  const db = ctx.db;
  for (let j = 0; j < count; j++) {
    const key = `${prefix}:${j}`.slice(0, 127);
    if (db.get(key) !== undefined) continue;
    const text = Buffer.from(`value:${j}`, 'latin1');
    let value = text;
    if (size > 0) {
      value = Buffer.alloc(size);
      text.copy(value, 0, 0, Math.min(size, text.length));
    }
    db.set(key, value);
    ctx.instance.keyspace.signalModified(db.index, key);
  }
  return OK;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** DEBUG SLEEP freezes the whole server, as in Redis (its tests use it to stall a primary or replica). */
function sleep(argv: Buffer[]): Reply {
  const seconds = leadingNumber(argv[2]!);
  if (seconds > 0) Atomics.wait(sleeper, 0, 0, seconds * 1000);
  return OK;
}

function debug(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const sub = lower(argv[1]!);
  const argc = argv.length;
  if (sub === 'help' && argc === 2) return helpReply('DEBUG', HELP);
  if (sub === 'sleep' && argc === 3) return sleep(argv);
  if (sub === 'log' && argc === 3) {
    ctx.instance.logger.warn(`sluice: DEBUG LOG: ${text(argv[2]!)}`);
    return OK;
  }
  if (sub === 'reload') return reload(ctx, argv);
  if (sub === 'loadaof') return loadAof(ctx);
  if (sub === 'set-active-expire' && argc === 3) {
    ctx.instance.activeExpireEnabled = Math.trunc(leadingNumber(argv[2]!)) !== 0;
    return OK;
  }
  if (sub === 'protocol' && argc === 3) return debugProtocol(ctx, lower(argv[2]!));
  if (sub === 'set-disable-deny-scripts' && argc === 3) {
    // Lets scripts call noscript commands (Redis's tests use it to reach DEBUG PROTOCOL).
    scriptsOf(ctx.instance).denyScriptDisabled = Math.trunc(leadingNumber(argv[2]!)) !== 0;
    return OK;
  }
  if (sub === 'change-repl-id' && argc === 2) {
    ctx.instance.replication.changeId();
    ctx.instance.logger.warn('sluice: Changing replication IDs after receiving DEBUG change-repl-id');
    return OK;
  }
  if (sub === 'object' && argc === 3) return debugObject(ctx, argv[2]!);
  if (sub === 'populate' && argc >= 3 && argc <= 5) return populate(ctx, argv);
  if (sub === 'digest' && argc === 2) return new SimpleString(datasetDigest(ctx.instance));
  if (sub === 'digest-value' && argc >= 2) return argv.slice(2).map((k) => new SimpleString(valueDigest(ctx.db, keyOf(k))));
  if (sub === 'error' && argc === 3) return new ErrorReply(text(argv[2]!).replace(/[\r\n]/g, ' '));
  fail(subcommandSyntaxError(argv[1]!, 'DEBUG'));
}

export const commands: CommandSpec[] = [
  command('debug', -2, ['admin', 'noscript', 'loading', 'stale'], null, debug, {
    categories: ['admin', 'slow', 'dangerous'],
    summary: 'A container for debugging commands',
    since: '1.0.0',
    group: 'server',
  }),
];

const BIGNUM = '1234567999999999999999999999999999999';
const ATTRIB_REPLY = 'Some real reply following the attribute';
const PUSH_REPLY = 'Some real reply following the push reply';

/** DEBUG PROTOCOL <type>: a reply of each RESP type (debug.c); the RESP3-only ones as raw bytes. */
function debugProtocol(ctx: Context, type: string): Reply {
  const resp3 = ctx.client.resp === 3;
  const raw = (text: string): Reply => new ScriptReply(Buffer.from(text, 'latin1'));
  switch (type) {
    case 'string': return 'Hello World';
    case 'integer': return 12345;
    case 'double': return new DoubleReply(3.141);
    case 'bignum': return resp3 ? raw(`(${BIGNUM}\r\n`) : BIGNUM;
    case 'null': return null;
    case 'array': return [0, 1, 2];
    case 'set': return new SetReply([0, 1, 2]);
    case 'map': return new MapReply([0, 1, 2].map((j) => [j, new BooleanReply(j === 1)]));
    case 'attrib':
      return resp3 ? raw(`|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$${ATTRIB_REPLY.length}\r\n${ATTRIB_REPLY}\r\n`) : ATTRIB_REPLY;
    case 'push':
      if (!resp3) return new ErrorReply(Errors.resp2NotSupported);
      return raw(`>2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$${PUSH_REPLY.length}\r\n${PUSH_REPLY}\r\n`);
    case 'true': return new BooleanReply(true);
    case 'false': return new BooleanReply(false);
    case 'verbatim': return new VerbatimReply('txt', 'This is a verbatim\nstring');
    default: return new ErrorReply(Errors.debugProtocolType);
  }
}
