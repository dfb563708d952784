// XGROUP (CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER, HELP) and XACK, as Redis
// 7.0's t_stream.c. Group state changes count as dirty (ctx.addDirty) without ctx.modified:
// in Redis 7.0 none of these touches WATCHed keys (checked on redis-server). Only a stream
// created by MKSTREAM and XGROUP DESTROY (which must wake blocked XREADGROUPs with NOGROUP)
// signal the key. XGROUP and XACK propagate themselves.
import { NOTIFY_STREAM } from '../keyspace-events.js';
import { Buffer } from 'node:buffer';
import { ConsumerGroup, INVALID_ENTRIES_READ } from '../../engine/consumer-group.js';
import { keyOf } from '../../engine/keyspace.js';
import { Stream } from '../../engine/stream.js';
import { MIN_ID, type StreamId } from '../../engine/stream-id.js';
import { parseStreamId, parseStrictId } from './ids.js';
import { ErrorReply, fail, OK, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { int64Arg, isKeyword } from '../args.js';
import { helpReply, subcommandSyntaxError } from '../help.js';
import type { RequestArgs } from '../../resp/request-args.js';
import { command, type CommandSpec, container, type Context, inPlaceCommand } from '../types.js';
import { lookupGroup, noSuchGroupForKey, nowMs, oneKey } from './common.js';
import { lookupTyped } from '../typed-lookup.js';

// --- XGROUP ------------------------------------------------------------------------------------

const XGROUP_HELP = [
  'CREATE <key> <groupname> <id|$> [option]',
  '    Create a new consumer group. Options are:',
  '    * MKSTREAM',
  '      Create the empty stream if it does not exist.',
  '    * ENTRIESREAD entries_read',
  "      Set the group's entries_read counter (internal use).",
  'CREATECONSUMER <key> <groupname> <consumer>',
  '    Create a new consumer in the specified group.',
  'DELCONSUMER <key> <groupname> <consumer>',
  '    Remove the specified consumer.',
  'DESTROY <key> <groupname>',
  '    Remove the specified group.',
  'SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]',
  '    Set the current group ID and entries_read counter.',
];

function parseEntriesRead(arg: Buffer): bigint {
  const v = int64Arg(arg);
  if (v < 0n && v !== INVALID_ENTRIES_READ) fail(Errors.entriesReadNegative);
  return v;
}

interface GroupTarget {
  key: string;
  stream: Stream | undefined;
  group: ConsumerGroup | undefined;
}

/**
 * The prelude xgroupCommand runs for every subcommand but HELP: the key must hold a stream
 * (unless MKSTREAM), and SETID / CREATECONSUMER / DELCONSUMER need the group.
 */
function groupTarget(ctx: Context, argv: Buffer[], mkstream: boolean, needsGroup: boolean): GroupTarget {
  const key = keyOf(argv[2]!);
  const stream = lookupTyped(ctx.db, key, 'stream');
  let group: ConsumerGroup | undefined;
  if (!mkstream) {
    if (stream === undefined) {
      fail(Errors.xgroupNoKey);
    }
    group = lookupGroup(stream, argv[3]!);
    if (group === undefined && needsGroup) fail(noSuchGroupForKey(argv[2]!, argv[3]!));
  } else {
    group = lookupGroup(stream, argv[3]!);
  }
  return { key, stream, group };
}

function xgroupCreate(ctx: Context, argv: Buffer[]): Reply {
  let mkstream = false;
  let entriesRead = INVALID_ENTRIES_READ;
  for (let i = 5; i < argv.length; ) {
    if (isKeyword(argv[i], 'mkstream')) {
      mkstream = true;
      i++;
    } else if (isKeyword(argv[i], 'entriesread') && i + 1 < argv.length) {
      entriesRead = parseEntriesRead(argv[i + 1]!);
      i += 2;
    } else {
      fail(subcommandSyntaxError(argv[1]!, 'XGROUP'));
    }
  }
  const target = groupTarget(ctx, argv, mkstream, false);
  if (argv.length > 8) fail(subcommandSyntaxError(argv[1]!, 'XGROUP'));
  let id: StreamId;
  if (argv[4]!.toString('latin1') === '$') id = target.stream?.lastId ?? MIN_ID;
  else id = parseStrictId(argv[4]!);
  let stream = target.stream;
  if (stream === undefined) {
    stream = new Stream();
    ctx.db.set(target.key, stream);
    ctx.modified(target.key);
  }
  const name = argv[3]!.toString('latin1');
  if (stream.groups.has(name)) return new ErrorReply(Errors.busyGroup);
  stream.groups.set(name, new ConsumerGroup(Buffer.from(argv[3]!), id, entriesRead));
  ctx.addDirty(1);
  ctx.notify(NOTIFY_STREAM, 'xgroup-create', target.key);
  return OK;
}

function xgroupSetId(ctx: Context, argv: Buffer[]): Reply {
  // Options are parsed before the key is looked up, as for CREATE.
  let entriesRead = INVALID_ENTRIES_READ;
  for (let i = 5; i < argv.length; i += 2) {
    if (!isKeyword(argv[i], 'entriesread') || i + 1 >= argv.length) fail(subcommandSyntaxError(argv[1]!, 'XGROUP'));
    entriesRead = parseEntriesRead(argv[i + 1]!);
  }
  const { stream, group } = groupTarget(ctx, argv, false, true);
  if (argv.length !== 5 && argv.length !== 7) fail(subcommandSyntaxError(argv[1]!, 'XGROUP'));
  let id: StreamId;
  if (argv[4]!.toString('latin1') === '$') id = stream!.lastId;
  else id = parseStreamId(argv[4]!);
  group!.lastId = id;
  group!.entriesRead = entriesRead;
  ctx.addDirty(1);
  ctx.notify(NOTIFY_STREAM, 'xgroup-setid', keyOf(argv[2]!));
  return OK;
}

function xgroupDestroy(ctx: Context, argv: Buffer[]): Reply {
  const { key, stream, group } = groupTarget(ctx, argv, false, false);
  if (group === undefined) return 0;
  stream!.groups.delete(group.key);
  // Wakes XREADGROUP clients blocked on this group: they get NOGROUP.
  ctx.modified(key);
  ctx.notify(NOTIFY_STREAM, 'xgroup-destroy', key);
  return 1;
}

function xgroupCreateConsumer(ctx: Context, argv: Buffer[]): Reply {
  const { group } = groupTarget(ctx, argv, false, true);
  const created = group!.createConsumer(argv[4]!, nowMs(ctx));
  if (created === undefined) return 0;
  ctx.addDirty(1);
  ctx.notify(NOTIFY_STREAM, 'xgroup-createconsumer', keyOf(argv[2]!));
  return 1;
}

function xgroupDelConsumer(ctx: Context, argv: Buffer[]): Reply {
  const { group } = groupTarget(ctx, argv, false, true);
  const consumer = group!.consumer(argv[4]!);
  if (consumer === undefined) return 0;
  const pending = group!.deleteConsumer(consumer);
  ctx.addDirty(1);
  ctx.notify(NOTIFY_STREAM, 'xgroup-delconsumer', keyOf(argv[2]!));
  return pending;
}

const groupKeys = { first: 2, last: 2, step: 1 };

export const xgroupSpec = container('xgroup', -2, [
  command('create', -5, ['write', 'denyoom'], groupKeys, xgroupCreate, { categories: ['write', 'stream', 'slow'] }),
  command('setid', -5, ['write'], groupKeys, xgroupSetId, { categories: ['write', 'stream', 'slow'] }),
  command('destroy', 4, ['write'], groupKeys, xgroupDestroy, { categories: ['write', 'stream', 'slow'] }),
  command('createconsumer', 5, ['write', 'denyoom'], groupKeys, xgroupCreateConsumer, {
    categories: ['write', 'stream', 'slow'],
  }),
  command('delconsumer', 5, ['write'], groupKeys, xgroupDelConsumer, { categories: ['write', 'stream', 'slow'] }),
  command('help', 2, ['loading', 'stale'], null, () => helpReply('XGROUP', XGROUP_HELP), { categories: ['stream', 'slow'] }),
], { categories: ['slow'] });

// --- XACK ----------------------------------------------------------------------------------------

function xack(ctx: Context, args: RequestArgs): Reply {
  const s = lookupTyped(ctx.db, args.key(1), 'stream');
  // Group names are held as latin1 strings, as keys are.
  const g = s?.groups.get(args.key(2));
  if (g === undefined) return 0;
  // All ids are parsed first: the command acknowledges all or nothing.
  const ids = new Array<StreamId>(args.length - 3);
  for (let i = 3; i < args.length; i++) ids[i - 3] = parseStrictId(args.buffer(i));
  let acked = 0;
  for (const id of ids) {
    if (g.ack(id)) {
      acked++;
      ctx.addDirty(1);
    }
  }
  return acked;
}

export const xackSpec: CommandSpec = inPlaceCommand('xack', -4, ['write', 'fast'], oneKey, xack, {
  categories: ['write', 'stream', 'fast'],
});
