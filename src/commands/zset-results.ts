// What several sorted-set commands make of their results: the reply of members (with scores:
// flat in RESP2, pairs in RESP3), and a stored result (the STORE forms, ZRANGESTORE) encoded as
// Redis encodes it, a listpack while it fits zset-max-listpack-entries and -value.
import { NOTIFY_GENERIC, NOTIFY_ZSET } from './keyspace-events.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { type ScoreEntry, SortedSetValue } from '../engine/sorted-set.js';
import { DoubleReply, type Reply } from '../resp/reply.js';
import type { Context } from './types.js';

/** zset-max-listpack-entries and -value, the limits a stored result is encoded by. */
export function zsetLimits(ctx: Context): [entries: number, value: number] {
  const config = ctx.instance.config;
  return [config.getNumber('zset-max-listpack-entries'), config.getNumber('zset-max-listpack-value')];
}

/**
 * A new sorted set of `entries`, added in the order given, as Redis builds a stored result. It
 * starts as a listpack and turns into a skiplist once a member is past zset-max-listpack-value
 * or the count past -entries ('incremental', as zsetAdd does: a -0 added while it is a listpack
 * is stored as 0); 'upfront' decides from the whole result first, as the STORE forms convert
 * their skiplist result (zsetConvertToListpackIfNeeded), so a skiplist result keeps -0.
 */
export function buildSortedSet(ctx: Context, entries: ScoreEntry[], mode: 'incremental' | 'upfront'): SortedSetValue {
  let [maxEntries, maxValue] = zsetLimits(ctx);
  if (mode === 'upfront' && (entries.length > maxEntries || entries.some((e) => e.member.length > maxValue))) {
    // Limits of 0 make the first member turn the set into a skiplist before it is stored.
    maxEntries = 0;
    maxValue = 0;
  }
  const zset = new SortedSetValue();
  for (const e of entries) zset.set(e.member, e.score, maxEntries, maxValue);
  return zset;
}

/** What a STORE form does with its result: store it, or delete the destination when empty. */
export function storeSortedSet(ctx: Context, dstArg: Buffer, entries: ScoreEntry[], mode: 'incremental' | 'upfront', event: string): Reply {
  const dst = keyOf(dstArg);
  if (entries.length > 0) {
    ctx.db.set(dst, buildSortedSet(ctx, entries, mode));
    ctx.modified(dst);
    ctx.notify(NOTIFY_ZSET, event, dst);
    return entries.length;
  }
  if (ctx.db.delete(dst)) {
    ctx.modified(dst);
    ctx.notify(NOTIFY_GENERIC, 'del', dst);
  }
  return 0;
}

/** Members (with scores when asked) as Redis replies them: flat in RESP2, pairs in RESP3. */
export function entriesReply(ctx: Context, entries: ScoreEntry[], withScores: boolean): Reply {
  const out: Reply[] = [];
  for (const e of entries) {
    if (!withScores) out.push(keyBytes(e.member));
    else if (ctx.client.resp === 3) out.push([keyBytes(e.member), new DoubleReply(e.score)]);
    else out.push(keyBytes(e.member), new DoubleReply(e.score));
  }
  return out;
}
