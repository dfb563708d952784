// The keys of per-key fairness (docs/fairness.md) and the producer's side of it. A job added
// with `fairKey: K` does not go into the stream: it waits at the tail of K's lane, and K is in
// the index of keys with jobs waiting. Workers move jobs from the lanes into the stream as they
// have room, serving keys round-robin (taker.ts); in the stream they are ordinary entries.
//
//   {STREAM}:fair:keys           sorted set: the keys whose lane may hold jobs; score = when the
//                                key was last served (server ms), so the lowest is served next
//   {STREAM}:fair:lane:K         list: K's waiting jobs, oldest first; each element the JSON of
//                                the entry's fields (`fair-key K` among them)
//   {STREAM}:fair:active:K       sorted set: K's jobs moved and not finished (lease per job, as
//                                global-concurrency.ts), with a per-key concurrency
//   {STREAM}:fair:rate:K:WINDOW  counter of K's jobs moved in a window, with a per-key limiter
//   {STREAM}:fair:mover          the movers' guard (WATCHed and written by every move)
//
// Every key starts with the stream's hash tag ({STREAM}, or the tag the stream's name already
// carries: partition.ts's slotPrefix), so on Redis Cluster they share the stream's slot: one
// MULTI moves jobs from lanes into the stream. A key name K may be any string.
import type { Arg, Connection, Value } from '../../client/connection.js';
import { slotPrefix } from '../partition.js';

/** The entry field carrying a job's fair key. */
export const FAIR_KEY_FIELD = 'fair-key';
/** The entry field carrying the token of the job's per-key slot (set by the move). */
export const FAIR_SLOT_FIELD = 'fair-slot';
/** A wake-up entry's value (field jobs/priority.ts's WAKE_FIELD): a lane got its first job. */
export const FAIR_WAKE = 'fair';

export function fairIndexKey(stream: string): string {
  return `${slotPrefix(stream)}:fair:keys`;
}

export function laneKey(stream: string, key: string): string {
  return `${slotPrefix(stream)}:fair:lane:${key}`;
}

export function activeKey(stream: string, key: string): string {
  return `${slotPrefix(stream)}:fair:active:${key}`;
}

export function rateKey(stream: string, key: string, window: number): string {
  return `${slotPrefix(stream)}:fair:rate:${key}:${window}`;
}

export function fairGuardKey(stream: string): string {
  return `${slotPrefix(stream)}:fair:mover`;
}

/** A fair key from add()'s options: a non-empty string, or RangeError. */
export function fairKeyOf(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0) throw new RangeError('fairKey must be a non-empty string');
  return key;
}

/**
 * The producer's commands for one job (inside its MULTI): RPUSH (its reply, the lane's length,
 * is 1 when the lane was empty: then the producer sends a wake-up entry) and the index's ZADD NX
 * (a key already waiting keeps its turn).
 */
export function fairAdd(stream: string, key: string, fields: Arg[], nowMs: number): Arg[][] {
  return [
    ['RPUSH', laneKey(stream, key), JSON.stringify(fields.map(String))],
    ['ZADD', fairIndexKey(stream), 'NX', nowMs, key],
  ];
}

/**
 * The fair adds of one MULTI with their lanes' commands grouped: one RPUSH per lane with its
 * jobs' elements in order, and one ZADD NX per key (the first add's time: NX keeps it anyway),
 * ahead of the jobs' other commands. A producer's batch of one key's jobs then costs the
 * server two commands instead of two per job. `adds`: each fair add's commands, fairAdd's two
 * first. `pushes`: per RPUSH of `head` (its index there), how many elements it pushed: a reply
 * equal to that count means the lane was empty (a wake-up is due).
 */
export function groupFairAdds(adds: Arg[][][]): { head: Arg[][]; rest: Arg[][][]; pushes: Array<{ at: number; count: number }> } {
  const rpush = new Map<string, Arg[]>();
  const zadd = new Map<string, Arg[]>();
  for (const commands of adds) {
    const [push, index] = commands as [Arg[], Arg[]];
    const lane = String(push[1]);
    const grouped = rpush.get(lane);
    if (grouped === undefined) rpush.set(lane, [...push]);
    else grouped.push(push[2]!);
    const key = String(index[4]);
    if (!zadd.has(key)) zadd.set(key, index);
  }
  const head = [...rpush.values(), ...zadd.values()];
  return { head, rest: adds.map((c) => c.slice(2)), pushes: [...rpush.values()].map((c, at) => ({ at, count: c.length - 2 })) };
}

/** A lane element's entry fields; null when it is not one of ours. */
export function decodeLaneElement(element: string): string[] | null {
  try {
    const parsed = JSON.parse(element) as unknown;
    if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length % 2 !== 0 || !parsed.every((x) => typeof x === 'string')) return null;
    return parsed as string[];
  } catch {
    return null;
  }
}

/** Per-key backlog, as `sluice stats` and the dashboard show it. */
export interface FairBacklog {
  /** Keys with jobs waiting in their lanes (the index's size). */
  keys: number;
  /** Jobs waiting in all the lanes looked at. */
  waiting: number;
  /** The busiest keys (of the first 200 in the index), most jobs waiting first, at most 10. */
  top: Array<{ key: string; waiting: number }>;
}

/** Reads the index and the lanes' lengths (a pipeline); nothing for a stream without fair keys. */
export async function readFairBacklog(conn: Connection, stream: string): Promise<FairBacklog> {
  const [card, listed] = (await conn.pipeline([['ZCARD', fairIndexKey(stream)], ['ZRANGE', fairIndexKey(stream), 0, 199]])) as [Value | Error, Value | Error];
  if (card instanceof Error || listed instanceof Error || (listed as Value[]).length === 0) return { keys: 0, waiting: 0, top: [] };
  const keys = (listed as Value[]).map(String);
  const lengths = await conn.pipeline(keys.map((k) => ['LLEN', laneKey(stream, k)]));
  const all = keys.map((key, i) => ({ key, waiting: lengths[i] instanceof Error ? 0 : Number(lengths[i]) })).filter((k) => k.waiting > 0);
  all.sort((a, b) => b.waiting - a.waiting || (a.key < b.key ? -1 : 1));
  return { keys: Number(card), waiting: all.reduce((n, k) => n + k.waiting, 0), top: all.slice(0, 10) };
}
