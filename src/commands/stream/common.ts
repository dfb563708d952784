// What the stream command families share: looking streams and groups up, the errors for a
// missing one, entry and XREAD-shaped replies, and CONFIG's node limits.
import type { ConsumerGroup } from '../../engine/consumer-group.js';
import { keyOf } from '../../engine/keyspace.js';
import { type NodeLimits, Stream, type StoredEntry } from '../../engine/stream.js';
import type { StreamId } from '../../engine/stream-id.js';
import { fail, MapReply, NULL_ARRAY, type Reply, StreamIdReply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { parseInt64, text } from '../args.js';
import type { Config } from '../config.js';
import type { Context } from '../types.js';
import { lookupTyped } from '../typed-lookup.js';

/** Key positions of the commands whose only key is argv[1]. */
export const oneKey = { first: 1, last: 1, step: 1 };

/** The stream at argv key `keyArg`, or "ERR no such key". */
export function existingStream(ctx: Context, keyArg: Buffer): Stream {
  const s = lookupTyped(ctx.db, keyOf(keyArg), 'stream');
  if (s === undefined) fail(Errors.noSuchKey);
  return s;
}

export function lookupGroup(s: Stream | undefined, name: Buffer): ConsumerGroup | undefined {
  return s?.groups.get(name.toString('latin1'));
}

/** Groups in Redis's order (the rax: byte order of names). */
export function sortedGroups(s: Stream): ConsumerGroup[] {
  return [...s.groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The error of XPENDING, XCLAIM, XAUTOCLAIM ... when the key or the group is missing. */
export function noGroupError(key: Buffer, group: Buffer): string {
  return Errors.noGroupForRead(text(key), text(group));
}

/** The error of XGROUP and XINFO CONSUMERS when the stream has no such group. */
export function noSuchGroupForKey(key: Buffer, group: Buffer): string {
  return Errors.noSuchGroup(text(key), text(group));
}

export interface GroupOf {
  key: string;
  stream: Stream;
  group: ConsumerGroup;
}

/** The stream at argv[1] and its group argv[2], or NOGROUP when either is missing. */
export function existingGroup(ctx: Context, argv: Buffer[]): GroupOf {
  const key = keyOf(argv[1]!);
  const stream = lookupTyped(ctx.db, key, 'stream');
  const group = lookupGroup(stream, argv[2]!);
  if (stream === undefined || group === undefined) fail(noGroupError(argv[1]!, argv[2]!));
  return { key, stream, group };
}

/** XCLAIM / XAUTOCLAIM's min-idle-time: an integer (else `cmd`'s error), negatives as 0. */
export function minIdleArg(arg: Buffer, cmd: string): number {
  const v = parseInt64(arg);
  if (v === undefined) fail(Errors.invalidMinIdle(cmd));
  return v < 0n ? 0 : Number(v);
}

/** A stream id as a reply (its bulk string is written from its numbers, see StreamIdReply). */
export function idReply(id: StreamId): StreamIdReply {
  return new StreamIdReply(id.ms, id.seq);
}

/** An entry as XRANGE replies it: [id, [field, value, ...]]; a deleted one has a null array. */
export function entryReply(id: StreamId, fields: Buffer[] | null): Reply {
  return [idReply(id), fields === null ? NULL_ARRAY : fields];
}

export function entriesReply(entries: StoredEntry[]): Reply {
  return entries.map((e) => entryReply(e.id, e.fields));
}

/** The XREAD / XREADGROUP reply: [[key, entries], ...] in RESP2, a map in RESP3. */
export function streamsReply(ctx: Context, served: Array<[Buffer, Reply]>): Reply {
  if (ctx.client.resp === 3) return new MapReply(served);
  return served.map(([k, v]) => [k, v]);
}

/**
 * Records `n` changes to `key` (none when 0): one signals the key (waking blocked readers and
 * WATCHers), the rest only count as dirty, as Redis's server.dirty += n after one signal.
 */
export function signalChanges(ctx: Context, key: string, n: number): void {
  if (n <= 0) return;
  ctx.modified(key);
  ctx.addDirty(n - 1);
}

function readNodeLimits(config: Config): NodeLimits {
  return Object.freeze({
    maxBytes: config.getNumber('stream-node-max-bytes'),
    maxEntries: config.getNumber('stream-node-max-entries'),
  });
}

// nodeLimits() is read by every XADD: the limits are looked up again only after a CONFIG SET
// (Config.derived), not as two Map lookups and an object per command. One instance's config at
// a time is remembered (a process normally has one).
let limitsOf: { config: Config; get: () => NodeLimits } | null = null;

/** The node limits from CONFIG (stream-node-max-bytes / -entries); shared, never to be changed. */
export function nodeLimits(ctx: Context): NodeLimits {
  const config = ctx.instance.config;
  if (limitsOf === null || limitsOf.config !== config) limitsOf = { config, get: config.derived(readNodeLimits) };
  return limitsOf.get();
}

/** The clock commands use (the keyspace's, so tests may inject one). */
export function nowMs(ctx: Context): number {
  return ctx.instance.keyspace.now();
}
