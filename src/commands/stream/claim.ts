// XPENDING, XCLAIM and XAUTOCLAIM as Redis 7.0's t_stream.c. XCLAIM / XAUTOCLAIM propagate
// the claims (and drops of deleted ids) as XCLAIM with explicit TIME and RETRYCOUNT; XCLAIM's
// LASTID alone propagates as XGROUP SETID.
import { NOTIFY_STREAM } from '../keyspace-events.js';
import type { ConsumerGroup } from '../../engine/consumer-group.js';
import { autoClaim, claim } from '../../engine/group-claim.js';
import { keyOf } from '../../engine/keyspace.js';
import type { Stream } from '../../engine/stream.js';
import {
  compareIds,
  formatId,
  MAX_ID,
  MIN_ID,
  type StreamId,
  tryParseStreamId,
} from '../../engine/stream-id.js';
import { parseRangeBound } from './ids.js';
import { fail, NULL_ARRAY, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { ArgCursor } from '../arg-cursor.js';
import { capToSafe, int64Arg, isKeyword, parseInt64, text } from '../args.js';
import { command, type Context } from '../types.js';
import {
  entryReply,
  existingGroup,
  lookupGroup,
  minIdleArg,
  noGroupError,
  nowMs,
  oneKey,
} from './common.js';
import { Propagation, setIdArgv } from './propagation.js';
import { lookupTyped } from '../typed-lookup.js';

/** Claimed ids as XCLAIM / XAUTOCLAIM reply them: ids alone (JUSTID) or entries. */
function claimedReply(s: Stream, ids: StreamId[], justId: boolean): Reply {
  return ids.map((id) => (justId ? formatId(id) : entryReply(id, s.get(id) ?? null)));
}

// --- XPENDING key group [[IDLE min-idle] start end count [consumer]] ---------------------------

interface XpendingRequest {
  /** The summary form (key and group only). */
  summary: boolean;
  minIdle: bigint;
  count: bigint;
  start: StreamId;
  end: StreamId;
  consumer: Buffer | undefined;
}

function parseXpending(argv: Buffer[]): XpendingRequest {
  const req: XpendingRequest = {
    summary: argv.length === 3, minIdle: 0n, count: 0n, start: MIN_ID, end: MAX_ID, consumer: undefined,
  };
  if (req.summary) return req;
  if (argv.length < 6 || argv.length > 9) fail(Errors.syntax);
  let at = 3;
  if (isKeyword(argv[3], 'idle')) {
    req.minIdle = int64Arg(argv[4]!);
    if (argv.length < 8) fail(Errors.syntax);
    at += 2;
  }
  req.count = int64Arg(argv[at + 2]!);
  if (req.count < 0n) req.count = 0n;
  req.start = parseRangeBound(argv[at]!, false);
  req.end = parseRangeBound(argv[at + 1]!, true);
  if (at + 3 < argv.length) req.consumer = argv[at + 3];
  return req;
}

function pendingSummary(g: ConsumerGroup): Reply {
  const first = g.pel.first();
  const last = g.pel.last();
  if (first === undefined || last === undefined) return [0, null, null, NULL_ARRAY];
  const owners: Reply[] = [];
  for (const c of g.sortedConsumers()) {
    if (c.pel.size > 0) owners.push([c.name, String(c.pel.size)]);
  }
  return [g.pel.size, formatId(first[0]), formatId(last[0]), owners];
}

function applyXpending(ctx: Context, g: ConsumerGroup, req: XpendingRequest): Reply {
  if (req.summary) return pendingSummary(g);
  let pel = g.pel;
  if (req.consumer !== undefined) {
    const consumer = g.consumer(req.consumer);
    if (consumer === undefined) return [];
    pel = consumer.pel;
  }
  const now = nowMs(ctx);
  const out: Reply[] = [];
  if (compareIds(req.start, req.end) > 0) return out;
  let count = req.count;
  for (const [id, nack] of pel.range(req.start, req.end)) {
    if (count === 0n) break;
    const idle = now - nack.deliveryTime;
    if (req.minIdle !== 0n && BigInt(idle) < req.minIdle) continue;
    count--;
    // Entries released by XNACK (Redis 8.8) show consumer "" and idle -1, as documented.
    const shownIdle = nack.consumer === g.unowned ? -1 : Math.max(0, idle);
    out.push([formatId(id), nack.consumer.name, shownIdle, nack.deliveryCount]);
  }
  return out;
}

function xpending(ctx: Context, argv: Buffer[]): Reply {
  const req = parseXpending(argv);
  const g = lookupGroup(lookupTyped(ctx.db, keyOf(argv[1]!), 'stream'), argv[2]!);
  if (g === undefined) fail(noGroupError(argv[1]!, argv[2]!));
  return applyXpending(ctx, g, req);
}

// --- XCLAIM key group consumer min-idle-time id [id ...] [options] -----------------------------

/** What XCLAIM and XAUTOCLAIM both take. */
interface ClaimRequest {
  /** min-idle-time: entries idle for less are not claimed. */
  minIdle: number;
  /** Reply ids only, and leave delivery counts alone. */
  justId: boolean;
}

interface XclaimRequest extends ClaimRequest {
  ids: StreamId[];
  /** The last IDLE or TIME option given, undefined when neither was. */
  delivery: { idle: bigint } | { time: bigint } | undefined;
  retryCount: bigint;
  force: boolean;
  lastId: StreamId;
}

/** The arguments after the group (which Redis checks first): min-idle-time, ids, options. */
function parseXclaim(argv: Buffer[]): XclaimRequest {
  const req: XclaimRequest = {
    minIdle: minIdleArg(argv[4]!, 'XCLAIM'), ids: [], delivery: undefined, retryCount: -1n,
    force: false, justId: false, lastId: MIN_ID,
  };
  // Ids first: the first argument that is not an id starts the options.
  const cur = new ArgCursor(argv, 5);
  for (let parsed; !cur.done && (parsed = tryParseStreamId(cur.peek()!, { strict: true })) !== undefined; cur.next()) {
    req.ids.push(parsed.id);
  }
  while (!cur.done) {
    const opt = cur.keyword();
    const more = cur.remaining > 0;
    if (opt === 'force') req.force = true;
    else if (opt === 'justid') req.justId = true;
    else if (opt === 'idle' && more) req.delivery = { idle: cur.int64(Errors.xclaimIdle) };
    else if (opt === 'time' && more) req.delivery = { time: cur.int64(Errors.xclaimTime) };
    else if (opt === 'retrycount' && more) req.retryCount = cur.int64(Errors.xclaimRetryCount);
    else if (opt === 'lastid' && more) req.lastId = cur.streamId();
    else fail(Errors.xclaimOption(text(argv[cur.index - 1]!)));
  }
  return req;
}

/** The delivery time to record: a bogus one (negative, or in the future) becomes now. */
function deliveryTime(req: XclaimRequest, now: number): number {
  const at = req.delivery === undefined ? undefined
    : 'idle' in req.delivery ? BigInt(now) - req.delivery.idle : req.delivery.time;
  return at === undefined || at < 0n || at > BigInt(now) ? now : Number(at);
}

function applyXclaim(ctx: Context, argv: Buffer[], s: Stream, g: ConsumerGroup, req: XclaimRequest, now: number): Reply {
  const prop = new Propagation(ctx);
  let lastIdMoved = false;
  if (compareIds(req.lastId, g.lastId) > 0) {
    g.lastId = req.lastId;
    lastIdMoved = true;
    ctx.addDirty(1);
  }
  const result = claim(s, g, argv[3]!, req.ids, {
    minIdle: req.minIdle,
    deliveryTime: deliveryTime(req, now),
    retryCount: capToSafe(req.retryCount),
    force: req.force,
    justId: req.justId,
    now,
  });
  if (result.createdConsumer !== null) ctx.notify(NOTIFY_STREAM, 'xgroup-createconsumer', keyOf(argv[1]!));
  prop.addClaims(argv[1]!, g, result.effects);
  if (lastIdMoved && result.effects.length === 0) prop.add(setIdArgv(argv[1]!, g));
  prop.finish();
  return claimedReply(s, result.claimed, req.justId);
}

function xclaim(ctx: Context, argv: Buffer[]): Reply {
  const { stream, group } = existingGroup(ctx, argv);
  const now = nowMs(ctx);
  return applyXclaim(ctx, argv, stream, group, parseXclaim(argv), now);
}

// --- XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID] ------------------

/** LONG_MAX / max(sizeof(streamID), attempts factor 10): larger COUNTs are rejected. */
const AUTOCLAIM_MAX_COUNT = 9223372036854775807n / 16n;
/**
 * Redis allocates COUNT stream ids up front and fails when that allocation does; sluice
 * refuses COUNTs whose allocation would exceed 16 GiB with the same error.
 */
const AUTOCLAIM_ALLOC_LIMIT = 1n << 30n;

interface XautoclaimRequest extends ClaimRequest {
  start: StreamId;
  count: bigint;
}

function parseXautoclaim(argv: Buffer[]): XautoclaimRequest {
  const req: XautoclaimRequest = {
    minIdle: minIdleArg(argv[4]!, 'XAUTOCLAIM'), start: parseRangeBound(argv[5]!, false), count: 100n, justId: false,
  };
  const cur = new ArgCursor(argv, 6);
  while (!cur.done) {
    const opt = cur.keyword();
    if (opt === 'count' && cur.remaining > 0) {
      const v = parseInt64(cur.next());
      if (v === undefined || v < 1n || v > AUTOCLAIM_MAX_COUNT) fail(Errors.countMustBePositive);
      req.count = v;
    } else if (opt === 'justid') {
      req.justId = true;
    } else {
      fail(Errors.syntax);
    }
  }
  return req;
}

function xautoclaim(ctx: Context, argv: Buffer[]): Reply {
  const req = parseXautoclaim(argv);
  const { stream: s, group: g } = existingGroup(ctx, argv);
  if (req.count > AUTOCLAIM_ALLOC_LIMIT) {
    fail(Errors.autoclaimCountTooHigh);
  }
  const result = autoClaim(s, g, argv[3]!, req.start, req.minIdle, Number(req.count), req.justId, nowMs(ctx));
  if (result.createdConsumer !== null) ctx.notify(NOTIFY_STREAM, 'xgroup-createconsumer', keyOf(argv[1]!));
  const prop = new Propagation(ctx);
  prop.addClaims(argv[1]!, g, result.effects);
  prop.finish();
  return [
    formatId(result.cursor ?? MIN_ID),
    claimedReply(s, result.claimed, req.justId),
    result.deleted.map((id) => formatId(id)),
  ];
}

export const xpendingSpec = command('xpending', -3, ['readonly'], oneKey, xpending, {
  categories: ['read', 'stream', 'slow'],
});

export const xclaimSpec = command('xclaim', -6, ['write', 'fast'], oneKey, xclaim, {
  categories: ['write', 'stream', 'fast'],
});

export const xautoclaimSpec = command('xautoclaim', -6, ['write', 'fast'], oneKey, xautoclaim, {
  categories: ['write', 'stream', 'fast'],
});
