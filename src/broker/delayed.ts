// Delayed delivery: a delayed job waits in a sorted set beside its stream, `${stream}:delayed`
// (same hash slot when the stream name has a {tag}), scored by its due time in unix ms on the
// server's clock; the member is a JSON array `[jobId, field, value, field, value, ...]`, where
// the random job id keeps identical payloads apart.
//
// DelayedMover moves due members into the stream. Several movers (in several processes) may run
// at once: each pass WATCHes the movers' guard key `${stream}:delayed:mover`, reads the due
// members (score <= the server's TIME), then in one MULTI XADDs each, ZREMs them and writes the
// guard. If another mover moved meanwhile, EXEC returns null and nothing was written: the pass
// is retried after a short random pause (that mover goes on meanwhile). Producers adding to
// the set do not abort a move (they do not touch the guard). (If the WATCH was lost to a
// reconnect and the library resent the MULTI, a member's ZREM replies 0 and its XADD is undone.) A MULTI is applied whole or not at
// all, so a mover killed mid-move loses nothing and duplicates nothing. Each XADD is also
// idempotent where the server allows (idempotence.ts): `IDMP sluice-delayed jobId`, or the
// script with that pid and iid.
// The move itself needs no Lua (WATCH/MULTI and stream/sorted-set commands), so it runs on
// sluice server too; the script is only how a server without IDMP deduplicates the XADD.
// A delayed job with a priority (its fields hold `priority`) goes into the stream's prioritized
// set instead (jobs/priority.ts), record state `prioritized`, and one wake-up entry follows the
// move so idle workers take it.
import { randomFillSync } from 'node:crypto';
import type { BlockingConnection, Connection, Value } from '../client/connection.js';
import { execWatched } from './watched-multi.js';
import { probeStreamFeatures } from './stream-features.js';
import { type IdempotenceMode, idempotentXadd, probeIdempotence } from './idempotence.js';
import { Fields } from './codec.js';
import { jobKeys } from './jobs/keys.js';
import { linkEntries } from './jobs/entry-link.js';
import { RecordField } from './jobs/record.js';
import { eventCommand } from './jobs/events.js';
import { PRIORITY_FIELD, PriorityOrder, prioritizedAdd, WAKE_FIELD } from './jobs/priority.js';

/** The sorted set holding a stream's delayed jobs. */
export function delayedKey(stream: string): string {
  return `${stream}:delayed`;
}

/**
 * The key movers WATCH and write in each move, so that of two movers that read the same members
 * one EXEC aborts. Not the delayed set itself: producers add to it all the time, and every add
 * aborted the EXEC of a mover watching it (issue 32: seconds late while jobs were being added).
 */
export function moverGuardKey(stream: string): string {
  return `${delayedKey(stream)}:mover`;
}

/** The guard expires when no mover has moved for this long. */
const GUARD_TTL_MS = 600_000;

/** The producer id of the mover's idempotent XADDs (IDMP, or the idempotence script). */
export const DELAYED_PRODUCER_ID = 'sluice-delayed';

/**
 * A unique job id, 20 characters: the time (ms, base 36, 8 digits until 2059) and 72 random
 * bits (base64url). Short, as it is in every finished job's record key, index and events.
 */
export function newJobId(): string {
  if (randomPoolAt + JOB_ID_RANDOM_BYTES > randomPool.length) {
    randomFillSync(randomPool);
    randomPoolAt = 0;
  }
  const random = randomPool.toString('base64url', randomPoolAt, randomPoolAt + JOB_ID_RANDOM_BYTES);
  randomPoolAt += JOB_ID_RANDOM_BYTES;
  return `${Date.now().toString(36)}${random}`;
}

const JOB_ID_RANDOM_BYTES = 9;
/** Random bytes drawn 4 KiB at a time: a randomBytes() call per job cost 3% of a worker's time. */
const randomPool = Buffer.alloc(4095);
let randomPoolAt = randomPool.length;

/** The sorted-set member of a delayed job. */
export function encodeDelayedMember(jobId: string, fields: string[]): string {
  return JSON.stringify([jobId, ...fields]);
}

/** [jobId, fields] of a member, or null when it is not one (then it is moved as-is, see below). */
export function decodeDelayedMember(member: string): { jobId: string; fields: string[] } | null {
  try {
    const parsed = JSON.parse(member) as unknown;
    if (!Array.isArray(parsed) || parsed.length < 3 || parsed.length % 2 === 0) return null;
    if (!parsed.every((x) => typeof x === 'string')) return null;
    const [jobId, ...fields] = parsed as string[];
    return { jobId: jobId!, fields };
  } catch {
    return null;
  }
}

/** The server's clock in unix ms (TIME). */
export async function serverTimeMs(conn: Connection): Promise<number> {
  const [seconds, micros] = (await conn.call('TIME')) as Value[];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

export interface DelayedMoverOptions {
  /** The stream(s) whose `:delayed` sets are moved. */
  stream: string | string[];
  /** Longest sleep between passes when nothing is due sooner (default 100 ms). */
  pollMs?: number;
  /** Most jobs moved per MULTI (default 100). */
  batch?: number;
  /** Called with errors of a pass (the mover keeps running); silent by default. */
  onError?: (err: Error) => void;
  /** The events stream's cap (a 'waiting' event per job moved in), or null for no events. */
  eventsMaxLen?: number | null;
}

/** Moves due delayed jobs into their streams until close(). Safe to run in many processes. */
export class DelayedMover {
  readonly streams: string[];
  private readonly pollMs: number;
  private readonly batch: number;
  private started: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private closing = false;
  /** One per sleeping stream loop: close() ends the sleeps. */
  private readonly wakers = new Set<() => void>();
  private readonly links: BlockingConnection[] = [];
  private movedCount = 0;
  /** Streams whose pass is waiting on the server now (what abandon() reports). */
  private readonly busy = new Set<string>();
  private readonly priorityOrder = new PriorityOrder();

  constructor(
    private readonly conn: Connection,
    private readonly options: DelayedMoverOptions,
  ) {
    this.streams = typeof options.stream === 'string' ? [options.stream] : [...options.stream];
    this.pollMs = options.pollMs ?? 100;
    this.batch = options.batch ?? 100;
    if (!(this.pollMs > 0) || !(this.batch > 0)) throw new RangeError('pollMs and batch must be positive');
  }

  /** Jobs this mover put into their streams. */
  get moved(): number {
    return this.movedCount;
  }

  /** Starts moving (idempotent); resolves once the loops run (rejects if setting up failed). */
  start(): Promise<void> {
    this.started ??= (async () => {
      const mode = await probeIdempotence(this.conn, await probeStreamFeatures(this.conn));
      // WATCH state lives on a connection: each stream gets a link of its own.
      for (let i = 0; i < this.streams.length && !this.closing; i++) this.links.push(await this.conn.duplicate());
      if (this.closing) {
        // closed (or abandoned) while starting: the links made meanwhile go too
        for (const l of this.links.splice(0)) void l.close({ force: true });
        return;
      }
      this.running = Promise.all(this.streams.map((s, i) => this.loop(this.links[i]!, s, mode))).then(() => {});
    })();
    return this.started;
  }

  /** Stops after the pass in progress (a MULTI is never left half-sent). */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.wakers) wake();
    await this.started?.catch(() => {});
    await this.running;
    // Kept in `links` until closed: abandon() must still reach a QUIT left waiting.
    await Promise.all(this.links.map((l) => l.close().catch(() => {})));
  }

  /**
   * For a close that ran out of time (the server does not answer): stops now, drops the links,
   * and says which moves were left unanswered. A move is one MULTI, applied whole or not at
   * all, so whichever it was, no job is lost or doubled.
   */
  abandon(): string[] {
    this.closing = true;
    for (const wake of this.wakers) wake();
    const lost = [...this.busy].map((s) => `${s}: a move of due delayed jobs unanswered (one MULTI: applied whole or not at all)`);
    for (const l of this.links) void l.close({ force: true });
    return lost;
  }

  private async loop(link: BlockingConnection, stream: string, mode: IdempotenceMode): Promise<void> {
    while (!this.closing) {
      let sleepMs: number;
      this.busy.add(stream);
      try {
        sleepMs = await this.pass(link, stream, mode);
      } catch (err) {
        if (this.closing) break;
        await link.call('UNWATCH').catch(() => {});
        try {
          this.options.onError?.(err as Error);
        } catch {
          // an 'error' event without a listener: the mover keeps running regardless
        }
        sleepMs = this.pollMs;
      } finally {
        this.busy.delete(stream);
      }
      if (sleepMs > 0 && !this.closing) await this.sleep(sleepMs);
    }
  }

  /** One move; resolves to how long to sleep before the next (0: go on at once). */
  private async pass(link: BlockingConnection, stream: string, mode: IdempotenceMode): Promise<number> {
    const key = delayedKey(stream);
    const guard = moverGuardKey(stream);
    // One round trip: the WATCH, the server's clock, and the soonest members with their scores
    // (those due are a prefix; the first one not due says how long to sleep).
    const [, time, soonest] = await Promise.all([
      link.call('WATCH', guard),
      link.call('TIME'),
      link.call('ZRANGE', key, 0, this.batch - 1, 'WITHSCORES') as Promise<string[]>,
    ]);
    const [seconds, micros] = time as Value[];
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const due: string[] = [];
    for (let i = 0; i + 1 < soonest.length && Number(soonest[i + 1]) <= now; i += 2) due.push(soonest[i]!);
    if (due.length === 0) {
      await link.call('UNWATCH');
      if (soonest.length < 2) return this.pollMs;
      return Math.max(1, Math.min(this.pollMs, Number(soonest[1]) - now));
    }
    // Per member: XADD, then ZREM of that member alone (its reply says whether it was still
    // there); last, the guard's write, which aborts the EXEC of any mover that read meanwhile.
    // A job's record says it is waiting now (jobs/record.ts), and its event says so.
    const starts: number[] = [];
    const commands: string[][] = [];
    /** Per member: the ZADD into the prioritized set that moved it, else null (an XADD). */
    const prioritized: Array<string[] | null> = [];
    for (const member of due) {
      starts.push(commands.length);
      const job = decodeDelayedMember(member);
      const priority = job === null ? -1 : job.fields.indexOf(PRIORITY_FIELD);
      const zadd = job !== null && priority >= 0 && priority % 2 === 0 ? prioritizedAdd(stream, Number(job.fields[priority + 1]), this.priorityOrder.next(now), job.jobId, job.fields).map(String) : null;
      prioritized.push(zadd);
      commands.push(zadd ?? moveCommand(stream, member, mode), ['ZREM', key, member]);
      const jobId = jobIdOf(member);
      if (jobId === null) continue;
      const keys = jobKeys(stream);
      commands.push(['HSET', keys.record(jobId), RecordField.state, zadd === null ? 'waiting' : 'prioritized']);
      const cap = this.options.eventsMaxLen ?? null;
      if (cap !== null) commands.push(eventCommand(keys.events, cap, 'waiting', jobId).map(String));
    }
    commands.push(['SET', guard, String(now), 'PX', String(GUARD_TTL_MS)]);
    const exec = await execWatched(link, commands);
    // Another mover moved meanwhile, so one is active: it goes on within a millisecond, and
    // racing it again at once would mostly queue MULTIs of up to `batch` XADDs that abort.
    if (exec === null) return 1 + Math.floor((Math.random() * this.pollMs) / 2);
    const results = (exec as Value[]).slice(0, -1);
    const errors = results.filter((r) => r instanceof Error);
    if (errors.length > 0) throw errors[0] as Error;
    // ZREM 0: the member was gone: this EXEC ran without its WATCH (a client library resent the
    // transaction on a new connection after a reconnect), or someone removed it by hand. Without
    // IDMP that XADD is a duplicate of another move: delete it again. With IDMP (or the
    // idempotence script) the XADD returned the first id.
    const taken = due.map((_, i) => Number(results[starts[i]! + 1]) === 0);
    const duplicates = mode !== 'none' ? [] : due.map((_, i) => (taken[i] && prioritized[i] === null ? String(results[starts[i]!]) : null)).filter((id) => id !== null);
    if (duplicates.length > 0) await link.call('XDEL', stream, ...duplicates);
    // A prioritized one moved twice the same way: its second member goes again.
    const doubled = due.flatMap((_, i) => (taken[i] && prioritized[i] !== null ? [prioritized[i]![3]!] : []));
    if (doubled.length > 0) await link.call('ZREM', prioritized.find((z) => z !== null)![1]!, ...doubled);
    if (prioritized.some((z, i) => z !== null && !taken[i])) await link.call('XADD', stream, '*', WAKE_FIELD, 'prioritized');
    this.movedCount += taken.filter((t) => !t).length;
    // The records of the jobs moved in learn their entries' ids (jobs/entry-link.ts).
    const links = due.flatMap((member, i) => {
      const jobId = taken[i] || prioritized[i] !== null ? null : jobIdOf(member); // a prioritized one is not in the stream yet
      return jobId === null ? [] : [{ jobId, entryId: String(results[starts[i]!]) }];
    });
    linkEntries(this.conn, stream, links, (err) => {
      if (this.closing) return;
      try {
        this.options.onError?.(err as Error);
      } catch {
        // as in the loop: an 'error' event without a listener
      }
    });
    return due.length === this.batch ? 0 : Math.min(this.pollMs, 1);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }
}

/** The job id of a member written by a Producer with jobs on (its fields hold `job-id`), else null. */
function jobIdOf(member: string): string | null {
  const job = decodeDelayedMember(member);
  if (job === null) return null;
  for (let i = 0; i + 1 < job.fields.length; i += 2) if (job.fields[i] === Fields.jobId) return job.fields[i + 1]!;
  return null;
}

/** The XADD of one member; a member that is not a delayed job is moved verbatim (dead-lettered). */
function moveCommand(stream: string, member: string, mode: IdempotenceMode): string[] {
  const job = decodeDelayedMember(member);
  if (job === null) return ['XADD', stream, '*', 'delayed-member', member];
  if (mode === 'none') return ['XADD', stream, '*', ...job.fields];
  // With the script's text: an EVALSHA unknown to the server would fail inside the MULTI, alone.
  return idempotentXadd(mode, stream, DELAYED_PRODUCER_ID, job.jobId, ['*', ...job.fields], true).map(String);
}
