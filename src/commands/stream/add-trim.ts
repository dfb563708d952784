// The stream write commands without consumer groups: XADD, XTRIM, XDEL, XSETID. Argument
// parsing, checks and their order follow Redis 7.0's t_stream.c, so the same invalid input
// gets the same error.
import { NOTIFY_STREAM } from '../keyspace-events.js';
import { Buffer } from 'node:buffer';
import { EntryFields } from '../../engine/entry-fields.js';
import { keyOf } from '../../engine/keyspace.js';
import { autoIid, IdmpState } from '../../engine/idmp.js';
import { dropReferences, isReferenced, livePendingIds, policyKeyword, type RefPolicy } from '../../engine/ref-policy.js';
import { Stream } from '../../engine/stream.js';
import {
  compareIds,
  formatId,
  idsEqual,
  isZeroId,
  MAX_ID,
  MIN_ID,
  type ParsedId,
  type StreamId,
  tryParseDigitsIdAt,
  tryParseStreamId,
} from '../../engine/stream-id.js';
import { generateId, parseStrictId } from './ids.js';
import { fail, OK, type Reply, type StreamIdReply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { ArgCursor } from '../arg-cursor.js';
import type { RequestArgs } from '../../resp/request-args.js';
import { type Context, command, inPlaceCommand } from '../types.js';
import type { PropagatedArg } from '../core/effects.js';
import { idReply, nodeLimits, nowMs, oneKey, signalChanges } from './common.js';
import { lookupTyped } from '../typed-lookup.js';

// --- XADD / XTRIM arguments (streamParseAddOrTrimArgsOrReply) ---------------------------------

interface AddOrTrimRequest {
  strategy: 'maxlen' | 'minid' | null;
  maxLen: number;
  minId: StreamId;
  approx: boolean;
  /** 0 = no limit. */
  limit: number;
  limitGiven: boolean;
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

function isTrimOperator(arg: Buffer | undefined): boolean {
  return arg !== undefined && arg.length === 1 && (arg[0] === 0x7e /* ~ */ || arg[0] === 0x3d /* = */);
}

/** The options loop and the checks that need no state, in Redis's order. */
function parseAddOrTrim(argv: Buffer[], xadd: boolean): AddOrTrimRequest {
  const req: AddOrTrimRequest = {
    strategy: null, maxLen: -1, minId: MIN_ID, approx: false, limit: 0, limitGiven: false,
    thresholdIdx: 0, noMkStream: false, id: undefined, idPos: argv.length, policy: 'keepref',
    idmpPid: undefined, idmpIid: undefined, idmpArgs: [],
  };
  const cur = new ArgCursor(argv, 2);
  while (!cur.done) {
    const at = cur.index;
    const first = argv[at]![0];
    if (xadd && first !== undefined && first >= 0x30 && first <= 0x39) {
      // An explicit id (no keyword starts with a digit): every XADD a replica or the AOF
      // replays has one, and lower-casing it made two strings per command.
      const parsed = tryParseStreamId(argv[at]!, { strict: true, allowSeqStar: true });
      if (parsed === undefined) fail(Errors.invalidId);
      req.id = parsed;
      req.idPos = at;
      break;
    }
    const opt = cur.keyword();
    const more = cur.remaining;
    if (xadd && opt === '*') {
      req.idPos = at;
      break;
    } else if ((opt === 'maxlen' || opt === 'minid') && more > 0) {
      if (req.strategy !== null) {
        fail(Errors.maxlenAndMinid);
      }
      req.approx = false;
      if (more >= 2 && isTrimOperator(cur.peek())) req.approx = cur.next()[0] === 0x7e;
      req.thresholdIdx = cur.index;
      if (opt === 'maxlen') req.maxLen = cur.nonNegative(Errors.trimMaxlenNegative);
      else req.minId = cur.streamId();
      req.strategy = opt;
    } else if (more >= 1 && opt === 'limit') {
      req.limit = cur.nonNegative(Errors.trimLimitNegative);
      req.limitGiven = true;
    } else if (xadd && opt === 'nomkstream') {
      req.noMkStream = true;
    } else if (policyKeyword(opt) !== undefined) {
      req.policy = policyKeyword(opt)!;
    } else if (xadd && ((opt === 'idmp' && more >= 2) || (opt === 'idmpauto' && more >= 1))) {
      // Error texts as Redis 8.6's tests (tests/unit/type/stream.tcl) expect them.
      if (req.idmpPid !== undefined) fail(Errors.idmpTwice);
      req.idmpPid = cur.next();
      req.idmpArgs.push(at, at + 1);
      if (req.idmpPid.length === 0) fail(Errors.idmpEmptyPid(opt === 'idmp' ? 'IDMP' : 'IDMPAUTO'));
      if (opt === 'idmp') {
        req.idmpIid = cur.next();
        req.idmpArgs.push(at + 2);
        if (req.idmpIid.length === 0) fail(Errors.idmpEmptyIid);
      }
    } else if (xadd) {
      const parsed = tryParseStreamId(argv[at]!, { strict: true, allowSeqStar: true });
      if (parsed === undefined) fail(Errors.invalidId);
      req.id = parsed;
      req.idPos = at;
      break;
    } else {
      fail(Errors.syntax);
    }
  }
  if (req.limit > 0 && req.strategy === null) {
    fail(Errors.limitWithoutStrategy);
  }
  if (!xadd && req.strategy === null) {
    fail(Errors.xtrimWithoutStrategy);
  }
  if (req.idmpPid !== undefined && req.id !== undefined) {
    fail(Errors.idmpExplicitId);
  }
  return req;
}

/** The LIMIT trimming may use: replay never limits, "~" alone gets the node-sized default. */
function resolveTrimLimit(ctx: Context, req: AddOrTrimRequest): void {
  if (ctx.client.mustObey) {
    // Replayed commands were rewritten to their exact effect: never limit them.
    req.limit = 0;
  } else if (req.limitGiven) {
    if (!req.approx) fail(Errors.limitWithoutApprox);
  } else if (req.approx) {
    const maxEntries = ctx.instance.config.getNumber('stream-node-max-entries');
    req.limit = 100 * maxEntries;
    if (req.limit <= 0 || req.limit > 10000) req.limit = 10000;
  } else {
    req.limit = 0;
  }
}

function parseAddOrTrimArgs(ctx: Context, argv: Buffer[], xadd: boolean): AddOrTrimRequest {
  const req = parseAddOrTrim(argv, xadd);
  resolveTrimLimit(ctx, req);
  return req;
}

/** Runs the trim of a request under its reference policy; returns the number of entries removed. */
function trimStream(s: Stream, req: Readonly<AddOrTrimRequest>): number {
  if (req.strategy === null) return 0;
  if (req.policy === 'acked') {
    return s.trimUnreferenced(req.strategy === 'maxlen' ? req.maxLen : 0,
      req.strategy === 'minid' ? req.minId : undefined, (id) => isReferenced(s, id));
  }
  // DELREF: the pending ids that were live before and are gone after lose their references.
  const pending = req.policy === 'delref' ? livePendingIds(s) : [];
  const removed = req.strategy === 'maxlen'
    ? s.trimByMaxLen(req.maxLen, req.approx, req.limit)
    : s.trimByMinId(req.minId, req.approx, req.limit);
  if (removed > 0) for (const id of pending) if (s.get(id) === undefined) dropReferences(s, id);
  return removed;
}

/**
 * streamRewriteApproxSpecifier + streamRewriteTrimArgument: "~ N" becomes "= <what it did>",
 * so replay trims exactly what this run trimmed.
 */
function rewriteApproxTrim(out: PropagatedArg[], s: Stream, req: Readonly<AddOrTrimRequest>): void {
  out[req.thresholdIdx - 1] = '=';
  out[req.thresholdIdx] = req.strategy === 'maxlen' ? String(s.length) : formatId(s.firstIdWithTombstones());
}

// --- XADD --------------------------------------------------------------------------------------

/**
 * XADD key * field value ...: the form producers send, with no option to parse. One frozen
 * request serves them all (applyXadd only reads it): one object less per XADD.
 */
const PLAIN_XADD: Readonly<AddOrTrimRequest> = Object.freeze({
  strategy: null, maxLen: -1, minId: MIN_ID, approx: false, limit: 0, limitGiven: false,
  thresholdIdx: 0, noMkStream: false, id: undefined, idPos: 2, policy: 'keepref',
  idmpPid: undefined, idmpIid: undefined, idmpArgs: Object.freeze([]) as unknown as number[],
});

/**
 * XADD key <id> field value ...: the form a replica applies and the AOF replays (the primary
 * logs the id it generated). parseAddOrTrim would stop at the same argument, an id as no option
 * starts with a digit, with nothing else to check; without it every such XADD built its whole
 * argv as Buffers first. Undefined for any other form.
 */
function explicitIdXadd(args: RequestArgs): Readonly<AddOrTrimRequest> | undefined {
  if (args.length < 3) return undefined;
  // Read in place: a Buffer view of the id was a twentieth of a replica's CPU per XADD.
  const buf = args.argBuffer(2);
  const start = args.argStart(2);
  const end = args.argEnd(2);
  const first = buf[start];
  if (start === end || first === undefined || first < 0x30 || first > 0x39) return undefined;
  const parsed = tryParseDigitsIdAt(buf, start, end) ?? tryParseStreamId(args.buffer(2), { strict: true, allowSeqStar: true });
  if (parsed === undefined) fail(Errors.invalidId);
  // A literal of parseAddOrTrim's shape (spreading the frozen PLAIN_XADD took a slow path,
  // most of this function's time).
  return {
    strategy: null, maxLen: -1, minId: MIN_ID, approx: false, limit: 0, limitGiven: false,
    thresholdIdx: 0, noMkStream: false, id: parsed, idPos: 2, policy: 'keepref',
    idmpPid: undefined, idmpIid: undefined, idmpArgs: PLAIN_XADD.idmpArgs,
  };
}

/**
 * XADD key MAXLEN ~ <count> * field value ...: a capped stream's add (the broker's events
 * stream, a producer's maxLen), read in place as parseAddOrTrim would read it; the count in
 * canonical digits only (anything else, an error included, is left to parseAddOrTrim). Undefined
 * for any other form.
 */
function cappedXadd(ctx: Context, args: RequestArgs): AddOrTrimRequest | undefined {
  if (args.length < 6 || !args.is(2, 'maxlen') || !args.is(3, '~') || !args.is(5, '*')) return undefined;
  const count = args.buffer(4);
  if (count.length === 0 || count.length > 15 || (count[0] === 0x30 && count.length > 1)) return undefined;
  let maxLen = 0;
  for (let i = 0; i < count.length; i++) {
    const c = count[i]!;
    if (c < 0x30 || c > 0x39) return undefined;
    maxLen = maxLen * 10 + (c - 0x30);
  }
  // One object for every such XADD (as PLAIN_XADD, but its count varies): applyXadd only reads
  // it, and an XADD runs to completion.
  const req = CAPPED_XADD;
  req.maxLen = maxLen;
  resolveTrimLimit(ctx, req);
  return req;
}

const CAPPED_XADD: AddOrTrimRequest = {
  strategy: 'maxlen', maxLen: 0, minId: MIN_ID, approx: true, limit: 0, limitGiven: false,
  thresholdIdx: 4, noMkStream: false, id: undefined, idPos: 5, policy: 'keepref',
  idmpPid: undefined, idmpIid: undefined, idmpArgs: PLAIN_XADD.idmpArgs,
};

/**
 * XADD key IDMP <pid> <iid> * field value ...: an idempotent producer's add (sluice's
 * producers on a server with IDMP), read in place as parseAddOrTrim would read it. Undefined
 * for any other form, an empty pid or iid included (parseAddOrTrim has their errors).
 */
function idmpXadd(ctx: Context, args: RequestArgs): AddOrTrimRequest | undefined {
  if (args.length < 6 || !args.is(2, 'idmp') || !args.is(5, '*') || args.byteLength(3) === 0 || args.byteLength(4) === 0) return undefined;
  const req: AddOrTrimRequest = {
    strategy: null, maxLen: -1, minId: MIN_ID, approx: false, limit: 0, limitGiven: false,
    thresholdIdx: 0, noMkStream: false, id: undefined, idPos: 5, policy: 'keepref',
    idmpPid: args.buffer(3), idmpIid: args.buffer(4), idmpArgs: [2, 3, 4],
  };
  resolveTrimLimit(ctx, req);
  return req;
}

function xadd(ctx: Context, args: RequestArgs): Reply {
  const req = args.is(2, '*')
    ? PLAIN_XADD
    : (explicitIdXadd(args) ?? cappedXadd(ctx, args) ?? idmpXadd(ctx, args) ?? parseAddOrTrimArgs(ctx, args.toArgv(), true));
  const fieldPos = req.idPos + 1;
  const valueArgs = args.length - fieldPos;
  if (valueArgs < 2 || valueArgs % 2 === 1) fail(Errors.wrongArity('xadd'));
  // 0-0 is refused before the key is looked up (and possibly created).
  if (req.id !== undefined && req.id.seqGiven && isZeroId(req.id.id)) fail(Errors.xaddZero);
  return applyXadd(ctx, args, req);
}

/** XADD's fields and values as ranges of the request (one object: an XADD runs to completion). */
const entry = new EntryFields();

function applyXadd(ctx: Context, args: RequestArgs, req: Readonly<AddOrTrimRequest>): Reply {
  const fieldPos = req.idPos + 1;
  const key = args.key(1);
  let s = lookupTyped(ctx.db, key, 'stream');
  const created = s === undefined;
  if (s === undefined) {
    if (req.noMkStream) return null;
    s = new Stream();
  }
  // IDMP: a pid/iid already recorded answers with its entry's id and adds nothing.
  let pid = '';
  let iid = '';
  if (req.idmpPid !== undefined) {
    pid = req.idmpPid.toString('latin1');
    iid = (req.idmpIid ?? autoIid(args.buffers(fieldPos))).toString('latin1');
    if (s.idmp !== undefined) {
      s.idmp.expire(nowMs(ctx));
      const seen = s.idmp.lookup(pid, iid);
      if (seen !== undefined) {
        s.idmp.iidsDuplicates++;
        ctx.preventPropagation();
        return idReply(seen);
      }
    }
  }
  if (idsEqual(s.lastId, MAX_ID)) fail(Errors.exhausted);
  const id = generateId(s.lastId, nowMs(ctx), req.id);
  entry.clear();
  s.appendFields(id, args.rangesInto(fieldPos, entry), nodeLimits(ctx));
  entry.clear();
  if (created) ctx.db.set(key, s);
  if (req.idmpPid !== undefined) {
    s.idmp ??= new IdmpState();
    s.idmp.record(pid, iid, id);
  }
  ctx.modified(key);
  ctx.notify(NOTIFY_STREAM, 'xadd', key);
  if (req.strategy !== null && trimStream(s, req) > 0) ctx.notify(NOTIFY_STREAM, 'xtrim', key);
  // One reply object serves as the reply and as the logged id.
  const reply = idReply(id);
  if (ctx.propagating) {
    if (req === PLAIN_XADD) ctx.propagateRequest(args, 2, reply);
    else propagateXadd(ctx, args.toArgv(), req, s, id, reply, pid, iid);
  }
  return reply;
}

/** Logs XADD with the id it produced and the exact trim it did (and the IDMP record). */
function propagateXadd(
  ctx: Context, argv: Buffer[], req: Readonly<AddOrTrimRequest>, s: Stream, id: StreamId, reply: StreamIdReply,
  pid: string, iid: string,
): void {
  let out: PropagatedArg[] = argv.slice();
  if (req.strategy !== null && req.approx && req.policy !== 'acked') rewriteApproxTrim(out, s, req);
  if (req.id === undefined || !req.id.seqGiven) out[req.idPos] = reply;
  if (req.idmpPid !== undefined) {
    // Logged as the plain XADD with its id, then XIDMPRECORD (Redis 8.8's replay form), so
    // replay neither looks the iid up nor recomputes an IDMPAUTO hash.
    const drop = new Set(req.idmpArgs);
    out = out.filter((_, i) => !drop.has(i));
    ctx.propagate(out);
    ctx.propagate(['XIDMPRECORD', argv[1]!, Buffer.from(pid, 'latin1'), Buffer.from(iid, 'latin1'), formatId(id)]);
  } else {
    ctx.propagate(out);
  }
}

// --- XTRIM -------------------------------------------------------------------------------------

function xtrim(ctx: Context, argv: Buffer[]): Reply {
  const req = parseAddOrTrimArgs(ctx, argv, false);
  const key = keyOf(argv[1]!);
  const s = lookupTyped(ctx.db, key, 'stream');
  if (s === undefined) return 0;
  const deleted = trimStream(s, req);
  if (deleted > 0) {
    if (req.approx && req.policy !== 'acked') {
      const out: Array<Buffer | string> = argv.slice();
      rewriteApproxTrim(out, s, req);
      ctx.propagate(out);
    }
  }
  signalChanges(ctx, key, deleted);
  if (deleted > 0) ctx.notify(NOTIFY_STREAM, 'xtrim', key);
  return deleted;
}

// --- XDEL --------------------------------------------------------------------------------------

function xdel(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const s = lookupTyped(ctx.db, key, 'stream');
  if (s === undefined) return 0;
  // All ids are checked before anything is deleted.
  const ids = argv.slice(2).map((a) => parseStrictId(a));
  let deleted = 0;
  for (const id of ids) if (s.delete(id)) deleted++;
  signalChanges(ctx, key, deleted);
  if (deleted > 0) ctx.notify(NOTIFY_STREAM, 'xdel', key);
  return deleted;
}

// --- XSETID ------------------------------------------------------------------------------------

interface SetIdRequest {
  id: StreamId;
  /** -1 when not given. */
  entriesAdded: bigint;
  maxDeleted: StreamId;
}

function parseXsetid(argv: Buffer[]): SetIdRequest {
  const req: SetIdRequest = { id: parseStrictId(argv[2]!), entriesAdded: -1n, maxDeleted: MIN_ID };
  const cur = new ArgCursor(argv, 3);
  while (!cur.done) {
    const opt = cur.keyword();
    if (opt === 'entriesadded' && cur.remaining > 0) {
      req.entriesAdded = cur.int64();
      if (req.entriesAdded < 0n) fail(Errors.entriesAddedNegative);
    } else if (opt === 'maxdeletedid' && cur.remaining > 0) {
      req.maxDeleted = cur.streamId();
      if (compareIds(req.id, req.maxDeleted) < 0) {
        fail(Errors.xsetidBelowMaxDeleted);
      }
    } else {
      fail(Errors.syntax);
    }
  }
  return req;
}

function xsetid(ctx: Context, argv: Buffer[]): Reply {
  const { id, entriesAdded, maxDeleted } = parseXsetid(argv);
  const key = keyOf(argv[1]!);
  const s = lookupTyped(ctx.db, key, 'stream');
  if (s === undefined) fail(Errors.noSuchKey);
  // Redis 7.0 has no check against the current max_deleted_entry_id (7.2 added one).
  if (s.length > 0) {
    const top = s.lastLiveId()!;
    if (compareIds(id, top) < 0) fail(Errors.xsetidBelowTop);
    if (entriesAdded !== -1n && BigInt(s.length) > entriesAdded) {
      fail(Errors.xsetidEntriesAdded);
    }
  }
  s.lastId = id;
  if (entriesAdded !== -1n) s.entriesAdded = entriesAdded;
  if (!isZeroId(maxDeleted)) s.maxDeletedId = maxDeleted;
  ctx.modified(key);
  ctx.notify(NOTIFY_STREAM, 'xsetid', key);
  return OK;
}

export const xaddSpec = inPlaceCommand('xadd', -5, ['write', 'denyoom', 'fast'], oneKey, xadd, {
  categories: ['write', 'stream', 'fast'],
  summary: 'Appends a new message to a stream. Creates the key if it doesn\'t exist.',
  since: '5.0.0',
  group: 'stream',
});

export const xdelSpec = command('xdel', -3, ['write', 'fast'], oneKey, xdel, {
  categories: ['write', 'stream', 'fast'],
  summary: 'Returns the number of messages after removing them from a stream.',
  since: '5.0.0',
  group: 'stream',
});

export const xtrimSpec = command('xtrim', -4, ['write'], oneKey, xtrim, {
  categories: ['write', 'stream', 'slow'],
  summary: 'Deletes messages from the beginning of a stream.',
  since: '5.0.0',
  group: 'stream',
});

export const xsetidSpec = command('xsetid', -3, ['write', 'denyoom', 'fast'], oneKey, xsetid, {
  categories: ['write', 'stream', 'fast'],
  summary: 'An internal command for replicating stream values.',
  since: '5.0.0',
  group: 'stream',
});
