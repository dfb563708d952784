// XREADGROUP as Redis 7.0's t_stream.c, plus Redis 8.4's CLAIM option. It never propagates
// itself (preventCommandPropagation) but its deterministic effects:
// - ">" propagates one XCLAIM ... FORCE JUSTID LASTID per delivered entry, and with NOACK an
//   XGROUP CREATECONSUMER for a new consumer and an XGROUP SETID ... ENTRIESREAD;
// - a history read by a new consumer propagates XGROUP CREATECONSUMER (Redis 7.0 does not,
//   and loses that consumer on replay), as does a CLAIM read by a new consumer that delivers
//   nothing (its idle ids were all deleted entries, only dropped from the PEL).
import { NOTIFY_STREAM } from '../keyspace-events.js';
import { type ConsumerGroup, deliverNew, hasNewEntries, readHistory } from '../../engine/consumer-group.js';
import { claimIdle, hasIdlePending } from '../../engine/group-claim.js';
import { keyOf } from '../../engine/keyspace.js';
import { Stream } from '../../engine/stream.js';
import { compareIds, formatId, MAX_ID, type StreamId } from '../../engine/stream-id.js';
import { parseStrictId } from './ids.js';
import { ErrorReply, fail, NULL_ARRAY, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { command, type Context } from '../types.js';
import { entryReply, lookupGroup, noGroupError, nowMs, streamsReply } from './common.js';
import { EntriesReply } from './entries-reply.js';
import { createConsumerArgv, Propagation, setIdArgv, xclaimArgv } from './propagation.js';
import { parseReadArgs, type ReadArgs, readKeyPositions } from './read-args.js';
import { lookupTyped } from '../typed-lookup.js';

/** The ">" id: XREADGROUP's "new entries" marker (Redis stores it as the maximum id). */
const NEW_ENTRIES: unique symbol = Symbol('>');

interface ReadTarget {
  keyArg: Buffer;
  key: string;
  after: StreamId | typeof NEW_ENTRIES;
}

interface ReadGroupRequest extends ReadArgs {
  group: Buffer;
  consumer: Buffer;
  targets: ReadTarget[];
}

const DOLLAR_IN_XREADGROUP =
  Errors.dollarInXreadgroup;

/** The options, then per key: the group must exist, then the id is checked. */
function parseXreadgroup(ctx: Context, argv: Buffer[]): ReadGroupRequest {
  const args = parseReadArgs(argv, true, ctx.client.fromScript);
  const group = args.group!;
  const targets: ReadTarget[] = [];
  for (let j = 0; j < args.streamCount; j++) {
    const keyArg = argv[args.streamsAt + j]!;
    const idArg = argv[args.streamsAt + args.streamCount + j]!;
    const key = keyOf(keyArg);
    const s = lookupTyped(ctx.db, key, 'stream');
    if (lookupGroup(s, group) === undefined) {
      fail(`${noGroupError(keyArg, group)} in XREADGROUP with GROUP option`);
    }
    const idText = idArg.toString('latin1');
    if (idText === '$') fail(DOLLAR_IN_XREADGROUP);
    // Redis marks ">" with the maximal id, so that id given explicitly also means ">".
    const parsed = idText === '>' ? MAX_ID : parseStrictId(idArg);
    const after = compareIds(parsed, MAX_ID) === 0 ? NEW_ENTRIES : parsed;
    targets.push({ keyArg, key, after });
  }
  // Spelled out, not `{ ...args, targets }`: V8 gave each spread copy that gained a property a
  // map of its own, so every XREADGROUP built a new map (3% of the server's CPU in the
  // group loop) and the code reading the request kept being deoptimized.
  return {
    count: args.count, block: args.block, streamsAt: args.streamsAt, streamCount: args.streamCount,
    group, consumer: args.consumer!, noack: args.noack, claimMinIdle: args.claimMinIdle, targets,
  };
}

/**
 * Serves one stream for XREADGROUP (the body of the "serve synchronously" branch and of the
 * blocked-client retry): finds or creates the consumer, delivers and propagates.
 */
function serveStream(
  ctx: Context,
  prop: Propagation,
  req: ReadGroupRequest,
  target: ReadTarget,
  s: Stream,
  g: ConsumerGroup,
): Reply {
  const now = nowMs(ctx);
  let consumer = g.consumer(req.consumer);
  let changed = false;
  let created = false;
  if (consumer === undefined) {
    consumer = g.createConsumer(req.consumer, now)!;
    changed = created = true;
    ctx.notify(NOTIFY_STREAM, 'xgroup-createconsumer', target.key);
    // Redis 7.0 propagates this only with NOACK; a history read by a new consumer would then
    // lose the consumer on replay, so sluice propagates it there too. ">" reads without NOACK
    // need nothing when they deliver: their XCLAIM ... FORCE recreates the consumer.
    if (req.noack || target.after !== NEW_ENTRIES) prop.add(createConsumerArgv(target.keyArg, g, consumer));
  } else {
    consumer.seenTime = now;
  }
  let reply: Reply[];
  let directReply: EntriesReply | undefined;
  if (target.after === NEW_ENTRIES) {
    reply = [];
    let count = req.count;
    if (req.claimMinIdle >= 0) {
      // CLAIM: idle pending entries first, with [id, fields, idle ms, deliveries before];
      // NOACK does not apply to them (documented). They propagate as XCLAIMs.
      const taken = claimIdle(s, g, consumer, req.claimMinIdle, req.count, now);
      for (const c of taken.claimed) reply.push([formatId(c.id), c.fields, c.idle, c.previousDeliveries]);
      if (ctx.propagating) for (const e of taken.effects) prop.add(xclaimArgv(target.keyArg, g, e));
      if (taken.effects.length > 0) changed = true;
      if (count > 0) {
        count -= taken.claimed.length;
        if (count === 0) {
          if (changed) ctx.addDirty(1);
          return reply;
        }
      }
    }
    const before = g.lastId;
    const delivered = deliverNew(s, g, consumer, count, req.noack, now);
    const entries = delivered.entries;
    // Written from the node bytes, unless CLAIM entries (another shape) come first.
    if (reply.length === 0) directReply = new EntriesReply(entries);
    else for (let i = 0; i < entries.length; i++) reply.push(entryReply(entries.id(i), entries.fields(i)));
    // The XCLAIMs that log the deliveries are built only when something logs them.
    if (ctx.propagating) {
      delivered.pending.forEach((nack, i) => {
        const e = { id: nack.id, consumer: consumer.name, deliveryTime: nack.deliveryTime, deliveryCount: nack.deliveryCount, dropped: false };
        prop.add(xclaimArgv(target.keyArg, g, e, delivered.lastIds[i]));
      });
      // Without PEL entries nothing else records the group's progress (7.0: NOACK only).
      if (req.noack && compareIds(g.lastId, before) !== 0) prop.add(setIdArgv(target.keyArg, g));
    }
    if (entries.length > 0) changed = true;
    // A CLAIM read can be served and deliver nothing (its idle ids were all deleted entries,
    // dropped from the PEL): no XCLAIM names the new consumer, so its creation is logged.
    if (created && !req.noack && reply.length === 0 && entries.length === 0) {
      prop.add(createConsumerArgv(target.keyArg, g, consumer));
    }
  } else {
    const history = readHistory(s, consumer, target.after, req.count, now);
    reply = history.map((h) => entryReply(h.id, h.fields));
    if (history.some((h) => h.fields !== null)) changed = true;
  }
  if (changed) ctx.addDirty(1);
  return directReply ?? reply;
}

function applyXreadgroup(ctx: Context, req: ReadGroupRequest): Reply | Promise<Reply> {
  const prop = new Propagation(ctx);
  const served: Array<[Buffer, Reply]> = [];
  for (const target of req.targets) {
    const s = lookupTyped(ctx.db, target.key, 'stream')!;
    const g = lookupGroup(s, req.group)!;
    // History reads are always served; ">" only when the stream has entries past last_id.
    if (target.after !== NEW_ENTRIES || hasNewEntries(s, g) || hasClaimable(req, g, nowMs(ctx))) {
      served.push([target.keyArg, serveStream(ctx, prop, req, target, s, g)]);
    }
  }
  prop.finish();
  if (served.length > 0) return streamsReply(ctx, served);
  if (req.block < 0 || ctx.noBlock) return NULL_ARRAY;
  const keys = req.targets.map((t) => t.key);
  return ctx.block(keys, req.block, (retryCtx) => retryReadGroup(retryCtx, req), NULL_ARRAY);
}

/**
 * XREADGROUP CLAIM serves a stream that has an entry pending long enough even without new
 * entries. A blocked reader is re-checked only when its key changes, not when an entry
 * becomes idle enough during the BLOCK (Redis does the latter; sluice does not yet).
 */
function hasClaimable(req: ReadGroupRequest, g: ConsumerGroup, now: number): boolean {
  if (req.claimMinIdle < 0) return false;
  return hasIdlePending(g, req.claimMinIdle, now);
}

/** A blocked XREADGROUP woken by a change to one of its keys (serveClientsBlockedOnStreamKey). */
function retryReadGroup(ctx: Context, req: ReadGroupRequest): Reply | undefined {
  for (const target of req.targets) {
    const value = ctx.db.get(target.key);
    if (!(value instanceof Stream)) return new ErrorReply(Errors.blockedStreamDeleted);
    const g = lookupGroup(value, req.group);
    if (g === undefined) {
      return new ErrorReply(Errors.blockedGroupDeleted);
    }
    if (!hasNewEntries(value, g) && !hasClaimable(req, g, nowMs(ctx))) continue;
    const prop = new Propagation(ctx);
    const reply = serveStream(ctx, prop, req, target, value, g);
    prop.finish();
    return streamsReply(ctx, [[target.keyArg, reply]]);
  }
  return undefined;
}

export const xreadgroupSpec = command('xreadgroup', -7, ['write', 'blocking', 'movablekeys'], null,
  (ctx, argv) => applyXreadgroup(ctx, parseXreadgroup(ctx, argv)), {
    keys: (argv) => readKeyPositions(argv, ['count', 'block', 'claim']),
    categories: ['write', 'stream', 'slow', 'blocking'],
  });
