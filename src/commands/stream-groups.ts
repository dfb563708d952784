// Consumer-group commands as Redis 7.0's t_stream.c: XGROUP, XREADGROUP, XACK, XPENDING,
// XCLAIM, XAUTOCLAIM. The group model lives in src/engine/consumer-group.ts and
// src/engine/group-claim.ts; this file parses arguments in Redis's order (so the same input
// fails with the same error), builds replies and propagates deterministic effects:
// - XREADGROUP ">" propagates one XCLAIM ... FORCE JUSTID LASTID per delivered entry, and
//   with NOACK an XGROUP CREATECONSUMER for a new consumer and an XGROUP SETID ... ENTRIESREAD;
//   a history read by a new consumer propagates XGROUP CREATECONSUMER (Redis 7.0 does not,
//   and loses that consumer on replay); it never propagates itself (preventCommandPropagation).
// - XCLAIM / XAUTOCLAIM propagate the claims (and drops of deleted ids) as XCLAIM with explicit
//   TIME and RETRYCOUNT; XCLAIM's LASTID alone propagates as XGROUP SETID.
// - XGROUP subcommands and XACK propagate themselves.
// Group state changes count as dirty (ctx.addDirty) without ctx.modified: in Redis 7.0 none of
// these commands touches WATCHed keys (checked on redis-server). Only a stream created by
// MKSTREAM and XGROUP DESTROY (which must wake blocked XREADGROUPs with NOGROUP) signal the key.
import {
  type Consumer,
  ConsumerGroup,
  deliverNew,
  hasNewEntries,
  INVALID_ENTRIES_READ,
  readHistory,
} from '../engine/consumer-group.js';
import { autoClaim, claim, claimIdle, type ClaimEffect, hasIdlePending } from '../engine/group-claim.js';
import { type Database, keyOf } from '../engine/keyspace.js';
import { Stream } from '../engine/stream.js';
import {
  compareIds,
  formatId,
  MAX_ID,
  MIN_ID,
  parseRangeBound,
  parseStrictId,
  parseStreamId,
  type StreamId,
  tryParseStreamId,
} from '../engine/stream-id.js';
import {
  ErrorReply,
  Errors,
  fail,
  MapReply,
  NULL_ARRAY,
  OK,
  type Reply,
  SimpleString,
} from '../resp/reply.js';
import { int64Arg, isKeyword, lower, parseInt64 } from './args.js';
import { command, type CommandSpec, container, type Context } from './types.js';

// --- shared helpers (also used by stream-info.ts) -------------------------------------------

/** The stream at `key`, undefined when missing; WRONGTYPE for other types. */
export function lookupStream(db: Database, key: string): Stream | undefined {
  const value = db.get(key);
  if (value === undefined) return undefined;
  if (!(value instanceof Stream)) fail(Errors.wrongType);
  return value;
}

export function lookupGroup(s: Stream | undefined, name: Buffer): ConsumerGroup | undefined {
  return s?.groups.get(name.toString('latin1'));
}

/** Groups in Redis's order (the rax: byte order of names). */
export function sortedGroups(s: Stream): ConsumerGroup[] {
  return [...s.groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** An entry as XRANGE replies it: [id, [field, value, ...]]. */
export function entryReply(id: StreamId, fields: Buffer[] | null): Reply {
  return [formatId(id), fields === null ? NULL_ARRAY : fields];
}

/** The clock commands use (the keyspace's, so tests may inject one). */
export function nowMs(ctx: Context): number {
  return ctx.instance.keyspace.now();
}

function text(arg: Buffer): string {
  return arg.toString('utf8');
}

function noGroupError(key: Buffer, group: Buffer): string {
  return `NOGROUP No such key '${text(key)}' or consumer group '${text(group)}'`;
}

function subcommandSyntaxError(sub: Buffer, cmd: string): string {
  return `ERR unknown subcommand or wrong number of arguments for '${text(sub).slice(0, 128)}'. Try ${cmd} HELP.`;
}

/**
 * streamPropagateXCLAIM: the deterministic form of one PEL change. `lastId` is the group's
 * last id at the time of the change (XREADGROUP moves it entry by entry).
 */
function xclaimArgv(key: Buffer, g: ConsumerGroup, e: ClaimEffect, lastId = g.lastId): Array<Buffer | string> {
  return [
    'XCLAIM', key, g.name, e.consumer, '0', formatId(e.id),
    'TIME', String(e.deliveryTime), 'RETRYCOUNT', String(e.deliveryCount),
    'FORCE', 'JUSTID', 'LASTID', formatId(lastId),
  ];
}

/** streamPropagateGroupID. */
function setIdArgv(key: Buffer, g: ConsumerGroup): Array<Buffer | string> {
  return ['XGROUP', 'SETID', key, g.name, formatId(g.lastId), 'ENTRIESREAD', String(g.entriesRead)];
}

/** streamPropagateConsumerCreation. */
function createConsumerArgv(key: Buffer, g: ConsumerGroup, c: Consumer): Array<Buffer | string> {
  return ['XGROUP', 'CREATECONSUMER', key, g.name, c.name];
}

/**
 * Commands that propagate only explicit effects: when nothing was propagated, the command
 * itself must not be logged either, even if it changed state (history delivery counts).
 */
class Propagation {
  count = 0;
  constructor(private readonly ctx: Context) {}
  add(argv: Array<Buffer | string>): void {
    this.ctx.propagate(argv);
    this.count++;
  }
  finish(): void {
    if (this.count === 0) this.ctx.preventPropagation();
  }
}

// --- XGROUP ------------------------------------------------------------------------------------

const XGROUP_HELP = [
  'XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
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
  'HELP',
  '    Prints this help.',
];

export function helpReply(lines: string[]): Reply {
  return lines.map((l) => new SimpleString(l));
}

function parseEntriesRead(arg: Buffer): bigint {
  const v = int64Arg(arg);
  if (v < 0n && v !== INVALID_ENTRIES_READ) fail('ERR value for ENTRIESREAD must be positive or -1');
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
  const stream = lookupStream(ctx.db, key);
  let group: ConsumerGroup | undefined;
  if (!mkstream) {
    if (stream === undefined) {
      fail(
        'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want ' +
          'to use the MKSTREAM option to create an empty stream automatically.',
      );
    }
    group = lookupGroup(stream, argv[3]!);
    if (group === undefined && needsGroup) {
      fail(`NOGROUP No such consumer group '${text(argv[3]!)}' for key name '${text(argv[2]!)}'`);
    }
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
  if (stream.groups.has(name)) return new ErrorReply('BUSYGROUP Consumer Group name already exists');
  stream.groups.set(name, new ConsumerGroup(Buffer.from(argv[3]!), id, entriesRead));
  ctx.addDirty(1);
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
  return OK;
}

function xgroupDestroy(ctx: Context, argv: Buffer[]): Reply {
  const { key, stream, group } = groupTarget(ctx, argv, false, false);
  if (group === undefined) return 0;
  stream!.groups.delete(group.key);
  // Wakes XREADGROUP clients blocked on this group: they get NOGROUP.
  ctx.modified(key);
  return 1;
}

function xgroupCreateConsumer(ctx: Context, argv: Buffer[]): Reply {
  const { group } = groupTarget(ctx, argv, false, true);
  const created = group!.createConsumer(argv[4]!, nowMs(ctx));
  if (created === undefined) return 0;
  ctx.addDirty(1);
  return 1;
}

function xgroupDelConsumer(ctx: Context, argv: Buffer[]): Reply {
  const { group } = groupTarget(ctx, argv, false, true);
  const consumer = group!.consumer(argv[4]!);
  if (consumer === undefined) return 0;
  const pending = group!.deleteConsumer(consumer);
  ctx.addDirty(1);
  return pending;
}

const groupKeys = { first: 2, last: 2, step: 1 };

const xgroup = container('xgroup', -2, [
  command('create', -5, ['write', 'denyoom'], groupKeys, xgroupCreate, { categories: ['write', 'stream', 'slow'] }),
  command('setid', -5, ['write'], groupKeys, xgroupSetId, { categories: ['write', 'stream', 'slow'] }),
  command('destroy', 4, ['write'], groupKeys, xgroupDestroy, { categories: ['write', 'stream', 'slow'] }),
  command('createconsumer', 5, ['write', 'denyoom'], groupKeys, xgroupCreateConsumer, {
    categories: ['write', 'stream', 'slow'],
  }),
  command('delconsumer', 5, ['write'], groupKeys, xgroupDelConsumer, { categories: ['write', 'stream', 'slow'] }),
  command('help', 2, ['loading', 'stale'], null, () => helpReply(XGROUP_HELP), { categories: ['stream', 'slow'] }),
], { categories: ['slow'] });

// --- XREADGROUP --------------------------------------------------------------------------------

/** The ">" id: XREADGROUP's "new entries" marker (Redis stores it as the maximum id). */
const NEW_ENTRIES: unique symbol = Symbol('>');

interface ReadTarget {
  keyArg: Buffer;
  key: string;
  after: StreamId | typeof NEW_ENTRIES;
}

interface ReadRequest {
  group: Buffer;
  consumer: Buffer;
  count: number;
  noack: boolean;
  /** BLOCK in ms, or -1 when not given. */
  block: number;
  /** CLAIM min-idle-time (Redis 8.4), or -1 when not given. */
  claimMinIdle: number;
  targets: ReadTarget[];
}

const UNBALANCED =
  "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.";
const DOLLAR_IN_XREADGROUP =
  'ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of ' +
  'this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would ' +
  'just return an empty result set.';

/** Positions of the keys: the first half of the arguments after STREAMS. */
function xreadgroupKeys(argv: Buffer[]): number[] {
  for (let i = 1; i < argv.length; i++) {
    if (isKeyword(argv[i], 'streams')) {
      const n = Math.floor((argv.length - i - 1) / 2);
      return Array.from({ length: n }, (_, j) => i + 1 + j);
    }
    if (isKeyword(argv[i], 'group') || isKeyword(argv[i], 'count') || isKeyword(argv[i], 'block') || isKeyword(argv[i], 'claim')) {
      i += isKeyword(argv[i], 'group') ? 2 : 1;
    }
  }
  return [];
}

function parseReadGroup(ctx: Context, argv: Buffer[]): ReadRequest {
  let group: Buffer | undefined;
  let consumer: Buffer | undefined;
  let count = 0;
  let noack = false;
  let block = -1;
  let claimMinIdle = -1;
  let streamsAt = 0;
  let streamCount = 0;
  for (let i = 1; i < argv.length; i++) {
    const more = argv.length - i - 1;
    const opt = lower(argv[i]!);
    if (opt === 'block' && more > 0) {
      const v = parseInt64(argv[++i]!);
      if (v === undefined) fail('ERR timeout is not an integer or out of range');
      if (v < 0n) fail(Errors.timeoutNegative);
      block = v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
    } else if (opt === 'count' && more > 0) {
      const v = int64Arg(argv[++i]!);
      count = v < 0n ? 0 : v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
    } else if (opt === 'streams' && more > 0) {
      streamsAt = i + 1;
      streamCount = argv.length - streamsAt;
      if (streamCount % 2 !== 0) fail(UNBALANCED);
      streamCount /= 2;
      break;
    } else if (opt === 'group' && more >= 2) {
      group = argv[i + 1];
      consumer = argv[i + 2];
      i += 2;
    } else if (opt === 'noack') {
      noack = true;
    } else if (opt === 'claim' && more > 0) {
      // Redis 8.4. The docs give no error text; this one follows XCLAIM's min-idle-time error.
      const v = parseInt64(argv[++i]!);
      if (v === undefined || v < 0n) fail('ERR Invalid min-idle-time argument for XREADGROUP');
      claimMinIdle = v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
    } else {
      fail(Errors.syntax);
    }
  }
  if (streamsAt === 0) fail(Errors.syntax);
  if (group === undefined || consumer === undefined) fail('ERR Missing GROUP option for XREADGROUP');
  const targets: ReadTarget[] = [];
  for (let j = 0; j < streamCount; j++) {
    const keyArg = argv[streamsAt + j]!;
    const idArg = argv[streamsAt + streamCount + j]!;
    const key = keyOf(keyArg);
    const s = lookupStream(ctx.db, key);
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
  return { group, consumer, count, noack, block, claimMinIdle, targets };
}

/**
 * Serves one stream for XREADGROUP (the body of the "serve synchronously" branch and of the
 * blocked-client retry): finds or creates the consumer, delivers and propagates.
 */
function serveStream(
  ctx: Context,
  prop: Propagation,
  req: ReadRequest,
  target: ReadTarget,
  s: Stream,
  g: ConsumerGroup,
): Reply {
  const now = nowMs(ctx);
  let consumer = g.consumer(req.consumer);
  let changed = false;
  if (consumer === undefined) {
    consumer = g.createConsumer(req.consumer, now)!;
    changed = true;
    // Redis 7.0 propagates this only with NOACK; a history read by a new consumer would then
    // lose the consumer on replay, so sluice propagates it there too. ">" reads without NOACK
    // need nothing: their XCLAIM ... FORCE recreates the consumer.
    if (req.noack || target.after !== NEW_ENTRIES) prop.add(createConsumerArgv(target.keyArg, g, consumer));
  } else {
    consumer.seenTime = now;
  }
  let reply: Reply[];
  if (target.after === NEW_ENTRIES) {
    reply = [];
    let count = req.count;
    if (req.claimMinIdle >= 0) {
      // CLAIM: idle pending entries first, with [id, fields, idle ms, deliveries before];
      // NOACK does not apply to them (documented). They propagate as XCLAIMs.
      const taken = claimIdle(s, g, consumer, req.claimMinIdle, req.count, now);
      for (const c of taken.claimed) reply.push([formatId(c.id), c.fields, c.idle, c.previousDeliveries]);
      for (const e of taken.effects) prop.add(xclaimArgv(target.keyArg, g, e));
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
    for (const e of delivered.entries) reply.push(entryReply(e.id, e.fields));
    delivered.pending.forEach((nack, i) => {
      const e = { id: nack.id, consumer: consumer.name, deliveryTime: nack.deliveryTime, deliveryCount: nack.deliveryCount, dropped: false };
      prop.add(xclaimArgv(target.keyArg, g, e, delivered.lastIds[i]));
    });
    // Without PEL entries nothing else records the group's progress (7.0: NOACK only).
    if (req.noack && compareIds(g.lastId, before) !== 0) prop.add(setIdArgv(target.keyArg, g));
    if (delivered.entries.length > 0) changed = true;
  } else {
    const history = readHistory(s, consumer, target.after, req.count, now);
    reply = history.map((h) => entryReply(h.id, h.fields));
    if (history.some((h) => h.fields !== null)) changed = true;
  }
  if (changed) ctx.addDirty(1);
  return reply;
}

/** The XREAD-shaped reply: [[key, entries], ...] in RESP2, a map in RESP3. */
function streamsReply(ctx: Context, served: Array<[Buffer, Reply]>): Reply {
  if (ctx.client.resp === 3) return new MapReply(served);
  return served.map(([k, v]) => [k, v]);
}

function xreadgroup(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const req = parseReadGroup(ctx, argv);
  const prop = new Propagation(ctx);
  const served: Array<[Buffer, Reply]> = [];
  for (const target of req.targets) {
    const s = lookupStream(ctx.db, target.key)!;
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
function hasClaimable(req: ReadRequest, g: ConsumerGroup, now: number): boolean {
  if (req.claimMinIdle < 0) return false;
  return hasIdlePending(g, req.claimMinIdle, now);
}

/** A blocked XREADGROUP woken by a change to one of its keys (serveClientsBlockedOnStreamKey). */
function retryReadGroup(ctx: Context, req: ReadRequest): Reply | undefined {
  for (const target of req.targets) {
    const value = ctx.db.get(target.key);
    if (!(value instanceof Stream)) return new ErrorReply('UNBLOCKED the stream key no longer exists');
    const g = lookupGroup(value, req.group);
    if (g === undefined) {
      return new ErrorReply('NOGROUP the consumer group this client was blocked on no longer exists');
    }
    if (!hasNewEntries(value, g) && !hasClaimable(req, g, nowMs(ctx))) continue;
    const prop = new Propagation(ctx);
    const reply = serveStream(ctx, prop, req, target, value, g);
    prop.finish();
    return streamsReply(ctx, [[target.keyArg, reply]]);
  }
  return undefined;
}

// --- XACK ----------------------------------------------------------------------------------------

function xack(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const s = lookupStream(ctx.db, key);
  const g = lookupGroup(s, argv[2]!);
  if (g === undefined) return 0;
  // All ids are parsed first: the command acknowledges all or nothing.
  const ids = argv.slice(3).map((a) => parseStrictId(a));
  let acked = 0;
  for (const id of ids) {
    if (g.ack(id)) {
      acked++;
      ctx.addDirty(1);
    }
  }
  return acked;
}

// --- XPENDING ------------------------------------------------------------------------------------

function xpending(ctx: Context, argv: Buffer[]): Reply {
  const summary = argv.length === 3;
  if (!summary && (argv.length < 6 || argv.length > 9)) fail(Errors.syntax);
  let minIdle = 0n;
  let count = 0n;
  let start = MIN_ID;
  let end = MAX_ID;
  let consumerName: Buffer | undefined;
  if (!summary) {
    let at = 3;
    if (isKeyword(argv[3], 'idle')) {
      minIdle = int64Arg(argv[4]!);
      if (argv.length < 8) fail(Errors.syntax);
      at += 2;
    }
    count = int64Arg(argv[at + 2]!);
    if (count < 0n) count = 0n;
    start = parseRangeBound(argv[at]!, false);
    end = parseRangeBound(argv[at + 1]!, true);
    if (at + 3 < argv.length) consumerName = argv[at + 3];
  }
  const s = lookupStream(ctx.db, keyOf(argv[1]!));
  const g = lookupGroup(s, argv[2]!);
  if (g === undefined) fail(noGroupError(argv[1]!, argv[2]!));

  if (summary) {
    const first = g.pel.first();
    const last = g.pel.last();
    if (first === undefined || last === undefined) return [0, null, null, NULL_ARRAY];
    const owners: Reply[] = [];
    for (const c of g.sortedConsumers()) {
      if (c.pel.size > 0) owners.push([c.name, String(c.pel.size)]);
    }
    return [g.pel.size, formatId(first[0]), formatId(last[0]), owners];
  }

  let pel = g.pel;
  if (consumerName !== undefined) {
    const consumer = g.consumer(consumerName);
    if (consumer === undefined) return [];
    pel = consumer.pel;
  }
  const now = nowMs(ctx);
  const out: Reply[] = [];
  if (compareIds(start, end) > 0) return out;
  for (const [id, nack] of pel.range(start, end)) {
    if (count === 0n) break;
    const idle = now - nack.deliveryTime;
    if (minIdle !== 0n && BigInt(idle) < minIdle) continue;
    count--;
    // Entries released by XNACK (Redis 8.8) show consumer "" and idle -1, as documented.
    const shownIdle = nack.consumer === g.unowned ? -1 : Math.max(0, idle);
    out.push([formatId(id), nack.consumer.name, shownIdle, nack.deliveryCount]);
  }
  return out;
}

// --- XCLAIM --------------------------------------------------------------------------------------

function xclaimCommand(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const s = lookupStream(ctx.db, key);
  const g = lookupGroup(s, argv[2]!);
  if (s === undefined || g === undefined) fail(noGroupError(argv[1]!, argv[2]!));
  const minIdleRaw = parseInt64(argv[4]!);
  if (minIdleRaw === undefined) fail('ERR Invalid min-idle-time argument for XCLAIM');
  const minIdle = minIdleRaw < 0n ? 0 : Number(minIdleRaw);

  // Ids first: the first argument that is not an id starts the options.
  const ids: StreamId[] = [];
  let j = 5;
  for (; j < argv.length; j++) {
    const parsed = tryParseStreamId(argv[j]!, { strict: true });
    if (parsed === undefined) break;
    ids.push(parsed.id);
  }
  const now = nowMs(ctx);
  let deliveryTime: bigint | undefined;
  let retryCount = -1n;
  let force = false;
  let justId = false;
  let lastId = MIN_ID;
  for (; j < argv.length; j++) {
    const more = argv.length - 1 - j;
    const opt = lower(argv[j]!);
    if (opt === 'force') force = true;
    else if (opt === 'justid') justId = true;
    else if (opt === 'idle' && more > 0) {
      deliveryTime = BigInt(now) - int64Arg(argv[++j]!, 'ERR Invalid IDLE option argument for XCLAIM');
    } else if (opt === 'time' && more > 0) {
      deliveryTime = int64Arg(argv[++j]!, 'ERR Invalid TIME option argument for XCLAIM');
    } else if (opt === 'retrycount' && more > 0) {
      retryCount = int64Arg(argv[++j]!, 'ERR Invalid RETRYCOUNT option argument for XCLAIM');
    } else if (opt === 'lastid' && more > 0) {
      lastId = parseStrictId(argv[++j]!);
    } else {
      fail(`ERR Unrecognized XCLAIM option '${text(argv[j]!)}'`);
    }
  }
  const prop = new Propagation(ctx);
  let lastIdMoved = false;
  if (compareIds(lastId, g.lastId) > 0) {
    g.lastId = lastId;
    lastIdMoved = true;
    ctx.addDirty(1);
  }
  // A bogus delivery time (negative, or in the future) becomes now rather than an error.
  if (deliveryTime === undefined || deliveryTime < 0n || deliveryTime > BigInt(now)) deliveryTime = BigInt(now);
  const result = claim(s, g, argv[3]!, ids, {
    minIdle,
    deliveryTime: Number(deliveryTime),
    retryCount: retryCount > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(retryCount),
    force,
    justId,
    now,
  });
  for (const e of result.effects) {
    prop.add(xclaimArgv(argv[1]!, g, e));
    ctx.addDirty(1);
  }
  if (lastIdMoved && result.effects.length === 0) prop.add(setIdArgv(argv[1]!, g));
  prop.finish();
  return result.claimed.map((id) => (justId ? formatId(id) : entryReply(id, s.get(id) ?? null)));
}

// --- XAUTOCLAIM ----------------------------------------------------------------------------------

/** LONG_MAX / max(sizeof(streamID), attempts factor 10): larger COUNTs are rejected. */
const AUTOCLAIM_MAX_COUNT = 9223372036854775807n / 16n;
/**
 * Redis allocates COUNT stream ids up front and fails when that allocation does; sluice
 * refuses COUNTs whose allocation would exceed 16 GiB with the same error.
 */
const AUTOCLAIM_ALLOC_LIMIT = 1n << 30n;

function xautoclaim(ctx: Context, argv: Buffer[]): Reply {
  const minIdleRaw = parseInt64(argv[4]!);
  if (minIdleRaw === undefined) fail('ERR Invalid min-idle-time argument for XAUTOCLAIM');
  const minIdle = minIdleRaw < 0n ? 0 : Number(minIdleRaw);
  const start = parseRangeBound(argv[5]!, false);
  let count = 100n;
  let justId = false;
  for (let j = 6; j < argv.length; ) {
    const more = argv.length - 1 - j;
    if (isKeyword(argv[j], 'count') && more > 0) {
      const v = parseInt64(argv[j + 1]!);
      if (v === undefined || v < 1n || v > AUTOCLAIM_MAX_COUNT) fail('ERR COUNT must be > 0');
      count = v;
      j += 2;
    } else if (isKeyword(argv[j], 'justid')) {
      justId = true;
      j++;
    } else {
      fail(Errors.syntax);
    }
  }
  const key = keyOf(argv[1]!);
  const s = lookupStream(ctx.db, key);
  const g = lookupGroup(s, argv[2]!);
  if (s === undefined || g === undefined) fail(noGroupError(argv[1]!, argv[2]!));
  if (count > AUTOCLAIM_ALLOC_LIMIT) {
    fail('ERR Insufficient memory, failed allocating transient memory, COUNT too high.');
  }
  const result = autoClaim(s, g, argv[3]!, start, minIdle, Number(count), justId, nowMs(ctx));
  const prop = new Propagation(ctx);
  for (const e of result.effects) {
    prop.add(xclaimArgv(argv[1]!, g, e));
    ctx.addDirty(1);
  }
  prop.finish();
  return [
    formatId(result.cursor ?? MIN_ID),
    result.claimed.map((id) => (justId ? formatId(id) : entryReply(id, s.get(id) ?? null))),
    result.deleted.map((id) => formatId(id)),
  ];
}

export const commands: CommandSpec[] = [
  xgroup,
  command('xreadgroup', -7, ['write', 'blocking'], null, xreadgroup, {
    keys: xreadgroupKeys,
    categories: ['write', 'stream', 'slow', 'blocking'],
  }),
  command('xack', -4, ['write', 'fast'], { first: 1, last: 1, step: 1 }, xack, {
    categories: ['write', 'stream', 'fast'],
  }),
  command('xpending', -3, ['readonly'], { first: 1, last: 1, step: 1 }, xpending, {
    categories: ['read', 'stream', 'slow'],
  }),
  command('xclaim', -6, ['write', 'fast'], { first: 1, last: 1, step: 1 }, xclaimCommand, {
    categories: ['write', 'stream', 'fast'],
  }),
  command('xautoclaim', -6, ['write', 'fast'], { first: 1, last: 1, step: 1 }, xautoclaim, {
    categories: ['write', 'stream', 'fast'],
  }),
];
