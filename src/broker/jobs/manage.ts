// Managing jobs by id or in bulk, without Lua (Queue.remove, promote, changeDelay, retryJob,
// clean, drain, obliterate): each change is a WATCH … MULTI on a link of its own
// (watch-link.ts), so a worker or a delayed mover changing the same job meanwhile aborts it
// and it is tried again on what is there now.
//
//   delayed job   its member is found by the record's `due` (ZRANGE BYSCORE due due: O(log n));
//                 the MULTI writes the delayed movers' guard key (delayed.ts), which they
//                 WATCH, and WATCHes it too: a move in flight aborts, or aborts this.
//   waiting job   its entry is the record's `entry` (written after the add: entry-link.ts)
//                 while no group has been given it yet; without one (the link not written
//                 yet), the entry is found by scanning the entries no group has been delivered
//                 (XRANGE from the groups' last-delivered id, 1,000 at a time: O(backlog), as
//                 BullMQ's LREM of its wait list). A worker's
//                 XREADGROUP does not touch any key a WATCH sees, so the MULTI checks instead:
//                 XDEL of the entry, then XPENDING of it per group. An entry found pending was
//                 taken by a worker in between: its job is active, its record is put back
//                 (HSETNX: the worker's own writes win) and remove() rejects with
//                 JobActiveError. (Its entry stays deleted; the worker holds its fields and
//                 acknowledges it as usual, but a claim after that worker dies finds no entry.)
//   prioritized   its member in PREFIX:prioritized is the one scored at the record's `priority`
//                 (priority.ts); the MULTI writes and WATCHes that set's movers' guard.
//   finished job  the record, its logs and its index (completed / failed sorted set).
//
// A removal also frees the job's deduplication id if the job holds it, and sends a `removed`
// event (field `prev`: the state it was removed from); promote sends `promoted` then `waiting`.
import type { Arg, BlockingConnection, Connection, Value } from '../../client/connection.js';
import { type Codec, Fields } from '../codec.js';
import { decodeDelayedMember, delayedKey, moverGuardKey, serverTimeMs } from '../delayed.js';
import { pauseKey } from '../pause.js';
import { pairsToObject } from '../replies.js';
import { schedulesKey } from '../schedules.js';
import { execWatched } from '../watched-multi.js';
import { eventCommand } from './events.js';
import { archivedEntries, archivedRecords, deleteArchivedCommands, oldestArchived } from './archive.js';
import { decodeJobOptions } from './job-options.js';
import { jobKeys, type JobKeys } from './keys.js';
import { type JobState, recordFromReply, RecordField } from './record.js';
import type { WatchLink } from './watch-link.js';
import { linkEntries } from './entry-link.js';
import { decodePrioritizedMember, PRIORITY_FIELD, PriorityOrder, prioritizedAdd, prioritizedKey, WAKE_FIELD } from './priority.js';

/** The job is being run (active or waiting out a retry): it cannot be removed now. */
export class JobActiveError extends Error {
  constructor(
    readonly jobId: string,
    message = `job ${jobId} is active (a worker holds it): it cannot be removed now`,
  ) {
    super(message);
    this.name = 'JobActiveError';
  }
}

/** The job is not in a state the operation applies to (promote a job that is not delayed, …). */
export class JobStateError extends Error {
  constructor(
    readonly jobId: string,
    /** Its state, or null when there is no such job. */
    readonly state: JobState | null,
    /** The state(s) the operation needs. */
    readonly wanted: string,
  ) {
    super(`job ${jobId} is ${state === null ? 'not found' : state}, not ${wanted}`);
    this.name = 'JobStateError';
  }
}

export type CleanState = 'completed' | 'failed' | 'delayed' | 'waiting';

const SCAN_COUNT = 1000;
const MAX_ROUNDS = 100;
const GUARD_TTL_MS = 600_000;

interface Found {
  jobId: string;
  record: Record<string, string>;
}

/** The management operations on one (partition) stream. */
export class JobManager {
  private readonly keys: JobKeys;
  private readonly order = new PriorityOrder();
  /** The prioritized set's movers' guard (priority.ts). */
  private readonly prioritizedGuard: string;

  constructor(
    private readonly conn: Connection,
    private readonly watch: WatchLink,
    readonly stream: string,
    private readonly codec: Codec,
    private readonly eventsMaxLen: number | null,
  ) {
    this.keys = jobKeys(stream);
    this.prioritizedGuard = `${prioritizedKey(stream)}:mover`;
  }

  /** Removes a waiting, delayed, completed or failed job; false when there is none. */
  remove(jobId: string): Promise<boolean> {
    let misses = 0;
    return this.rounds(async (link) => {
      await link.call('WATCH', this.keys.record(jobId), moverGuardKey(this.stream));
      const record = recordFromReply((await link.call('HGETALL', this.keys.record(jobId))) as Value);
      if (record === null) {
        const archived = await this.archived(link, [jobId]);
        return archived.length === 0 ? false : (await this.removeArchived(link, archived)) === null ? null : true;
      }
      const state = record[RecordField.state] as JobState;
      const found = { jobId, record };
      if (state === 'active' || state === 'retrying') throw new JobActiveError(jobId);
      if (state === 'delayed') {
        const member = await this.memberOf(link, jobId, record);
        if (member === null) return null; // moved meanwhile: look again
        return (await this.removeDelayed(link, [{ ...found, member }])) === null ? null : true;
      }
      if (state === 'prioritized') {
        const member = await this.prioritizedMemberOf(link, jobId, record);
        if (member === null) return null; // moved meanwhile: look again
        return (await this.removePrioritized(link, [{ ...found, member }])) === null ? null : true;
      }
      if (state === 'waiting') {
        const linked = record[RecordField.entry];
        const [hit] = linked !== undefined && (await this.stillWaiting(link, linked)) ? [{ jobId, entry: linked }] : await this.waitingEntries(link, (id) => id === jobId, 1);
        if (hit === undefined) {
          // Taken meanwhile: the worker's write of its start is on its way. Look again, a while.
          if (++misses < 20) return null;
          throw new JobActiveError(jobId, `job ${jobId} is no longer waiting (its entry was delivered or trimmed): it cannot be removed now`);
        }
        const removed = await this.removeWaiting(link, [{ ...found, entry: hit.entry }]);
        if (removed === null) return null;
        if (removed.length === 0) throw new JobActiveError(jobId);
        return true;
      }
      return (await this.removeFinished(link, [found], state === 'completed' ? this.keys.completed : this.keys.failed)) === null ? null : true;
    }, `remove ${jobId}`);
  }

  /** Moves a delayed job into the stream now (JobStateError when it is not delayed). */
  promote(jobId: string): Promise<void> {
    return this.rounds(async (link) => {
      const { member } = await this.delayedJob(link, jobId, 'delayed (to promote)');
      if (member === null) return null;
      const job = decodeDelayedMember(member)!;
      // A job with a priority goes into the prioritized set, as the delayed mover would move it.
      const p = job.fields.indexOf(PRIORITY_FIELD);
      const zadd = p >= 0 && p % 2 === 0 ? prioritizedAdd(this.stream, Number(job.fields[p + 1]), this.order.next(await serverTimeMs(link)), jobId, job.fields) : null;
      const commands: Arg[][] = [
        ['ZREM', delayedKey(this.stream), member],
        zadd ?? ['XADD', this.stream, '*', ...job.fields],
        ['HSET', this.keys.record(jobId), RecordField.state, zadd === null ? 'waiting' : 'prioritized'],
        ...this.event('promoted', jobId),
        ...this.event('waiting', jobId),
        this.guard(),
      ];
      const exec = await this.exec(link, commands);
      if (exec === null) return null;
      if (zadd !== null) await this.conn.call('XADD', this.stream, '*', WAKE_FIELD, 'prioritized'); // idle workers look at the set
      else linkEntries(this.conn, this.stream, [{ jobId, entryId: String(exec[1]) }], () => {});
      return undefined;
    }, `promote ${jobId}`);
  }

  /** Sets a delayed job's due time to `delayMs` from now (server clock). */
  changeDelay(jobId: string, delayMs: number): Promise<void> {
    if (!(Number.isFinite(delayMs) && delayMs >= 0)) throw new RangeError('delayMs must be a finite number >= 0');
    return this.rounds(async (link) => {
      const { member } = await this.delayedJob(link, jobId, 'delayed (to change its delay)');
      if (member === null) return null;
      const due = (await serverTimeMs(link)) + Math.floor(delayMs);
      const commands: Arg[][] = [
        ['ZADD', delayedKey(this.stream), due, member],
        ['HSET', this.keys.record(jobId), RecordField.due, due],
        ...this.event('delayed', jobId, ['due', due, 'delay', Math.floor(delayMs)]),
        this.guard(),
      ];
      return (await this.exec(link, commands)) === null ? null : undefined;
    }, `changeDelay ${jobId}`);
  }

  /**
   * Adds a failed (dead-lettered) job again as a new entry with the same id and its data,
   * options and key, its attempts counted from 0. Its dead letter stays in the dead-letter
   * stream (a record of what happened; requeueing it too would run the job twice).
   */
  retryJob(jobId: string): Promise<void> {
    return this.rounds(async (link) => {
      await link.call('WATCH', this.keys.record(jobId));
      const record = recordFromReply((await link.call('HGETALL', this.keys.record(jobId))) as Value);
      const state = (record?.[RecordField.state] ?? (await this.archivedState(link, jobId))) as JobState | null;
      if (record === null || state !== 'failed') throw new JobStateError(jobId, state, 'failed (to retry)');
      const fields: Arg[] = [Fields.payload, record[RecordField.data] ?? '', Fields.contentType, this.codec.contentType];
      if (record[RecordField.key] !== undefined) fields.push(Fields.key, record[RecordField.key]);
      fields.push(Fields.jobId, jobId);
      if (record[RecordField.opts] !== undefined) fields.push(Fields.opts, record[RecordField.opts]);
      const r = this.keys.record(jobId);
      const commands: Arg[][] = [
        ['XADD', this.stream, '*', ...fields],
        ['ZREM', this.keys.failed, jobId],
        ['HDEL', r, RecordField.finished, RecordField.error, RecordField.stack, RecordField.result, RecordField.started, RecordField.consumer, RecordField.progress, RecordField.entry],
        ['HSET', r, RecordField.state, 'waiting', RecordField.attempts, 0],
        ...this.event('waiting', jobId),
      ];
      const exec = await this.exec(link, commands);
      if (exec === null) return null;
      linkEntries(this.conn, this.stream, [{ jobId, entryId: String(exec[0]) }], () => {});
      return undefined;
    }, `retryJob ${jobId}`);
  }

  /**
   * Removes up to `limit` jobs in `state` older than `graceMs` (finished: by finish time;
   * delayed: by add time; waiting: by entry id, the add time); resolves to their ids.
   */
  async clean(graceMs: number, limit: number, state: CleanState): Promise<string[]> {
    if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new RangeError('graceMs must be a finite number >= 0');
    if (!(Number.isInteger(limit) && limit >= 0)) throw new RangeError('limit must be an integer >= 0 (0: no limit)');
    const max = limit === 0 ? Infinity : limit;
    const before = (await serverTimeMs(this.conn)) - graceMs;
    const out: string[] = [];
    while (out.length < max) {
      const batch = Math.min(SCAN_COUNT, max - out.length);
      const ids = await this.rounds(async (link) => {
        if (state === 'completed' || state === 'failed') {
          // The archive holds the oldest completed jobs (archive.ts): those first.
          const old = state === 'completed' ? await oldestArchived(link, this.keys, batch, before) : [];
          const fromArchive = old.length === 0 ? [] : await this.removeArchived(link, old);
          if (fromArchive === null) return null;
          const left = batch - fromArchive.length;
          if (left === 0) return fromArchive;
          const index = this.keys[state];
          const ids = ((await link.call('ZRANGE', index, '-inf', before, 'BYSCORE', 'LIMIT', 0, left)) as Value[]).map(String);
          if (ids.length === 0) return fromArchive;
          await link.call('WATCH', ...ids.map((id) => this.keys.record(id)));
          // read under WATCH: a job retried since the ZRANGE is not finished any more
          const records = (await this.recordsOf(link, ids)).filter((r) => r.record[RecordField.state] === undefined || r.record[RecordField.state] === state);
          if (records.length === 0) return ids.length < left ? fromArchive : fromArchive.length > 0 ? fromArchive : null;
          const removed = await this.removeFinished(link, records, index);
          return removed === null ? (fromArchive.length > 0 ? fromArchive : null) : [...fromArchive, ...removed];
        }
        if (state === 'delayed') {
          const picked = await this.delayedMembers(link, batch, (r) => Number(r[RecordField.added] ?? 0) <= before);
          return picked.length === 0 ? [] : this.removeDelayed(link, picked);
        }
        const hits = await this.waitingEntries(link, (_, entry) => Number(entry.split('-')[0]) <= before, batch);
        if (hits.length === 0) return [];
        await link.call('WATCH', ...hits.map((h) => this.keys.record(h.jobId)));
        const records = await this.recordsOf(link, hits.map((h) => h.jobId));
        const byId = new Map(records.map((r) => [r.jobId, r.record]));
        return this.removeWaiting(link, hits.map((h) => ({ jobId: h.jobId, entry: h.entry, record: byId.get(h.jobId) ?? {} })));
      }, `clean ${state}`);
      out.push(...ids);
      if (ids.length < batch) break;
    }
    return out;
  }

  /** Removes every waiting, delayed and prioritized job (not active ones); resolves to how many. */
  async drain(): Promise<number> {
    let count = 0;
    for (;;) {
      const n = (await this.clean(0, SCAN_COUNT, 'waiting')).length;
      count += n;
      if (n < SCAN_COUNT) break;
    }
    for (;;) {
      const removed = await this.rounds(async (link) => {
        const picked = await this.delayedMembers(link, SCAN_COUNT, () => true);
        return picked.length === 0 ? [] : this.removeDelayed(link, picked);
      }, 'drain delayed');
      count += removed.length;
      if (removed.length === 0) break;
    }
    for (;;) {
      const removed = await this.rounds(async (link) => {
        await link.call('WATCH', this.prioritizedGuard);
        const members = ((await link.call('ZRANGE', prioritizedKey(this.stream), 0, SCAN_COUNT - 1)) as Value[]).map(String);
        const jobs = members.flatMap((m) => {
          const id = decodePrioritizedMember(m)?.jobId;
          return id === undefined ? [] : [{ member: m, jobId: id }];
        });
        if (jobs.length === 0) return [];
        await link.call('WATCH', ...jobs.map((j) => this.keys.record(j.jobId)));
        const records = await this.recordsOf(link, jobs.map((j) => j.jobId));
        return this.removePrioritized(link, jobs.map((j, i) => ({ ...j, record: records[i]!.record })));
      }, 'drain prioritized');
      count += removed.length;
      if (removed.length === 0) break;
    }
    return count;
  }

  /** How many entries the stream's groups hold (delivered, not acknowledged). */
  async activeCount(): Promise<number> {
    return (await groupsOf(this.conn, this.stream)).reduce((n, g) => n + g.pending, 0);
  }

  /**
   * Deletes every key of the queue: the stream, its delayed set and movers' guard, schedules and
   * pause flags, and every key under its prefix (records, logs, completed / failed, events,
   * deduplication ids, the idempotence script's keys). Not the dead-letter stream.
   */
  async obliterate(): Promise<number> {
    const fixed = [this.stream, delayedKey(this.stream), moverGuardKey(this.stream), schedulesKey(this.stream), pauseKey(this.stream)];
    let count = Number(await this.conn.call('DEL', ...fixed));
    const pattern = `${escapeGlob(this.keys.prefix)}:*`;
    let cursor = '0';
    do {
      const [next, keys] = (await this.conn.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT)) as [Value, Value[]];
      cursor = String(next);
      // the stream's own `STREAM:…` keys match too when the prefix is the stream name; never another stream's
      if (keys.length > 0) count += Number(await this.conn.call('DEL', ...keys.map(String)));
    } while (cursor !== '0');
    return count;
  }

  // --- internals -------------------------------------------------------------------------------

  /** Runs `body` under WATCH until it does not answer null (an aborted EXEC, a state in flux). */
  private rounds<R>(body: (link: BlockingConnection) => Promise<R | null>, what: string): Promise<R> {
    return this.watch.run(async (link) => {
      for (let i = 0; i < MAX_ROUNDS; i++) {
        const r = await body(link);
        await link.call('UNWATCH');
        if (r !== null) return r;
        // a worker or mover is changing it: let its writes land (a timer, not a microtask)
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, i)));
      }
      throw new Error(`${what} on ${this.stream}: the job kept changing (${MAX_ROUNDS} tries)`);
    });
  }

  private event(name: 'removed' | 'promoted' | 'waiting' | 'delayed', jobId: string, fields: Arg[] = []): Arg[][] {
    return this.eventsMaxLen === null ? [] : [eventCommand(this.keys.events, this.eventsMaxLen, name, jobId, fields)];
  }

  /** The movers' guard write: a move that read the delayed set before this EXEC aborts. */
  private guard(): Arg[] {
    return ['SET', moverGuardKey(this.stream), String(Date.now()), 'PX', GUARD_TTL_MS];
  }

  private async exec(link: BlockingConnection, commands: Arg[][]): Promise<Value[] | null> {
    const exec = await execWatched(link, commands.map((c) => c.map(String)));
    if (exec === null) return null;
    const failed = (exec as Array<Value | Error>).find((r) => r instanceof Error);
    if (failed) throw failed;
    return exec;
  }

  /** A delayed job's record and member, under WATCH; JobStateError when it is not delayed. */
  private async delayedJob(link: BlockingConnection, jobId: string, wanted: string): Promise<{ record: Record<string, string>; member: string | null }> {
    await link.call('WATCH', this.keys.record(jobId), moverGuardKey(this.stream));
    const record = recordFromReply((await link.call('HGETALL', this.keys.record(jobId))) as Value);
    const state = (record?.[RecordField.state] ?? (await this.archivedState(link, jobId))) as JobState | null;
    if (record === null || state !== 'delayed') throw new JobStateError(jobId, state, wanted);
    return { record, member: await this.memberOf(link, jobId, record) };
  }

  /** The delayed member of a job, found by its due time; null when it is not in the set. */
  private async memberOf(link: BlockingConnection, jobId: string, record: Record<string, string>): Promise<string | null> {
    const due = record[RecordField.due];
    if (due === undefined) return null;
    const members = (await link.call('ZRANGE', delayedKey(this.stream), due, due, 'BYSCORE')) as Value[];
    for (const m of members) if (decodeDelayedMember(String(m))?.jobId === jobId) return String(m);
    return null;
  }

  /** A prioritized job's member (scored at its priority, WATCHed with the guard); null when not in the set. */
  private async prioritizedMemberOf(link: BlockingConnection, jobId: string, record: Record<string, string>): Promise<string | null> {
    await link.call('WATCH', this.prioritizedGuard);
    const priority = record[RecordField.priority];
    const members = (await link.call('ZRANGE', prioritizedKey(this.stream), priority ?? '-inf', priority ?? '+inf', 'BYSCORE')) as Value[];
    for (const m of members) if (decodePrioritizedMember(String(m))?.jobId === jobId) return String(m);
    return null;
  }

  /** Whether an entry is in the stream and given to no group yet. */
  private async stillWaiting(link: BlockingConnection, entry: string): Promise<boolean> {
    const [groups, rows] = await Promise.all([groupsOf(link, this.stream), link.call('XRANGE', this.stream, entry, entry).catch(() => []) as Promise<Value[]>]);
    return rows.length === 1 && groups.every((g) => compareIds(entry, g.lastDelivered) > 0);
  }

  private async removePrioritized(link: BlockingConnection, jobs: Array<Found & { member: string }>): Promise<string[] | null> {
    const dedup = await this.heldDedup(link, jobs);
    const commands: Arg[][] = [
      ['ZREM', prioritizedKey(this.stream), ...jobs.map((j) => j.member)],
      ['DEL', ...jobs.flatMap((j) => [this.keys.record(j.jobId), this.keys.logs(j.jobId)]), ...dedup],
      ...jobs.flatMap((j) => this.event('removed', j.jobId, ['prev', 'prioritized'])),
      ['SET', this.prioritizedGuard, String(Date.now()), 'PX', GUARD_TTL_MS],
    ];
    return (await this.exec(link, commands)) === null ? null : jobs.map((j) => j.jobId);
  }

  /** Up to `limit` delayed jobs (soonest first) whose record passes `pick`, WATCHed with the guard. */
  private async delayedMembers(link: BlockingConnection, limit: number, pick: (r: Record<string, string>) => boolean): Promise<Array<Found & { member: string }>> {
    await link.call('WATCH', moverGuardKey(this.stream));
    const out: Array<Found & { member: string }> = [];
    for (let from = 0; out.length < limit; from += SCAN_COUNT) {
      const members = ((await link.call('ZRANGE', delayedKey(this.stream), from, from + SCAN_COUNT - 1)) as Value[]).map(String);
      const jobs = members.map((m) => ({ member: m, jobId: decodeDelayedMember(m)?.jobId ?? null })).filter((j): j is { member: string; jobId: string } => j.jobId !== null);
      const records = await this.recordsOf(link, jobs.map((j) => j.jobId));
      for (let i = 0; i < jobs.length && out.length < limit; i++) {
        const r = records[i]!.record;
        if (pick(r)) out.push({ ...jobs[i]!, record: r });
      }
      if (members.length < SCAN_COUNT) break;
    }
    if (out.length > 0) await link.call('WATCH', ...out.map((j) => this.keys.record(j.jobId)));
    return out;
  }

  /** The records of these ids ({} where none). */
  private async recordsOf(link: BlockingConnection, ids: string[]): Promise<Found[]> {
    const replies = await Promise.all(ids.map((id) => link.call('HGETALL', this.keys.record(id))));
    return ids.map((jobId, i) => ({ jobId, record: recordFromReply(replies[i] as Value) ?? {} }));
  }

  /**
   * Waiting entries (delivered to no group yet) whose job passes `pick`, oldest first, at most
   * `limit`. Entries without a job id are skipped.
   */
  private async waitingEntries(link: BlockingConnection, pick: (jobId: string, entry: string) => boolean, limit: number): Promise<Array<{ jobId: string; entry: string }>> {
    const groups = await groupsOf(link, this.stream);
    let start = groups.length === 0 ? '-' : `(${groups.map((g) => g.lastDelivered).reduce((a, b) => (compareIds(a, b) <= 0 ? a : b))}`;
    const out: Array<{ jobId: string; entry: string }> = [];
    for (;;) {
      const rows = (await link.call('XRANGE', this.stream, start, '+', 'COUNT', SCAN_COUNT).catch(() => [])) as Array<[Value, Value[]]>;
      for (const [id, fields] of rows) {
        const entry = String(id);
        if (groups.some((g) => compareIds(entry, g.lastDelivered) <= 0)) continue; // delivered to a group
        for (let i = 0; i + 1 < fields.length; i += 2) {
          if (String(fields[i]) !== Fields.jobId) continue;
          const jobId = String(fields[i + 1]);
          if (pick(jobId, entry)) out.push({ jobId, entry });
          break;
        }
        if (out.length >= limit) return out;
      }
      if (rows.length < SCAN_COUNT) return out;
      start = `(${String(rows[rows.length - 1]![0])}`;
    }
  }

  /** The deduplication keys these jobs hold (GET = the job), WATCHed. */
  private async heldDedup(link: BlockingConnection, jobs: Found[]): Promise<string[]> {
    const keys = jobs.flatMap((j) => {
      const id = decodeJobOptions(j.record[RecordField.opts]).deduplication?.id;
      return id === undefined ? [] : [{ key: this.keys.dedup(id), jobId: j.jobId }];
    });
    if (keys.length === 0) return [];
    await link.call('WATCH', ...keys.map((k) => k.key));
    const held = await Promise.all(keys.map((k) => link.call('GET', k.key)));
    return keys.filter((k, i) => held[i] !== null && String(held[i]) === k.jobId).map((k) => k.key);
  }

  private async removeFinished(link: BlockingConnection, jobs: Found[], index: string): Promise<string[] | null> {
    const dedup = await this.heldDedup(link, jobs);
    const prev = index === this.keys.completed ? 'completed' : 'failed';
    const commands: Arg[][] = [
      ['DEL', ...jobs.flatMap((j) => [this.keys.record(j.jobId), this.keys.logs(j.jobId)]), ...dedup],
      ['ZREM', index, ...jobs.map((j) => j.jobId)],
      ...jobs.flatMap((j) => this.event('removed', j.jobId, ['prev', prev])),
    ];
    return (await this.exec(link, commands)) === null ? null : jobs.map((j) => j.jobId);
  }

  /** 'completed' when the job is in the archive (archive.ts), else null: no record of it. */
  private async archivedState(link: BlockingConnection, jobId: string): Promise<'completed' | null> {
    return (await archivedEntries(link, this.keys, [jobId])).size > 0 ? 'completed' : null;
  }

  /** Archived completed jobs among these ids, with their records and entries. */
  private async archived(link: BlockingConnection, ids: string[]): Promise<Array<Found & { entry: string }>> {
    return [...(await archivedRecords(link, this.keys, ids))].map(([jobId, { entry, record }]) => ({ jobId, record, entry }));
  }

  private async removeArchived(link: BlockingConnection, jobs: Array<Found & { entry: string }>): Promise<string[] | null> {
    const dedup = await this.heldDedup(link, jobs);
    const commands: Arg[][] = [
      ...(await deleteArchivedCommands(link, this.keys, jobs)),
      ['DEL', ...jobs.map((j) => this.keys.logs(j.jobId)), ...dedup],
      ...jobs.flatMap((j) => this.event('removed', j.jobId, ['prev', 'completed'])),
    ];
    return (await this.exec(link, commands)) === null ? null : jobs.map((j) => j.jobId);
  }

  private async removeDelayed(link: BlockingConnection, jobs: Array<Found & { member: string }>): Promise<string[] | null> {
    const dedup = await this.heldDedup(link, jobs);
    const commands: Arg[][] = [
      ['ZREM', delayedKey(this.stream), ...jobs.map((j) => j.member)],
      ['DEL', ...jobs.flatMap((j) => [this.keys.record(j.jobId), this.keys.logs(j.jobId)]), ...dedup],
      ...jobs.flatMap((j) => this.event('removed', j.jobId, ['prev', 'delayed'])),
      this.guard(),
    ];
    return (await this.exec(link, commands)) === null ? null : jobs.map((j) => j.jobId);
  }

  /**
   * Removes waiting entries and their records; resolves to the ids removed (those a worker took
   * in the meantime are left to it, their records put back), or null when EXEC was aborted.
   */
  private async removeWaiting(link: BlockingConnection, jobs: Array<Found & { entry: string }>): Promise<string[] | null> {
    const groups = (await groupsOf(link, this.stream)).map((g) => g.name);
    const commands: Arg[][] = [['XDEL', this.stream, ...jobs.map((j) => j.entry)]];
    for (const g of groups) for (const j of jobs) commands.push(['XPENDING', this.stream, g, j.entry, j.entry, 1]);
    commands.push(['DEL', ...jobs.flatMap((j) => [this.keys.record(j.jobId), this.keys.logs(j.jobId)])]);
    const exec = await this.exec(link, commands);
    if (exec === null) return null;
    const taken = new Set<string>();
    groups.forEach((_, gi) =>
      jobs.forEach((j, ji) => {
        if ((exec[1 + gi * jobs.length + ji] as Value[]).length > 0) taken.add(j.jobId);
      }),
    );
    const removed = jobs.filter((j) => !taken.has(j.jobId));
    const after: Arg[][] = [];
    // Taken by a worker between the scan and the MULTI: its record back, the worker's own fields first.
    for (const j of jobs.filter((x) => taken.has(x.jobId))) for (const [f, v] of Object.entries(j.record)) after.push(['HSETNX', this.keys.record(j.jobId), f, v]);
    const dedup = await this.heldDedup(link, removed);
    if (dedup.length > 0) after.push(['DEL', ...dedup]);
    for (const j of removed) after.push(...this.event('removed', j.jobId, ['prev', 'waiting']));
    if (after.length > 0) {
      const replies = await this.conn.pipeline(after);
      const failed = replies.find((r) => r instanceof Error);
      if (failed) throw failed;
    }
    return removed.map((j) => j.jobId);
  }
}

interface GroupInfo {
  name: string;
  lastDelivered: string;
  pending: number;
}

async function groupsOf(conn: Connection, stream: string): Promise<GroupInfo[]> {
  let reply: Value[];
  try {
    reply = (await conn.call('XINFO', 'GROUPS', stream)) as Value[];
  } catch {
    return []; // no such stream
  }
  return reply.map(pairsToObject).map((g) => ({ name: String(g['name']), lastDelivered: String(g['last-delivered-id']), pending: Number(g['pending']) }));
}

/** Orders stream ids (`ms-seq`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
}

/** A key prefix as a SCAN pattern matching itself (glob characters escaped). */
function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

