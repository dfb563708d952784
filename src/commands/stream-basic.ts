// Stream commands without consumer groups: XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM,
// XREAD, XSETID. Argument parsing, checks and their order follow Redis 7.0's t_stream.c, so
// the same invalid input gets the same error.
import { type Database, keyOf } from '../engine/keyspace.js';
import { autoIid, IdmpState } from '../engine/idmp.js';
import { dropReferences, isReferenced, livePendingIds, policyKeyword, type RefPolicy } from '../engine/ref-policy.js';
import { Stream, type StreamEntry, type NodeLimits } from '../engine/stream.js';
import {
  compareIds,
  decrementId,
  EXHAUSTED_ERROR,
  formatId,
  generateId,
  idReply,
  idsEqual,
  incrementId,
  isZeroId,
  MAX_ID,
  MIN_ID,
  type ParsedId,
  parseRangeBound,
  parseStrictId,
  type StreamId,
  tryParseStreamId,
  INVALID_ID_ERROR,
  XADD_ZERO_ERROR,
} from '../engine/stream-id.js';
import { Errors, fail, MapReply, NULL_ARRAY, OK, type Reply } from '../resp/reply.js';
import { blockTimeoutMs, int64Arg, isKeyword, lower } from './args.js';
import { type CommandSpec, type Context, command } from './types.js';

// --- helpers shared with the consumer-group commands ------------------------------------------

/** The stream at key, undefined when missing; WRONGTYPE for another type. */
export function lookupStream(db: Database, key: string): Stream | undefined {
  const value = db.get(key);
  if (value === undefined) return undefined;
  if (!(value instanceof Stream)) fail(Errors.wrongType);
  return value;
}

/** One entry as Redis replies it: [id, [f1, v1, ...]]. */
export function entryReply(entry: StreamEntry): Reply {
  return [idReply(entry.id), entry.fields];
}

export function entriesReply(entries: StreamEntry[]): Reply {
  return entries.map(entryReply);
}

/** The node limits from CONFIG (stream-node-max-bytes / -entries). */
export function nodeLimits(ctx: Context): NodeLimits {
  return {
    maxBytes: ctx.instance.config.getNumber('stream-node-max-bytes'),
    maxEntries: ctx.instance.config.getNumber('stream-node-max-entries'),
  };
}

/** A strict id argument or "Invalid stream ID". */
function strictId(arg: Buffer): StreamId {
  return parseStrictId(arg);
}

// --- XADD / XTRIM argument parsing (streamParseAddOrTrimArgsOrReply) ---------------------------

interface TrimArgs {
  strategy: 'maxlen' | 'minid' | null;
  maxLen: number;
  minId: StreamId;
  approx: boolean;
  /** 0 = no limit. */
  limit: number;
  /** Index of the threshold argument (the "~" or "=" is just before it when given). */
  thresholdIdx: number;
  noMkStream: boolean;
  /** XADD: the explicit id, undefined for "*". */
  id: ParsedId | undefined;
  /** XADD: index of the id argument. */
  idPos: number;
  /** Redis 8.2 KEEPREF | DELREF | ACKED: what trimming does to the groups' PEL references. */
  policy: RefPolicy;
  /** XADD IDMP / IDMPAUTO (Redis 8.6): the producer id, and the iid (undefined for IDMPAUTO). */
  idmpPid: Buffer | undefined;
  idmpIid: Buffer | undefined;
  /** Argument indexes of the IDMP options: the propagated XADD leaves them out. */
  idmpArgs: number[];
}

function parseAddOrTrimArgs(ctx: Context, argv: Buffer[], xadd: boolean): TrimArgs {
  const args: TrimArgs = {
    strategy: null,
    maxLen: -1,
    minId: MIN_ID,
    approx: false,
    limit: 0,
    thresholdIdx: 0,
    noMkStream: false,
    id: undefined,
    idPos: argv.length,
    policy: 'keepref',
    idmpPid: undefined,
    idmpIid: undefined,
    idmpArgs: [],
  };
  let limitGiven = false;
  let i = 2;
  for (; i < argv.length; i++) {
    const moreArgs = argv.length - 1 - i;
    const arg = argv[i]!;
    const opt = lower(arg);
    if (xadd && opt === '*') {
      args.idPos = i;
      break;
    } else if ((opt === 'maxlen' || opt === 'minid') && moreArgs > 0) {
      if (args.strategy !== null) {
        fail('ERR syntax error, MAXLEN and MINID options at the same time are not compatible');
      }
      args.approx = false;
      const next = argv[i + 1]!;
      if (moreArgs >= 2 && next.length === 1 && (next[0] === 0x7e /* ~ */ || next[0] === 0x3d) /* = */) {
        args.approx = next[0] === 0x7e;
        i++;
      }
      if (opt === 'maxlen') {
        const n = int64Arg(argv[i + 1]!);
        if (n < 0n) fail('ERR The MAXLEN argument must be >= 0.');
        args.maxLen = n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
      } else {
        args.minId = strictId(argv[i + 1]!);
      }
      i++;
      args.strategy = opt;
      args.thresholdIdx = i;
    } else if (moreArgs >= 1 && opt === 'limit') {
      const n = int64Arg(argv[i + 1]!);
      if (n < 0n) fail('ERR The LIMIT argument must be >= 0.');
      args.limit = n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
      limitGiven = true;
      i++;
    } else if (xadd && opt === 'nomkstream') {
      args.noMkStream = true;
    } else if (policyKeyword(opt) !== undefined) {
      args.policy = policyKeyword(opt)!;
    } else if (xadd && (opt === 'idmp' && moreArgs >= 2 || opt === 'idmpauto' && moreArgs >= 1)) {
      // The docs give no error texts for IDMP; these follow the wording of XADD's others.
      if (args.idmpPid !== undefined) fail('ERR syntax error, IDMP and IDMPAUTO can be specified only once');
      args.idmpPid = argv[i + 1]!;
      args.idmpArgs.push(i, i + 1);
      if (opt === 'idmp') {
        args.idmpIid = argv[i + 2]!;
        args.idmpArgs.push(i + 2);
        i++;
      }
      i++;
      if (args.idmpPid.length === 0 || args.idmpIid?.length === 0) {
        fail('ERR IDMP producer id and idempotent id must not be empty');
      }
    } else if (xadd) {
      const parsed = tryParseStreamId(arg, { strict: true, allowSeqStar: true });
      if (parsed === undefined) fail(INVALID_ID_ERROR);
      args.id = parsed;
      args.idPos = i;
      break;
    } else {
      fail(Errors.syntax);
    }
  }
  if (!xadd) args.idPos = i;

  if (args.limit > 0 && args.strategy === null) {
    fail('ERR syntax error, LIMIT cannot be used without specifying a trimming strategy');
  }
  if (!xadd && args.strategy === null) {
    fail('ERR syntax error, XTRIM must be called with a trimming strategy');
  }
  if (args.idmpPid !== undefined && args.id !== undefined) {
    fail('ERR IDMP and IDMPAUTO can be used only with auto-generated IDs (*)');
  }
  if (ctx.client.kind === 'aof') {
    // Replayed commands were rewritten to their exact effect: never limit them.
    args.limit = 0;
  } else if (limitGiven) {
    if (!args.approx) fail('ERR syntax error, LIMIT cannot be used without the special ~ option');
  } else if (args.approx) {
    const maxEntries = ctx.instance.config.getNumber('stream-node-max-entries');
    args.limit = 100 * maxEntries;
    if (args.limit <= 0 || args.limit > 10000) args.limit = 10000;
  } else {
    args.limit = 0;
  }
  return args;
}

/** Runs the trim of parsed args under its reference policy; returns the number of entries removed. */
function trimStream(s: Stream, args: TrimArgs): number {
  if (args.strategy === null) return 0;
  if (args.policy === 'acked') {
    return s.trimUnreferenced(args.strategy === 'maxlen' ? args.maxLen : 0,
      args.strategy === 'minid' ? args.minId : undefined, (id) => isReferenced(s, id));
  }
  // DELREF: the pending ids that were live before and are gone after lose their references.
  const pending = args.policy === 'delref' ? livePendingIds(s) : [];
  const removed = args.strategy === 'maxlen'
    ? s.trimByMaxLen(args.maxLen, args.approx, args.limit)
    : s.trimByMinId(args.minId, args.approx, args.limit);
  if (removed > 0) for (const id of pending) if (s.get(id) === undefined) dropReferences(s, id);
  return removed;
}

/**
 * streamRewriteApproxSpecifier + streamRewriteTrimArgument: "~ N" becomes "= <what it did>",
 * so replay trims exactly what this run trimmed.
 */
function rewriteApproxTrim(out: Array<Buffer | string>, s: Stream, args: TrimArgs): void {
  out[args.thresholdIdx - 1] = '=';
  out[args.thresholdIdx] = args.strategy === 'maxlen' ? String(s.length) : formatId(s.firstIdWithTombstones());
}

// --- XADD --------------------------------------------------------------------------------------

function xadd(ctx: Context, argv: Buffer[]): Reply {
  const args = parseAddOrTrimArgs(ctx, argv, true);
  const fieldPos = args.idPos + 1;
  const valueArgs = argv.length - fieldPos;
  if (valueArgs < 2 || valueArgs % 2 === 1) fail(Errors.wrongArity('xadd'));
  // 0-0 is refused before the key is looked up (and possibly created).
  if (args.id !== undefined && args.id.seqGiven && isZeroId(args.id.id)) fail(XADD_ZERO_ERROR);

  const key = keyOf(argv[1]!);
  let s = lookupStream(ctx.db, key);
  const created = s === undefined;
  if (s === undefined) {
    if (args.noMkStream) return null;
    s = new Stream();
  }
  // IDMP: a pid/iid already recorded answers with its entry's id and adds nothing.
  let pid = '';
  let iid = '';
  if (args.idmpPid !== undefined) {
    pid = args.idmpPid.toString('latin1');
    iid = (args.idmpIid ?? autoIid(argv.slice(fieldPos))).toString('latin1');
    if (s.idmp !== undefined) {
      s.idmp.expire(ctx.instance.keyspace.now());
      const seen = s.idmp.lookup(pid, iid);
      if (seen !== undefined) {
        s.idmp.iidsDuplicates++;
        ctx.preventPropagation();
        return idReply(seen);
      }
    }
  }
  if (idsEqual(s.lastId, MAX_ID)) fail(EXHAUSTED_ERROR);
  const id = generateId(s.lastId, ctx.instance.keyspace.now(), args.id);
  s.append(id, argv.slice(fieldPos), nodeLimits(ctx));
  if (created) ctx.db.set(key, s);
  if (args.idmpPid !== undefined) {
    s.idmp ??= new IdmpState();
    s.idmp.record(pid, iid, id);
  }
  ctx.modified(key);

  let out: Array<Buffer | string> = argv.slice();
  if (args.strategy !== null) {
    trimStream(s, args);
    if (args.approx && args.policy !== 'acked') rewriteApproxTrim(out, s, args);
  }
  if (args.id === undefined || !args.id.seqGiven) out[args.idPos] = formatId(id);
  if (args.idmpPid !== undefined) {
    // Logged as the plain XADD with its id, then XIDMPRECORD (Redis 8.8's replay form), so
    // replay neither looks the iid up nor recomputes an IDMPAUTO hash.
    const drop = new Set(args.idmpArgs);
    out = out.filter((_, i) => !drop.has(i));
    ctx.propagate(out);
    ctx.propagate(['XIDMPRECORD', argv[1]!, Buffer.from(pid, 'latin1'), Buffer.from(iid, 'latin1'), formatId(id)]);
  } else {
    ctx.propagate(out);
  }
  return idReply(id);
}

// --- XTRIM -------------------------------------------------------------------------------------

function xtrim(ctx: Context, argv: Buffer[]): Reply {
  const args = parseAddOrTrimArgs(ctx, argv, false);
  const key = keyOf(argv[1]!);
  const s = lookupStream(ctx.db, key);
  if (s === undefined) return 0;
  const deleted = trimStream(s, args);
  if (deleted > 0) {
    if (args.approx && args.policy !== 'acked') {
      const out: Array<Buffer | string> = argv.slice();
      rewriteApproxTrim(out, s, args);
      ctx.propagate(out);
    }
    ctx.modified(key);
    ctx.addDirty(deleted - 1);
  }
  return deleted;
}

// --- XDEL --------------------------------------------------------------------------------------

function xdel(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const s = lookupStream(ctx.db, key);
  if (s === undefined) return 0;
  // All ids are checked before anything is deleted.
  const ids = argv.slice(2).map(strictId);
  let deleted = 0;
  for (const id of ids) if (s.delete(id)) deleted++;
  if (deleted > 0) {
    ctx.modified(key);
    ctx.addDirty(deleted - 1);
  }
  return deleted;
}

// --- XLEN --------------------------------------------------------------------------------------

function xlen(ctx: Context, argv: Buffer[]): Reply {
  return lookupStream(ctx.db, keyOf(argv[1]!))?.length ?? 0;
}

// --- XRANGE / XREVRANGE ------------------------------------------------------------------------

function xrangeGeneric(ctx: Context, argv: Buffer[], reverse: boolean): Reply {
  const start = parseRangeBound(reverse ? argv[3]! : argv[2]!, false);
  const end = parseRangeBound(reverse ? argv[2]! : argv[3]!, true);
  let count = -1;
  for (let j = 4; j < argv.length; j++) {
    if (isKeyword(argv[j], 'count') && j + 1 < argv.length) {
      const n = int64Arg(argv[j + 1]!);
      count = n < 0n ? 0 : n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
      j++;
    } else {
      fail(Errors.syntax);
    }
  }
  const s = lookupStream(ctx.db, keyOf(argv[1]!));
  if (s === undefined) return [];
  if (count === 0) return NULL_ARRAY;
  return entriesReply(s.range(start, end, count < 0 ? 0 : count, reverse));
}

// --- XREAD -------------------------------------------------------------------------------------

/** Positions of the keys of XREAD/XREADGROUP: after STREAMS, the first half of the rest. */
export function xreadKeys(argv: Buffer[]): number[] {
  for (let i = 1; i < argv.length; i++) {
    if (isKeyword(argv[i], 'streams')) {
      const count = Math.floor((argv.length - i - 1) / 2);
      return Array.from({ length: count }, (_, k) => i + 1 + k);
    }
    if (isKeyword(argv[i], 'block') || isKeyword(argv[i], 'count')) i++;
    else if (isKeyword(argv[i], 'group')) i += 2;
  }
  return [];
}

/** The reply of XREAD: one [key, entries] per stream (a map in RESP3). */
function xreadReply(ctx: Context, items: Array<[Buffer, Reply]>): Reply {
  if (ctx.client.resp === 3) return new MapReply(items);
  return items.map(([k, v]) => [k, v]);
}

function xread(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  let timeout = -1;
  let count = 0;
  let streamsArg = 0;
  let streamCount = 0;
  for (let i = 1; i < argv.length; i++) {
    const moreArgs = argv.length - i - 1;
    const opt = lower(argv[i]!);
    if (opt === 'block' && moreArgs > 0) {
      i++;
      timeout = blockTimeoutMs(argv[i]!);
    } else if (opt === 'count' && moreArgs > 0) {
      i++;
      const n = int64Arg(argv[i]!);
      count = n < 0n ? 0 : n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
    } else if (opt === 'streams' && moreArgs > 0) {
      streamsArg = i + 1;
      streamCount = argv.length - streamsArg;
      if (streamCount % 2 !== 0) {
        fail("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
      }
      streamCount /= 2;
      break;
    } else {
      fail(Errors.syntax);
    }
  }
  if (streamsArg === 0) fail(Errors.syntax);

  const keys: string[] = [];
  const after: StreamId[] = [];
  for (let k = 0; k < streamCount; k++) {
    const key = keyOf(argv[streamsArg + k]!);
    const s = lookupStream(ctx.db, key);
    const idArg = argv[streamsArg + streamCount + k]!;
    keys.push(key);
    if (idArg.length === 1 && idArg[0] === 0x24 /* $ */) {
      after.push(s?.lastId ?? MIN_ID); // resolved now, so only later entries are returned
    } else if (idArg.length === 1 && idArg[0] === 0x3e /* > */) {
      fail('ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.');
    } else if (idArg.length === 1 && idArg[0] === 0x2b /* + */) {
      // Redis 7.4: "+" reads the last entry (everything after last_id - 1).
      after.push(s === undefined ? MIN_ID : (decrementId(s.lastId) ?? MIN_ID));
    } else {
      after.push(strictId(idArg));
    }
  }

  const items: Array<[Buffer, Reply]> = [];
  for (let k = 0; k < streamCount; k++) {
    const s = lookupStream(ctx.db, keys[k]!);
    if (s === undefined || s.length === 0) continue;
    const last = s.lastEntry()!;
    if (compareIds(last.id, after[k]!) <= 0) continue;
    const start = incrementId(after[k]!)!;
    items.push([argv[streamsArg + k]!, entriesReply(s.range(start, MAX_ID, count, false))]);
  }
  if (items.length > 0) return xreadReply(ctx, items);
  if (timeout < 0 || ctx.noBlock) return NULL_ARRAY;

  // Served by the first of the keys whose last_id moves past the requested id, as Redis's
  // serveClientBlockedOnKey: only that stream is in the reply.
  const keyArgs = argv.slice(streamsArg, streamsArg + streamCount);
  return ctx.block(
    keys,
    timeout,
    (retryCtx) => {
      for (let k = 0; k < keys.length; k++) {
        const value = retryCtx.db.get(keys[k]!);
        if (!(value instanceof Stream)) continue;
        if (compareIds(value.lastId, after[k]!) <= 0) continue;
        const start = incrementId(after[k]!)!;
        return xreadReply(retryCtx, [[keyArgs[k]!, entriesReply(value.range(start, MAX_ID, count, false))]]);
      }
      return undefined;
    },
    NULL_ARRAY,
  );
}

// --- XSETID ------------------------------------------------------------------------------------

function xsetid(ctx: Context, argv: Buffer[]): Reply {
  const id = strictId(argv[2]!);
  let entriesAdded = -1n;
  let maxDeleted: StreamId = MIN_ID;
  for (let i = 3; i < argv.length; ) {
    const moreArgs = argv.length - 1 - i;
    const opt = lower(argv[i]!);
    if (opt === 'entriesadded' && moreArgs > 0) {
      entriesAdded = int64Arg(argv[i + 1]!);
      if (entriesAdded < 0n) fail('ERR entries_added must be positive');
      i += 2;
    } else if (opt === 'maxdeletedid' && moreArgs > 0) {
      maxDeleted = strictId(argv[i + 1]!);
      if (compareIds(id, maxDeleted) < 0) {
        fail('ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id');
      }
      i += 2;
    } else {
      fail(Errors.syntax);
    }
  }
  const key = keyOf(argv[1]!);
  const s = lookupStream(ctx.db, key);
  if (s === undefined) fail(Errors.noSuchKey);
  // Redis 7.0 has no check against the current max_deleted_entry_id (7.2 added one).
  if (s.length > 0) {
    const top = s.lastEntry()!.id;
    if (compareIds(id, top) < 0) fail('ERR The ID specified in XSETID is smaller than the target stream top item');
    if (entriesAdded !== -1n && BigInt(s.length) > entriesAdded) {
      fail('ERR The entries_added specified in XSETID is smaller than the target stream length');
    }
  }
  s.lastId = id;
  if (entriesAdded !== -1n) s.entriesAdded = entriesAdded;
  if (!isZeroId(maxDeleted)) s.maxDeletedId = maxDeleted;
  ctx.modified(key);
  return OK;
}

const oneKey = { first: 1, last: 1, step: 1 };

export const commands: CommandSpec[] = [
  command('xadd', -5, ['write', 'denyoom', 'fast'], oneKey, xadd, {
    categories: ['write', 'stream', 'fast'],
    summary: 'Appends a new message to a stream. Creates the key if it doesn\'t exist.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xrange', -4, ['readonly'], oneKey, (ctx, argv) => xrangeGeneric(ctx, argv, false), {
    categories: ['read', 'stream', 'slow'],
    summary: 'Returns the messages from a stream within a range of IDs.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xrevrange', -4, ['readonly'], oneKey, (ctx, argv) => xrangeGeneric(ctx, argv, true), {
    categories: ['read', 'stream', 'slow'],
    summary: 'Returns the messages from a stream within a range of IDs in reverse order.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xlen', 2, ['readonly', 'fast'], oneKey, xlen, {
    categories: ['read', 'stream', 'fast'],
    summary: 'Return the number of messages in a stream.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xdel', -3, ['write', 'fast'], oneKey, xdel, {
    categories: ['write', 'stream', 'fast'],
    summary: 'Returns the number of messages after removing them from a stream.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xtrim', -4, ['write'], oneKey, xtrim, {
    categories: ['write', 'stream', 'slow'],
    summary: 'Deletes messages from the beginning of a stream.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xread', -4, ['readonly', 'blocking'], null, xread, {
    keys: xreadKeys,
    categories: ['read', 'stream', 'slow', 'blocking'],
    summary: 'Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.',
    since: '5.0.0',
    group: 'stream',
  }),
  command('xsetid', -3, ['write', 'denyoom', 'fast'], oneKey, xsetid, {
    categories: ['write', 'stream', 'fast'],
    summary: 'An internal command for replicating stream values.',
    since: '5.0.0',
    group: 'stream',
  }),
];
