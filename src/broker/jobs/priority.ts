// Per-job priority (`producer.add(data, { priority: n })`, 1 is the highest, 0 / undefined is
// none): a prioritized job waits in a sorted set beside its stream until a worker with free
// slots moves it in, so the stream and the consumer group stay exactly as for plain jobs.
//
//   PREFIX:prioritized          sorted set; score = the priority (1..2^21), member =
//                               `ORDER:JSON`: ORDER is 11 base-36 digits of the producer's add
//                               time (server clock, ms) and 4 of its own sequence, so jobs of one
//                               priority go first in, first out; JSON is `[jobId, field, value, …]`,
//                               the entry's fields (delayed.ts's member layout), `priority` among them
//   PREFIX:prioritized:mover    the movers' guard (WATCHed and written by every move)
//   an entry `sluice-wake prioritized` in the stream: sent by a producer whose add found the set
//                               empty (ZCARD in its MULTI), so an idle worker blocked in
//                               XREADGROUP wakes up; workers acknowledge it and run nothing
//
// Taking (PriorityTaker, one per StreamConsumer): while it has reason to think the set is not
// empty, with each read the worker moves up to its free slots' worth of the lowest members
// into the stream: WATCH the guard, ZRANGE 0 n-1, then one MULTI of XADD + ZREM + the record's
// state (`waiting`) per member, SET guard and ZCARD (what is left); EXEC. The XREADGROUP sent
// beside it delivers them (blocked, the XADDs wake it) as ordinary entries (PEL, claims, acks,
// retries, dead letters unchanged); their records then learn their entry ids (entry-link.ts).
// A MULTI is applied whole or not at all, so a kill -9 anywhere loses no job: before EXEC it is
// still in the set, after it an entry like any other. Another mover's EXEC in between aborts ours (the guard):
// we read again. The set costs O(log n) per add (ZADD) and per take (ZREM); plain jobs never
// touch it, and a worker reads it only after a wake, an entry that was moved, or the periodic
// check (EXISTS every pauseCheckMs) finds it not empty.
//
// Order: plain entries already in the stream go first (as BullMQ takes its wait list before
// its prioritized set); among prioritized jobs the lowest number starts first, within the window
// of jobs moved and not yet taken (at most the free slots of the workers that moved them).
import type { Arg, BlockingConnection, Connection, Value } from '../../client/connection.js';
import { execWatched } from '../watched-multi.js';
import { slotPrefix } from '../partition.js';
import { linkEntries } from './entry-link.js';
import { jobKeys } from './keys.js';
import { RecordField } from './record.js';

/** BullMQ's bound: priorities are 1 (highest) .. 2^21 (lowest); 0 is none. */
export const MAX_PRIORITY = 2 ** 21;

/** The field of a wake-up entry (its value is `prioritized`). */
export const WAKE_FIELD = 'sluice-wake';

/** The entry field carrying a moved job's priority. */
export const PRIORITY_FIELD = 'priority';

/** The guard expires when no mover has moved for this long. */
const GUARD_TTL_MS = 600_000;

/** The sorted set of a stream's prioritized jobs (in the stream's cluster slot). */
export function prioritizedKey(stream: string): string {
  return `${slotPrefix(stream)}:prioritized`;
}

function guardKey(stream: string): string {
  return `${prioritizedKey(stream)}:mover`;
}

/** A job's priority from add()'s options: undefined for none (0 or absent); RangeError otherwise. */
export function priorityOf(priority: number | undefined): number | undefined {
  if (priority === undefined || priority === 0) return undefined;
  if (!Number.isInteger(priority) || priority < 0 || priority > MAX_PRIORITY) throw new RangeError(`priority must be an integer from 0 to ${MAX_PRIORITY} (1 is the highest, 0 none)`);
  return priority;
}

/** Makes the members' order keys: add time (ms) then a per-producer sequence, fixed width. */
export class PriorityOrder {
  private seq = 0;
  next(nowMs: number): string {
    const s = this.seq;
    this.seq = (this.seq + 1) % 36 ** 4;
    return Math.max(0, Math.floor(nowMs)).toString(36).padStart(11, '0') + s.toString(36).padStart(4, '0');
  }
}

/** The ZADD of a prioritized job. */
export function prioritizedAdd(stream: string, priority: number, order: string, jobId: string, fields: Arg[]): Arg[] {
  return ['ZADD', prioritizedKey(stream), priority, `${order}:${JSON.stringify([jobId, ...fields.map(String)])}`];
}

/** The job id and entry fields of a member; null when it is not one of ours. */
export function decodePrioritizedMember(member: string): { jobId: string; fields: string[] } | null {
  const colon = member.indexOf(':');
  if (colon < 0) return null;
  try {
    const parsed = JSON.parse(member.slice(colon + 1)) as unknown;
    if (!Array.isArray(parsed) || parsed.length < 3 || parsed.length % 2 === 0 || !parsed.every((x) => typeof x === 'string')) return null;
    const [jobId, ...fields] = parsed as string[];
    return { jobId: jobId!, fields };
  } catch {
    return null;
  }
}

/**
 * After a producer's MULTI that added `added` prioritized jobs to `stream` and ended with the
 * set's ZCARD: wakes idle workers when the set was empty before (a card no larger than what
 * this MULTI added). A producer killed in between leaves the wake to the workers' periodic check.
 */
export async function wakeIfFirst(conn: Connection, stream: string, card: Value, added: number): Promise<void> {
  if (Number(card) <= added) await conn.call('XADD', stream, '*', WAKE_FIELD, 'prioritized');
}

/** True for a wake-up entry (acknowledged, never run). */
export function isWakeEntry(fields: Record<string, string> | null): boolean {
  return fields !== null && fields[WAKE_FIELD] !== undefined && fields['payload'] === undefined;
}

/** Moves a stream's lowest-numbered prioritized jobs into it as workers have room (see the top). */
export class PriorityTaker {
  /** The set may hold jobs: the next read moves some first. */
  pending = true;
  private link: Promise<BlockingConnection> | null = null;
  private closed = false;

  constructor(
    private readonly conn: Connection,
    private readonly stream: string,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** A wake-up entry or a moved job was read: the set may hold more. */
  noteEntry(fields: Record<string, string> | null): void {
    if (fields !== null && (fields[PRIORITY_FIELD] !== undefined || fields[WAKE_FIELD] !== undefined)) this.pending = true;
  }

  /** The periodic check: true when the set holds jobs nobody here knew of (wake the read). */
  async check(): Promise<boolean> {
    if (this.pending) return false;
    const n = Number(await this.conn.call('EXISTS', prioritizedKey(this.stream)));
    if (n === 0 || this.pending) return false;
    this.pending = true;
    return true;
  }

  /** Moves up to `count` jobs into the stream; resolves to how many this call moved. */
  async take(count: number): Promise<number> {
    if (count <= 0 || this.closed) return 0;
    this.link ??= this.conn.duplicate();
    const link = await this.link;
    const key = prioritizedKey(this.stream);
    const guard = guardKey(this.stream);
    for (let attempt = 0; attempt < 20 && !this.closed; attempt++) {
      const [, lowest] = await Promise.all([link.call('WATCH', guard), link.call('ZRANGE', key, 0, count - 1) as Promise<Value[]>]);
      if (lowest.length === 0) {
        await link.call('UNWATCH');
        this.pending = false;
        return 0;
      }
      const keys = jobKeys(this.stream);
      const commands: string[][] = [];
      for (const m of lowest) {
        const member = String(m);
        const job = decodePrioritizedMember(member);
        // Not a member of ours: moved verbatim, so the worker dead-letters it as malformed.
        commands.push(job === null ? ['XADD', this.stream, '*', 'prioritized-member', member] : ['XADD', this.stream, '*', ...job.fields], ['ZREM', key, member]);
        if (job !== null) commands.push(['HSET', keys.record(job.jobId), RecordField.state, 'waiting']);
      }
      // Last, what is left: a producer whose ZADD came after this EXEC saw the set empty and
      // sends a wake; one whose ZADD came before is counted here.
      commands.push(['SET', guard, String(Date.now()), 'PX', String(GUARD_TTL_MS)], ['ZCARD', key]);
      const exec = await execWatched(link, commands);
      if (exec === null) continue; // another worker moved meanwhile: read the lowest again
      const errors = exec.filter((r) => r instanceof Error);
      if (errors.length > 0) throw errors[0] as Error;
      // ZREM 0: this EXEC ran without its WATCH (a client library resent it after a reconnect)
      // and another move had the member: its XADD is a duplicate, delete it again.
      const duplicates: string[] = [];
      const links: Array<{ jobId: string; entryId: string }> = [];
      let at = 0;
      for (const m of lowest) {
        const job = decodePrioritizedMember(String(m));
        if (Number(exec[at + 1]) === 0) duplicates.push(String(exec[at]));
        else if (job !== null) links.push({ jobId: job.jobId, entryId: String(exec[at]) });
        at += job === null ? 2 : 3;
      }
      if (duplicates.length > 0) await link.call('XDEL', this.stream, ...duplicates);
      // The records learn their entries' ids (entry-link.ts), as for jobs added to the stream.
      linkEntries(this.conn, this.stream, links, this.onError);
      this.pending = Number(exec[exec.length - 1]) > 0;
      return lowest.length - duplicates.length;
    }
    return 0;
  }

  close(): void {
    this.closed = true;
    const link = this.link;
    this.link = null;
    void link?.then((l) => l.close({ force: true })).catch(() => {});
  }
}
