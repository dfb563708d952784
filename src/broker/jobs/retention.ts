// Keeps finished jobs bounded (removeOnComplete / removeOnFail, job-options.ts): after jobs
// finish, at most once per interval (sooner after half the count, at most 1000, finished), the records of completed (and of dead-lettered) jobs past
// the policy's count or age are deleted with their logs and index entries, oldest first, and
// the stream's acknowledged entries are trimmed by the same count or age (SafeTrimmer: never
// an entry a group still needs), or all of them when the records are kept without a bound,
// unless the worker keeps them (keepAcknowledged).
//
// A job added with a policy of its own applies it, as in BullMQ, to the pass after it finishes
// (the whole set is trimmed by it; `true` removes that job's record at once).
//
// Default: the newest 1,000 completed jobs and 10,000 dead-lettered ones. A finished record is
// there to be looked up (a result, a failure's stack) and counted, not to pile up: BullMQ keeps
// every finished job unless told otherwise, and queues grew to gigabytes that way. Dead ones
// are kept longer, as someone has to look at them (their entries are in the dead-letter stream
// as well).
import type { Arg, Connection, Value } from '../../client/connection.js';
import { SafeTrimmer } from '../safe-trim.js';
import { COMPACT_BATCH, compact, deleteArchivedCommands, oldestArchived } from './archive.js';
import type { JobKeys } from './keys.js';
import { WatchLink } from './watch-link.js';
import type { Keep, KeepJobs } from './job-options.js';

export const DEFAULT_REMOVE_ON_COMPLETE: KeepJobs = { count: 1000 };
export const DEFAULT_REMOVE_ON_FAIL: KeepJobs = { count: 10_000 };

/** Records removed per command, so no single command grows without bound. */
const BATCH = 1000;
/** Fewer jobs finished since the last pass than this: the queue is quiet, compaction may take longer. */
const QUIET = 100;

export class RetentionKeeper {
  private lastRun = 0;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly entries: SafeTrimmer | null;
  /** Jobs finished since the last pass began. */
  private finishedSince = 0;
  /**
   * When the entries were last trimmed, and records last compacted: from the keeper's start, so
   * the first passes of a burst only remove (their first trim and compaction, which also open a
   * link, took 100-300 ms, while the jobs finishing meanwhile piled up past the bound).
   */
  private lastTrim = Date.now();
  /** A pass skipped the entries' trim (within the interval of the last): the next one does it. */
  private trimOwed = false;
  /** A pass left completed records to compact (archive.ts): the next one goes on. */
  private compactOwed = false;
  private lastCompact = Date.now();
  /** Per index, its excess over the count at the last pass (unknown at first: read in two steps). */
  private readonly lastExcess = new Map<string, number>();
  /** Per kind, the policy of the next pass (a job's own, or the worker's), or null: none due. */
  private due: { completed: Keep | null; failed: Keep | null } = { completed: null, failed: null };
  /** The compaction's WATCH link (archive.ts), made on first use. */
  private readonly watch: WatchLink;

  constructor(
    private readonly conn: Connection,
    private readonly keys: JobKeys,
    private readonly completed: Keep,
    private readonly failed: Keep,
    keepAcknowledged: boolean,
    private readonly onError: (err: unknown) => void,
    private readonly intervalMs = 1000,
  ) {
    const byCount = Number.isFinite(completed.count) ? completed.count : undefined;
    const byAge = byCount === undefined && Number.isFinite(completed.ageMs) ? completed.ageMs : undefined;
    // Records kept without a bound (removeOnComplete: false): they hold the finished jobs, and
    // an acknowledged entry is only a copy of a record's data, so every one no group still needs
    // is trimmed (maxLen 0); keepAcknowledged keeps them.
    this.watch = new WatchLink(conn);
    this.entries = keepAcknowledged ? null : new SafeTrimmer(conn, { maxLen: byCount ?? (byAge === undefined ? 0 : undefined), minIdAgeMs: byAge, intervalMs });
  }

  /** A job finished (with its own policy, if it has one): a pass runs when the interval has passed. */
  afterFinish(kind: 'completed' | 'failed', own?: Keep): void {
    const keep = own ?? this[kind];
    this.due[kind] = keep;
    this.finishedSince++;
    // Past half the count (at most 1000) since the last pass began: one now, not at the
    // interval, so a busy queue stays near its bound (8,000 jobs a second once kept 9,000 of
    // 1,000). While a pass runs, the next one follows it at once (its end schedules it), rather
    // than an interval after it began: a worker finishing 10,000 jobs a second went past 5,000.
    if (this.finishedSince >= Math.min(BATCH, Math.max(100, Math.floor(keep.count / 2)))) {
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      this.lastRun = 0;
    }
    this.schedule();
  }

  /** A pass now if the interval has passed, else one when it will have (the last finishes count too). */
  private schedule(): void {
    if (this.running !== null || this.timer !== null || this.closed) return;
    const wait = this.lastRun + this.intervalMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.schedule();
      }, wait);
      this.timer.unref();
      return;
    }
    this.lastRun = Date.now();
    const finished = this.finishedSince;
    this.finishedSince = 0;
    this.running = this.pass(finished)
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.due.completed !== null || this.due.failed !== null || this.trimOwed || this.compactOwed) this.schedule();
      });
  }

  /** Stops the timer; a pass in progress stops at its next step (settled()). */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    void this.watch.close();
  }

  /** Resolves when the pass in progress (if any) has ended, and the compaction's link is closed. */
  async settled(): Promise<void> {
    await this.running;
    await this.watch.close();
  }

  /** Removes what is past the policies now (`finished`: jobs finished since the last pass). */
  async pass(finished = 0): Promise<void> {
    const due = this.due;
    this.due = { completed: null, failed: null };
    if (due.completed !== null) await this.apply(this.keys.completed, due.completed);
    // What is left of the completed set goes to the archive (archive.ts): a fraction of the
    // memory. One batch while jobs keep finishing (the pass stays short, the bounds keep up, the
    // handlers keep the CPU), more once the queue is quiet. What is left is owed to the next
    // pass (after the interval).
    if ((due.completed !== null || this.compactOwed) && Date.now() - this.lastCompact >= this.intervalMs) {
      // At most once an interval: under load a pass comes every few dozen ms, and it must stay
      // short for the bounds above to hold.
      this.lastCompact = Date.now();
      const steps = finished < QUIET ? 8 : 1;
      // Again only after a full batch: `more` alone also means records too young yet (a later pass).
      let step = { moved: COMPACT_BATCH, more: true };
      for (let i = 0; i < steps && step.more && step.moved === COMPACT_BATCH && !this.closed; i++) step = await compact(this.conn, this.watch, this.keys, this.completed.count);
      this.compactOwed = step.more;
    } else if (due.completed !== null) {
      this.compactOwed = true;
    }
    if (due.failed !== null) await this.apply(this.keys.failed, due.failed);
    // The acknowledged entries in a pass too, at most once per interval (a trim reads up to
    // count entries); one owed is done by a pass after the interval, so a queue that went quiet
    // ends within the bound instead of up to an interval's worth of jobs over it.
    if (due.completed !== null || this.trimOwed) {
      if (Date.now() - this.lastTrim >= this.intervalMs) {
        this.lastTrim = Date.now();
        this.trimOwed = false;
        await this.entries?.trim(this.keys.stream);
      } else {
        this.trimOwed = this.entries !== null;
      }
    }
  }

  private async apply(index: string, keep: Keep): Promise<void> {
    const archived = index === this.keys.completed;
    if (Number.isFinite(keep.ageMs)) {
      // The archive holds the oldest completed jobs: first them, then the set.
      while (archived) {
        const old = await oldestArchived(this.conn, this.keys, BATCH, Date.now() - keep.ageMs);
        await this.removeArchived(old);
        if (old.length < BATCH) break;
      }
      for (;;) {
        const old = (await this.conn.call('ZRANGE', index, '-inf', Date.now() - keep.ageMs, 'BYSCORE', 'LIMIT', 0, BATCH)) as Value[];
        await this.remove(index, old.map(String));
        if (old.length < BATCH) break;
      }
    }
    if (Number.isFinite(keep.count)) {
      // The oldest first: the archive's, then the set's. One read of both sizes a round; in the
      // steady state (a small excess last time) the set's excess too, `ZRANGE 0 -(count+1)`:
      // a saturated worker delays each round trip, and jobs finished meanwhile pile up.
      for (;;) {
        const eager = (this.lastExcess.get(index) ?? Infinity) <= BATCH * 10;
        const reads: Arg[][] = [['ZCARD', index]];
        if (archived) reads.push(['XLEN', this.keys.archive]);
        if (eager) reads.push(['ZRANGE', index, 0, -(keep.count + 1)]);
        const replies = await this.conn.pipeline(reads);
        const failed = replies.find((r) => r instanceof Error);
        if (failed) throw failed;
        const [inSet, inArchive] = [Number(replies[0]), archived ? Number(replies[1]) : 0];
        const excess = inSet + inArchive - keep.count;
        this.lastExcess.set(index, Math.max(0, excess));
        if (excess <= 0) break;
        if (inArchive > 0) {
          const old = await oldestArchived(this.conn, this.keys, Math.min(excess, inArchive, BATCH));
          await this.removeArchived(old);
          if (old.length === 0) break;
          continue;
        }
        // Up to ten batches at once, sent together: a busy queue finishes thousands of jobs during
        // one pass, and a round trip per thousand let them pile up past the bound.
        const take = eager ? excess : Math.min(excess, BATCH * 10);
        const old = (eager ? (replies[reads.length - 1] as Value[]) : ((await this.conn.call('ZRANGE', index, 0, take - 1)) as Value[])).map(String);
        const removals: Array<Promise<void>> = [];
        for (let i = 0; i < old.length; i += BATCH) removals.push(this.remove(index, old.slice(i, i + BATCH)));
        await Promise.all(removals);
        if (excess <= take) break;
      }
    }
  }

  private async removeArchived(jobs: Array<{ jobId: string; entry: string }>): Promise<void> {
    if (jobs.length === 0) return;
    const ids = jobs.map((j) => j.jobId);
    await this.conn.multi([...(await deleteArchivedCommands(this.conn, this.keys, jobs)), ['DEL', ...ids.flatMap((id) => this.sideKeys(id))]]);
  }

  /** A job's keys beside its record (its logs, a flow's), deleted with it. */
  private sideKeys(id: string): string[] {
    return [this.keys.logs(id), this.keys.dependencies(id), this.keys.processed(id), this.keys.ignored(id)];
  }

  private async remove(index: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    // Built by pushing: a busy queue removes a job for each one it completes.
    const del: Arg[] = ['DEL'];
    const zrem: Arg[] = ['ZREM', index];
    for (const id of ids) {
      del.push(this.keys.record(id));
      for (const key of this.sideKeys(id)) del.push(key);
      zrem.push(id);
    }
    await this.conn.multi([del, zrem]);
  }
}
