// The stream read commands without consumer groups: XLEN, XRANGE, XREVRANGE and XREAD, with
// Redis 7.0's argument checks in its order.
import { keyOf } from '../../engine/keyspace.js';
import { Stream } from '../../engine/stream.js';
import {
  compareIds,
  decrementId,
  incrementId,
  MAX_ID,
  MIN_ID,
  type StreamId,
} from '../../engine/stream-id.js';
import { parseRangeBound, parseStrictId } from './ids.js';
import { fail, NULL_ARRAY, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { ArgCursor } from '../arg-cursor.js';
import { type Context, command } from '../types.js';
import { oneKey, streamsReply } from './common.js';
import { EntriesReply } from './entries-reply.js';
import { parseReadArgs, type ReadArgs, readKeyPositions } from './read-args.js';
import { lookupTyped } from '../typed-lookup.js';

// --- XLEN --------------------------------------------------------------------------------------

function xlen(ctx: Context, argv: Buffer[]): Reply {
  return lookupTyped(ctx.db, keyOf(argv[1]!), 'stream')?.length ?? 0;
}

// --- XRANGE / XREVRANGE ------------------------------------------------------------------------

function xrangeGeneric(ctx: Context, argv: Buffer[], reverse: boolean): Reply {
  const start = parseRangeBound(reverse ? argv[3]! : argv[2]!, false);
  const end = parseRangeBound(reverse ? argv[2]! : argv[3]!, true);
  let count = -1;
  const cur = new ArgCursor(argv, 4);
  while (!cur.done) {
    if (cur.keyword() === 'count' && cur.remaining > 0) count = cur.count();
    else fail(Errors.syntax);
  }
  const s = lookupTyped(ctx.db, keyOf(argv[1]!), 'stream');
  if (s === undefined) return [];
  if (count === 0) return NULL_ARRAY;
  return new EntriesReply(s.rangeRefs(start, end, count < 0 ? 0 : count, reverse));
}

// --- XREAD -------------------------------------------------------------------------------------

interface XreadRequest {
  args: ReadArgs;
  keyArgs: Buffer[];
  keys: string[];
  /** Per key: entries after this id are read ("$" and "+" resolved when parsed). */
  after: StreamId[];
}

/** The options, then each key's id in key order (a key of another type fails first). */
function parseXread(ctx: Context, argv: Buffer[]): XreadRequest {
  const args = parseReadArgs(argv, false, ctx.client.fromScript);
  const keyArgs = argv.slice(args.streamsAt, args.streamsAt + args.streamCount);
  const keys: string[] = [];
  const after: StreamId[] = [];
  keyArgs.forEach((keyArg, k) => {
    const key = keyOf(keyArg);
    const s = lookupTyped(ctx.db, key, 'stream');
    const idArg = argv[args.streamsAt + args.streamCount + k]!;
    keys.push(key);
    if (idArg.length === 1 && idArg[0] === 0x24 /* $ */) {
      after.push(s?.lastId ?? MIN_ID); // resolved now, so only later entries are returned
    } else if (idArg.length === 1 && idArg[0] === 0x3e /* > */) {
      fail(Errors.greaterThanOutsideGroup);
    } else if (idArg.length === 1 && idArg[0] === 0x2b /* + */) {
      // Redis 7.4: "+" reads the last entry (everything after last_id - 1).
      after.push(s === undefined ? MIN_ID : (decrementId(s.lastId) ?? MIN_ID));
    } else {
      after.push(parseStrictId(idArg));
    }
  });
  return { args, keyArgs, keys, after };
}

/** The entries of stream k after its requested id. */
function readAfter(s: Stream, req: XreadRequest, k: number): Reply {
  const start = incrementId(req.after[k]!)!;
  return new EntriesReply(s.rangeRefs(start, MAX_ID, req.args.count, false));
}

function applyXread(ctx: Context, req: XreadRequest): Reply | Promise<Reply> {
  const items: Array<[Buffer, Reply]> = [];
  req.keys.forEach((key, k) => {
    const s = lookupTyped(ctx.db, key, 'stream');
    const last = s?.lastLiveId();
    if (last !== undefined && compareIds(last, req.after[k]!) > 0) items.push([req.keyArgs[k]!, readAfter(s!, req, k)]);
  });
  if (items.length > 0) return streamsReply(ctx, items);
  if (req.args.block < 0 || ctx.noBlock) return NULL_ARRAY;

  // Served by the first of the keys whose last_id moves past the requested id, as Redis's
  // serveClientBlockedOnKey: only that stream is in the reply.
  return ctx.block(
    req.keys,
    req.args.block,
    (retryCtx) => {
      for (let k = 0; k < req.keys.length; k++) {
        // Woken when last_id moves, even by XSETID (then with no entries), as Redis.
        const value = retryCtx.db.get(req.keys[k]!);
        if (!(value instanceof Stream) || compareIds(value.lastId, req.after[k]!) <= 0) continue;
        return streamsReply(retryCtx, [[req.keyArgs[k]!, readAfter(value, req, k)]]);
      }
      return undefined;
    },
    NULL_ARRAY,
  );
}

function xread(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  return applyXread(ctx, parseXread(ctx, argv));
}

export const xrangeSpec = command('xrange', -4, ['readonly'], oneKey, (ctx, argv) => xrangeGeneric(ctx, argv, false), {
  categories: ['read', 'stream', 'slow'],
  summary: 'Returns the messages from a stream within a range of IDs.',
  since: '5.0.0',
  group: 'stream',
});

export const xrevrangeSpec = command('xrevrange', -4, ['readonly'], oneKey, (ctx, argv) => xrangeGeneric(ctx, argv, true), {
  categories: ['read', 'stream', 'slow'],
  summary: 'Returns the messages from a stream within a range of IDs in reverse order.',
  since: '5.0.0',
  group: 'stream',
});

export const xlenSpec = command('xlen', 2, ['readonly', 'fast'], oneKey, xlen, {
  categories: ['read', 'stream', 'fast'],
  summary: 'Return the number of messages in a stream.',
  since: '5.0.0',
  group: 'stream',
});

export const xreadSpec = command('xread', -4, ['readonly', 'blocking', 'movablekeys'], null, xread, {
  keys: (argv) => readKeyPositions(argv, ['block', 'count']),
  categories: ['read', 'stream', 'slow', 'blocking'],
  summary: 'Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.',
  since: '5.0.0',
  group: 'stream',
});
