// Adds that must not make a second job: an explicit `jobId` (or `idempotencyKey`, the same for
// jobs) and `deduplication: { id, ttl?, extend?, replace? }`, on every server, Redis 7 included,
// without Lua. Check-and-set on a link of its own (watch-link.ts):
//
//   WATCH PREFIX:job:ID (and PREFIX:dedup:DID) → EXISTS / GET → MULTI (the add's own commands,
//   and SET PREFIX:dedup:DID ID [PX ttl]) EXEC
//
// An existing record (or a dedup key held by a job) means the existing job: its id is returned
// and nothing is written. Two producers racing on one id both WATCH the record; the first EXEC
// creates it, the second EXEC is aborted (null) and its retry sees the record: one job. Only
// adds with a jobId / idempotencyKey / deduplication take this path; random ids cannot collide.
//
// Deduplication: the key holds the job id; without a ttl it lives until the job finishes (the
// worker's completion / dead-letter MULTI deletes it: job-writes.ts) or is removed (manage.ts);
// with a ttl it expires then (whatever the job's state). `extend` sets the ttl again on each
// add it deduplicates; `replace` (debounce), when the holding job is still delayed, replaces
// its data and due time: its delayed member is swapped for a new one in the same MULTI (which
// writes the delayed movers' guard key, so a move in flight aborts, and WATCHes it).
import type { Arg, BlockingConnection, Value } from '../../client/connection.js';
import { decodeDelayedMember, delayedKey, moverGuardKey } from '../delayed.js';
import { withScriptText } from '../idempotence.js';
import { withJobAddText } from './add-script.js';
import { execWatched } from '../watched-multi.js';
import { ReplicationError } from '../producer.js';
import { archivedEntries } from './archive.js';
import { jobKeys } from './keys.js';
import { RecordField } from './record.js';
import type { WatchLink } from './watch-link.js';
import type { DeduplicationOptions } from './job-options.js';

/** One add that must be unique, as the Producer built it. */
export interface UniqueAdd {
  jobId: string;
  /** True when the id was given (jobId / idempotencyKey): an existing record means that job. */
  checkRecord: boolean;
  dedup?: DeduplicationOptions;
  /** The add's commands (entry or delayed member, record, event) for a job id. */
  build(jobId: string): Arg[][];
  /** Whether the add is delayed (a replace needs it). */
  delayed: boolean;
}

const MAX_ROUNDS = 1000;

/**
 * Sends unique adds of one stream (in order) on the watch link; resolves to each add's job id
 * (the existing job's where it was a duplicate). `need`: WAIT for that many replicas after.
 */
export function sendUnique(watch: WatchLink, stream: string, adds: UniqueAdd[], need: number, waitTimeoutMs: number): Promise<string[]> {
  return watch.run(async (link) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const ids = await attempt(link, stream, adds);
      if (ids === null) continue; // a watched key changed: look again
      if (need > 0) {
        const acked = Number(await link.call('WAIT', need, waitTimeoutMs));
        if (acked < need) throw new ReplicationError(ids[ids.length - 1]!, acked, need);
      }
      return ids;
    }
    throw new Error(`unique add to ${stream}: the ids kept changing (${MAX_ROUNDS} tries)`);
  });
}

/** One WATCH … EXEC round; null when EXEC was aborted. */
async function attempt(link: BlockingConnection, stream: string, adds: UniqueAdd[]): Promise<string[] | null> {
  const keys = jobKeys(stream);
  const recordKeys = [...new Set(adds.filter((a) => a.checkRecord).map((a) => keys.record(a.jobId)))];
  const dedupKeys = [...new Set(adds.filter((a) => a.dedup !== undefined).map((a) => keys.dedup(a.dedup!.id)))];
  const watched = [...recordKeys, ...dedupKeys];
  const replies = await Promise.all([link.call('WATCH', ...watched), ...recordKeys.map((k) => link.call('EXISTS', k)), ...dedupKeys.map((k) => link.call('GET', k))]);
  const exists = new Map<string, boolean>(recordKeys.map((k, i) => [k, Number(replies[1 + i]) === 1]));
  // A completed job's record may have moved to the archive (archive.ts): it exists all the same.
  // (The move DELs the record, which the WATCH above sees.)
  const unseen = [...new Set(adds.filter((a) => a.checkRecord && !exists.get(keys.record(a.jobId))).map((a) => a.jobId))];
  for (const id of (await archivedEntries(link, keys, unseen)).keys()) exists.set(keys.record(id), true);
  const holder = new Map<string, string | null>(dedupKeys.map((k, i) => [k, replies[1 + recordKeys.length + i] === null ? null : String(replies[1 + recordKeys.length + i])]));

  // Debounce: the delayed members of the jobs holding an id, for those adds that replace.
  const replacing = new Map<string, { member: string; state: string } | null>();
  const toReplace = [...new Set(adds.filter((a) => a.dedup?.replace && a.delayed && holder.get(keys.dedup(a.dedup.id)) != null).map((a) => holder.get(keys.dedup(a.dedup!.id))!))];
  if (toReplace.length > 0) {
    await link.call('WATCH', moverGuardKey(stream), ...toReplace.map((id) => keys.record(id)));
    for (const id of toReplace) replacing.set(id, await delayedMemberOf(link, stream, id));
  }

  const commands: Arg[][] = [];
  const ids: string[] = [];
  const replaced = new Map<string, string>();
  let guard = false;
  for (const add of adds) {
    const dkey = add.dedup === undefined ? null : keys.dedup(add.dedup.id);
    const held = dkey === null ? null : holder.get(dkey)!;
    if (dkey !== null && held !== null) {
      ids.push(held);
      if (add.dedup!.extend) commands.push(['SET', dkey, held, 'PX', add.dedup!.ttl!, 'XX']);
      const old = replacing.get(held);
      if (add.dedup!.replace && add.delayed && old != null && old.state === 'delayed') {
        // The newest replace wins: each removes the member the last one added.
        commands.push(['ZREM', delayedKey(stream), replaced.get(held) ?? old.member]);
        const built = add.build(held).map((c) => (c[0] === 'HSETNX' ? ['HSET', c[1]!, RecordField.state, 'delayed'] : c));
        const zadd = built.find((c) => c[0] === 'ZADD');
        if (zadd !== undefined) replaced.set(held, String(zadd[3]));
        commands.push(...built);
        guard = true;
      }
      continue;
    }
    if (add.checkRecord && exists.get(keys.record(add.jobId))) {
      ids.push(add.jobId);
      continue;
    }
    commands.push(...add.build(add.jobId));
    if (add.checkRecord) exists.set(keys.record(add.jobId), true); // a second add of it in this batch
    if (dkey !== null) {
      commands.push(add.dedup!.ttl === undefined ? ['SET', dkey, add.jobId] : ['SET', dkey, add.jobId, 'PX', add.dedup!.ttl]);
      holder.set(dkey, add.jobId);
    }
    ids.push(add.jobId);
  }
  if (guard) commands.push(['SET', moverGuardKey(stream), String(Date.now()), 'PX', 600_000]);
  if (commands.length === 0) return ids;
  // The idempotence script by its text: a NOSCRIPT inside the MULTI would fail the XADD alone.
  const exec = await execWatched(link, withJobAddText(withScriptText(commands)).map((c) => c.map(String)));
  if (exec === null) return null;
  const failed = (exec as Array<Value | Error>).find((r) => r instanceof Error);
  if (failed) throw failed;
  return ids;
}

/** The delayed member of a job (found by its record's due time) and the record's state. */
async function delayedMemberOf(link: BlockingConnection, stream: string, jobId: string): Promise<{ member: string; state: string } | null> {
  const [state, due] = (await link.call('HMGET', jobKeys(stream).record(jobId), RecordField.state, RecordField.due)) as Value[];
  if (state === null || due === null) return null;
  const members = (await link.call('ZRANGE', delayedKey(stream), String(due), String(due), 'BYSCORE')) as Value[];
  for (const m of members) if (decodeDelayedMember(String(m))?.jobId === jobId) return { member: String(m), state: String(state) };
  return null;
}
