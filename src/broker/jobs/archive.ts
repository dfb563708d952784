// The archive: where completed jobs' records go once the retention pass has seen them, to be
// kept in a fraction of the memory a hash per job takes (a key costs ~100 bytes before its
// first field, and a sorted-set member ~100 more, on Redis as on sluice).
//
//   PREFIX:archive          a stream, one entry per completed job, oldest finish first. Every
//                           entry has the same fields in the same order, so a stream node keeps
//                           the names once (its master entry) and each entry only its values.
//   PREFIX:archive:N        the index: N = a hash of the job id, modulo the bucket count. Field
//                           job id, value its entry's id as one integer (ms * 1000 + seq). Small
//                           enough buckets stay listpacks: ~40 bytes a job, not ~90 in one big hash.
//   PREFIX:archive:buckets  the bucket count, fixed by the first compaction from the retention
//                           count (about 64 jobs a bucket), 1024 when the count is unbounded.
//
// Compaction (compact) moves the oldest records of the completed set, once finished over a
// second ago (a fast queue's bounded records are removed before that), into the archive under
// WATCH of the records and the archive: entry ids are chosen here (so the index can be written
// in the same MULTI), after the stream's last-generated-id; the record hash and its completed-set
// member go. Readers (readRecords) look for the hash first, then the index: a job is in exactly
// one of the two at any time, the move being one transaction.
//
// Measured on redis-server 7.0 (bench/jobs-vs-bullmq.ts, 10,000 kept completed jobs, events
// streams aside): ~160 bytes a job this way, ~467 as hash + sorted-set member (BullMQ: ~405).
// A compaction costs its process ~50 us of CPU a record (three commands each through ioredis).
import type { BlockingConnection, Connection, Value } from '../../client/connection.js';
import { pairsToObject } from '../replies.js';
import { execWatched } from '../watched-multi.js';
import type { JobKeys } from './keys.js';
import type { WatchLink } from './watch-link.js';
import { RecordField, recordFromReply } from './record.js';

/** An archive entry's fields, in this order in every entry (see the header). */
const F = { id: 'j', data: 'd', result: 'r', finished: 'f', added: 'a', started: 's', attempts: 'n', consumer: 'c', entry: 'e', rest: 'x' } as const;
/** The record fields an entry has a field of its own for; the rest go to `x` as JSON. */
const OWN = new Set<string>([RecordField.data, RecordField.result, RecordField.finished, RecordField.added, RecordField.started, RecordField.attempts, RecordField.consumer, RecordField.state, RecordField.entry]);

/** Jobs per bucket the bucket count aims at: under hash-max-listpack-entries (128), with room. */
const PER_BUCKET = 64;
const MAX_BUCKETS = 1024;
/** Records compacted per transaction. */
export const COMPACT_BATCH = 500;
/**
 * A record is compacted once it finished this long ago: under a small count and a fast queue
 * the retention pass removes most records sooner, and moving them first would be work thrown
 * away (and would slow the pass that keeps the bound).
 */
const COMPACT_AFTER_MS = 1000;

/** The bucket count for a retention count (Infinity: unbounded): a power of two. */
export function bucketsFor(count: number): number {
  if (!Number.isFinite(count)) return MAX_BUCKETS;
  let n = 1;
  while (n < MAX_BUCKETS && n * PER_BUCKET < count) n *= 2;
  return n;
}

/** The bucket of a job id (FNV-1a over its UTF-16 code units). */
export function bucketOf(jobId: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < jobId.length; i++) h = Math.imul(h ^ jobId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % buckets;
}

/** An entry id as the index stores it, and back. */
const packId = (ms: number, seq: number): number => ms * 1000 + seq;
const unpackId = (n: number): string => `${Math.floor(n / 1000)}-${n % 1000}`;

/**
 * The job's stream entry id, relative to the archive entry's ms: (ms - entry ms) * 1000 + seq,
 * a small integer (a listpack stores it in 2-4 bytes, the id's text takes 17); the id itself
 * when that does not fit (an entry id after the finish, a seq past 999).
 */
function packEntry(entry: string | undefined, ms: number): string {
  if (entry === undefined) return '';
  const dash = entry.indexOf('-');
  const back = ms - Number(entry.slice(0, dash));
  const seq = Number(entry.slice(dash + 1));
  return back >= 0 && seq < 1000 && Number.isSafeInteger(back * 1000 + seq) ? String(back * 1000 + seq) : entry;
}

function unpackEntry(v: string, ms: number): string {
  if (!/^\d+$/.test(v)) return v;
  const n = Number(v);
  return `${ms - Math.floor(n / 1000)}-${n % 1000}`;
}

/** The entry's fields for a completed record, its id's ms given. */
function entryFields(jobId: string, r: Record<string, string>, ms: number): string[] {
  const rel = (f: string): string => (r[f] === undefined ? '' : String(Number(r[f]) - ms));
  const rest: Record<string, string> = {};
  let more = false;
  for (const [k, v] of Object.entries(r)) {
    if (OWN.has(k)) continue;
    rest[k] = v;
    more = true;
  }
  return [
    F.id, jobId,
    F.data, r[RecordField.data] ?? '',
    F.result, r[RecordField.result] ?? '',
    F.finished, rel(RecordField.finished),
    F.added, rel(RecordField.added),
    F.started, rel(RecordField.started),
    F.attempts, r[RecordField.attempts] ?? '',
    F.consumer, r[RecordField.consumer] ?? '',
    F.entry, packEntry(r[RecordField.entry], ms),
    F.rest, more ? JSON.stringify(rest) : '',
  ];
}

/** An archive entry back as the record it was (state completed); null if it is not one. */
export function recordOfEntry(entryId: string, fields: Value[]): { jobId: string; record: Record<string, string> } | null {
  const ms = Number(entryId.slice(0, entryId.indexOf('-')));
  const v = recordFromReply(fields) ?? {};
  if (v[F.id] === undefined) return null;
  let record: Record<string, string> = {};
  try {
    if (v[F.rest]) record = JSON.parse(v[F.rest]) as Record<string, string>;
  } catch {
    // an entry not written by compact(): its own fields are still read
  }
  record[RecordField.state] = 'completed';
  const abs = (f: string, to: string): void => {
    if (v[f] !== undefined && v[f] !== '') record[to] = String(ms + Number(v[f]));
  };
  // data and result keep '' (an empty payload, an undefined result); the others mean absent by it
  const str = (f: string, to: string): void => {
    if (v[f] !== undefined && (v[f] !== '' || to === RecordField.result || to === RecordField.data)) record[to] = v[f]!;
  };
  str(F.data, RecordField.data);
  str(F.result, RecordField.result);
  abs(F.finished, RecordField.finished);
  abs(F.added, RecordField.added);
  abs(F.started, RecordField.started);
  str(F.attempts, RecordField.attempts);
  str(F.consumer, RecordField.consumer);
  if (v[F.entry]) record[RecordField.entry] = unpackEntry(v[F.entry]!, ms);
  return { jobId: v[F.id]!, record };
}

function pushTo<K>(map: Map<K, string[]>, key: K, ...values: string[]): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, values);
  else list.push(...values);
}

/** The archive's bucket count, or null while nothing was ever archived. */
async function bucketCount(conn: Connection | BlockingConnection, keys: JobKeys): Promise<number | null> {
  const n = (await conn.call('GET', keys.archiveBuckets)) as Value;
  return n === null ? null : Number(n);
}

/**
 * Where archived jobs are: their entry ids (the index's word), by job id. `buckets`: the bucket
 * count when the caller read it already (else read here).
 */
export async function archivedEntries(conn: Connection | BlockingConnection, keys: JobKeys, ids: string[], buckets?: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (ids.length === 0) return out;
  buckets ??= (await bucketCount(conn, keys)) ?? undefined;
  if (buckets === undefined) return out;
  const replies = await conn.pipeline(ids.map((id) => ['HGET', keys.archiveIndex(bucketOf(id, buckets)), id]));
  ids.forEach((id, i) => {
    const r = replies[i];
    if (r instanceof Error) throw r;
    if (r !== null && r !== undefined) out.set(id, unpackId(Number(r)));
  });
  return out;
}

/** Archived jobs' records and entry ids, by job id (those not archived are absent). */
export async function archivedRecords(conn: Connection | BlockingConnection, keys: JobKeys, ids: string[]): Promise<Map<string, { entry: string; record: Record<string, string> }>> {
  const where = await archivedEntries(conn, keys, ids);
  const out = new Map<string, { entry: string; record: Record<string, string> }>();
  const found = [...where];
  const rows = found.length === 0 ? [] : await conn.pipeline(found.map(([, entry]) => ['XRANGE', keys.archive, entry, entry]));
  found.forEach(([jobId, entry], i) => {
    if (rows[i] instanceof Error) throw rows[i];
    const row = (rows[i] as Array<[Value, Value[]]>)[0];
    const hit = row === undefined ? null : recordOfEntry(String(row[0]), row[1]);
    if (hit !== null && hit.jobId === jobId) out.set(jobId, { entry, record: hit.record });
  });
  return out;
}

/**
 * Jobs' records wherever they are (the hash, else the archive), one stream's keys each; null
 * where the job has no record. Two round trips when none is archived, four when some are.
 */
export async function readRecords(conn: Connection, wanted: Array<{ keys: JobKeys; id: string }>): Promise<Array<Record<string, string> | null>> {
  if (wanted.length === 0) return [];
  const replies = await conn.pipeline(wanted.map((w) => ['HGETALL', w.keys.record(w.id)]));
  const out = replies.map((reply) => {
    if (reply instanceof Error) throw reply;
    return recordFromReply(reply as Value);
  });
  const missing = new Map<JobKeys, string[]>();
  wanted.forEach((w, i) => {
    if (out[i] === null) pushTo(missing, w.keys, w.id);
  });
  const found = new Map<JobKeys, Map<string, { entry: string; record: Record<string, string> }>>();
  await Promise.all([...missing].map(async ([keys, ids]) => found.set(keys, await archivedRecords(conn, keys, ids))));
  return out.map((r, i) => r ?? found.get(wanted[i]!.keys)?.get(wanted[i]!.id)?.record ?? null);
}

/** Archived jobs, newest first, up to `count`. */
export async function newestArchived(conn: Connection, keys: JobKeys, count: number): Promise<Array<{ jobId: string; record: Record<string, string> }>> {
  if (count <= 0) return [];
  const rows = (await conn.call('XREVRANGE', keys.archive, '+', '-', 'COUNT', count)) as Array<[Value, Value[]]>;
  return rows.flatMap(([id, fields]) => recordOfEntry(String(id), fields) ?? []);
}

/** Archived jobs, oldest first, up to `count`, finished at or before `maxMs` (if given). */
export async function oldestArchived(conn: Connection | BlockingConnection, keys: JobKeys, count: number, maxMs?: number): Promise<Array<{ entry: string; jobId: string; record: Record<string, string> }>> {
  if (count <= 0) return [];
  // An entry's id is at or after its finish (f <= 0): ids to maxMs hold every job finished by
  // then except those compacted late, which the record's finish time filters.
  const rows = (await conn.call('XRANGE', keys.archive, '-', maxMs === undefined ? '+' : String(Math.floor(maxMs)), 'COUNT', count)) as Array<[Value, Value[]]>;
  return rows.flatMap(([id, fields]) => {
    const hit = recordOfEntry(String(id), fields);
    if (hit === null) return [];
    if (maxMs !== undefined && Number(hit.record[RecordField.finished] ?? 0) > maxMs) return [];
    return [{ entry: String(id), ...hit }];
  });
}

/**
 * The commands deleting archived jobs (their entries and index fields; the caller adds their
 * other keys). Without a bucket count nothing was archived: [].
 */
export async function deleteArchivedCommands(conn: Connection | BlockingConnection, keys: JobKeys, jobs: Array<{ jobId: string; entry: string }>): Promise<string[][]> {
  if (jobs.length === 0) return [];
  const buckets = await bucketCount(conn, keys);
  if (buckets === null) return [];
  const byBucket = new Map<number, string[]>();
  for (const j of jobs) pushTo(byBucket, bucketOf(j.jobId, buckets), j.jobId);
  return [['XDEL', keys.archive, ...jobs.map((j) => j.entry)], ...[...byBucket].map(([b, ids]) => ['HDEL', keys.archiveIndex(b), ...ids])];
}

function lastGeneratedId(info: Value): { ms: number; seq: number } {
  const id = pairsToObject(info)['last-generated-id'];
  if (id === undefined || id === null) return { ms: 0, seq: 0 };
  const [ms, seq] = String(id).split('-');
  return { ms: Number(ms), seq: Number(seq) };
}

/** What a compaction step did: records moved, and whether more may be left (a full batch, or a lost race). */
export interface Compacted {
  moved: number;
  more: boolean;
}

/**
 * Moves up to COMPACT_BATCH of the oldest completed records into the archive, in one WATCHed
 * transaction. `count`: the retention count, for the bucket count.
 */
export async function compact(conn: Connection, watch: WatchLink, keys: JobKeys, count: number, now = Date.now()): Promise<Compacted> {
  // Read on the caller's connection: most passes find nothing old enough, and need no link.
  const [listed, inSet] = await conn.pipeline([
    ['ZRANGE', keys.completed, '-inf', String(now - COMPACT_AFTER_MS), 'BYSCORE', 'LIMIT', '0', String(COMPACT_BATCH), 'WITHSCORES'],
    ['ZCARD', keys.completed],
  ]);
  if (listed instanceof Error) throw listed;
  const members = listed as Value[];
  // Younger records wait (more: a later pass takes them), unless removed by then.
  if (members.length === 0) return { moved: 0, more: Number(inSet) > 0 };
  const more = members.length === 2 * COMPACT_BATCH || Number(inSet) > members.length / 2;
  const moved = await watch.run((link) => move(link, keys, count, members));
  return { moved: moved ?? 0, more: more || moved === null };
}

/** The move itself, under WATCH; null when EXEC was aborted. */
async function move(link: BlockingConnection, keys: JobKeys, count: number, members: Value[]): Promise<number | null> {
  const ids: string[] = [];
  for (let i = 0; i + 1 < members.length; i += 2) ids.push(String(members[i]));
  await link.call('WATCH', keys.archive, keys.archiveBuckets, ...ids.map((id) => keys.record(id)));
  const replies = await link.pipeline([...ids.map((id) => ['HGETALL', keys.record(id)]), ['XINFO', 'STREAM', keys.archive], ['GET', keys.archiveBuckets]]);
  const records = replies.slice(0, ids.length).map((r) => recordFromReply(r as Value));
  const info = replies[ids.length] instanceof Error ? null : (replies[ids.length] as Value);
  const stored = replies[ids.length + 1] as Value;
  const buckets = stored === null ? bucketsFor(count) : Number(stored);
  // A job completed twice (delivered again after a claim) is archived again: its first entry
  // goes. Only a job delivered more than once can have been (the index changes only with the
  // archive, which is WATCHed).
  const again = stored === null ? [] : ids.filter((_, i) => Number(records[i]?.[RecordField.attempts] ?? 0) > 1);
  const before = await archivedEntries(link, keys, again, buckets);
  let last = info === null ? { ms: 0, seq: 0 } : lastGeneratedId(info);
  const commands: string[][] = stored === null ? [['SET', keys.archiveBuckets, String(buckets), 'NX']] : [];
  const moved: string[] = [];
  const stale: string[] = [];
  const index = new Map<number, string[]>();
  ids.forEach((jobId, i) => {
    const r = records[i]!;
    // A member without its record (a crash between two writes) goes; one whose record is in
    // another state (written again meanwhile) stays for its writer.
    if (r === null) stale.push(jobId);
    if (r === null || r[RecordField.state] !== 'completed') return;
    const finished = Number(r[RecordField.finished] ?? members[2 * i + 1]);
    let ms = Math.max(finished, last.ms);
    let seq = ms === last.ms ? last.seq + 1 : 0;
    if (seq >= 1000) {
      ms++;
      seq = 0;
    }
    last = { ms, seq };
    commands.push(['XADD', keys.archive, `${ms}-${seq}`, ...entryFields(jobId, r, ms)]);
    const b = bucketOf(jobId, buckets);
    pushTo(index, b, jobId, String(packId(ms, seq)));
    moved.push(jobId);
  });
  if (moved.length === 0 && stale.length === 0) return 0;
  const replaced = moved.flatMap((id) => before.get(id) ?? []);
  if (replaced.length > 0) commands.push(['XDEL', keys.archive, ...replaced]);
  for (const [b, pairs] of index) commands.push(['HSET', keys.archiveIndex(b), ...pairs]);
  if (moved.length > 0) commands.push(['DEL', ...moved.map((id) => keys.record(id))]);
  commands.push(['ZREM', keys.completed, ...moved, ...stale]);
  const exec = await execWatched(link, commands);
  if (exec === null) return null;
  const failed = (exec as Array<Value | Error>).find((r) => r instanceof Error);
  if (failed) throw failed;
  return moved.length;
}
