// Queue: a queue's jobs as any process sees them: look one up (getJob), list them by state
// (getJobs), count them (getJobCounts), read a job's log, and wait for a job to finish
// (waitUntilFinished). Jobs are added by a Producer and run by Workers; their records and
// events are described in jobs/record.ts and jobs/events.ts.
import type { Connection, Value } from '../client/connection.js';
import { type Codec, Fields, jsonCodec } from './codec.js';
import { decodePrioritizedMember, prioritizedKey } from './jobs/priority.js';
import { decodeDelayedMember, delayedKey } from './delayed.js';
import { decodeJobOptions, type PerJobOptions } from './jobs/job-options.js';
import { jobKeys } from './jobs/keys.js';
import { newestArchived, readRecords } from './jobs/archive.js';
import { JOB_STATES, type JobState, recordFromReply, RecordField } from './jobs/record.js';
import { partitionStreams } from './partition.js';
import { decodeResult, type QueueEventPayloads, QueueEvents } from './queue-events.js';
import { pairsToObject } from './replies.js';
import { type CleanState, JobActiveError, JobManager, JobStateError } from './jobs/manage.js';
import { type EventsOption, eventsMaxLen } from './jobs/events.js';
import { WatchLink } from './jobs/watch-link.js';
import { childrenValues, ignoredFailures } from './flows/reporter.js';

export { JobActiveError, JobStateError, type CleanState };

export interface QueueOptions {
  stream: string;
  /** The Producer's and Worker's `partitions`. */
  partitions?: number;
  /**
   * The consumer group whose view `waiting` and `active` take (default: the stream's only
   * group; with several, name one).
   */
  group?: string;
  /** The Producer's and Worker's codec (default JSON). */
  codec?: Codec;
  /** The queue's events stream, as the Producer's and Worker's `events` (removed, promoted, … go there). */
  events?: EventsOption;
}

/** A job as its record says, at the time it was read. */
export interface JobInfo<T = unknown, R = unknown> {
  id: string;
  /** The (partition) stream it belongs to. */
  stream: string;
  state: JobState;
  /** The payload; undefined if it does not decode. */
  data: T | undefined;
  opts: PerJobOptions;
  key: string | undefined;
  /** Deliveries started so far. */
  attemptsMade: number;
  /** Unix ms. */
  addedAt: number;
  /** A delayed job's due time (unix ms, server clock). */
  dueAt: number | undefined;
  /** When its last delivery started (unix ms). */
  startedAt: number | undefined;
  /** When it completed or was dead-lettered (unix ms). */
  finishedAt: number | undefined;
  returnValue: R | undefined;
  failedReason: string | undefined;
  stacktrace: string | undefined;
  progress: unknown;
  /** The stream entry it was last delivered as. */
  entryId: string | undefined;
  /** The consumer that ran it last. */
  consumer: string | undefined;
  /** Its priority (1 is the highest); 0 for none. */
  priority: number;
}

/** A job's record, with what can be done with it. */
export class JobView<T = unknown, R = unknown> implements JobInfo<T, R> {
  readonly id!: string;
  readonly stream!: string;
  readonly state!: JobState;
  readonly data!: T | undefined;
  readonly opts!: PerJobOptions;
  readonly key!: string | undefined;
  readonly attemptsMade!: number;
  readonly addedAt!: number;
  readonly dueAt!: number | undefined;
  readonly startedAt!: number | undefined;
  readonly finishedAt!: number | undefined;
  readonly returnValue!: R | undefined;
  readonly failedReason!: string | undefined;
  readonly stacktrace!: string | undefined;
  readonly progress!: unknown;
  readonly entryId!: string | undefined;
  readonly consumer!: string | undefined;
  readonly priority!: number;

  constructor(
    info: JobInfo<T, R>,
    private readonly queue: Queue<T, R>,
  ) {
    Object.assign(this, info);
  }

  /** Resolves to the job's return value once it completed; rejects if it died (JobFailedError). */
  waitUntilFinished(timeoutMs?: number): Promise<R | undefined> {
    return this.queue.waitUntilFinished(this.id, timeoutMs);
  }

  /** The job's log lines (job.log), oldest first. */
  logs(): Promise<string[]> {
    return this.queue.getJobLogs(this.id);
  }
}

/** waitUntilFinished: the job was dead-lettered (or has failed for good). */
export class JobFailedError extends Error {
  constructor(
    readonly jobId: string,
    readonly failedReason: string,
    readonly attemptsMade: number,
    /** The handler's stack, as the worker stored it. */
    readonly remoteStack: string | undefined,
  ) {
    super(`job ${jobId} failed after ${attemptsMade} attempts: ${failedReason}`);
    this.name = 'JobFailedError';
  }
}

/** waitUntilFinished: no record of the job (never added, removed, or finished and removed by retention). */
export class JobNotFoundError extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId} not found (never added, removed, or finished and removed by removeOnComplete / removeOnFail)`);
    this.name = 'JobNotFoundError';
  }
}

/** waitUntilFinished: the job did not finish in time (it goes on). */
export class WaitTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
  ) {
    super(`job ${jobId} did not finish within ${timeoutMs} ms`);
    this.name = 'WaitTimeoutError';
  }
}

export type JobCounts = Record<JobState, number>;

/** How often a waiter reads the record itself (events off, or an event it could not see). */
const RECHECK_MS = 1000;

export class Queue<T = unknown, R = unknown> {
  readonly streams: string[];
  private readonly codec: Codec;
  private events: QueueEvents<R> | null = null;
  private eventsReady: Promise<void> | null = null;
  /** The listener's close, started when the last waiter left. */
  private stopping: Promise<void> | undefined;
  /** Per job id, its waiters' callbacks for a finishing event. */
  private readonly waiters = new Map<string, Set<(e: Finish<R>) => void>>();
  /** The link of the management operations' transactions (jobs/manage.ts), made on first use. */
  private readonly watch: WatchLink;
  private readonly managers: JobManager[];

  constructor(
    private readonly conn: Connection,
    private readonly options: QueueOptions,
  ) {
    this.streams = options.partitions === undefined ? [options.stream] : partitionStreams(options.stream, options.partitions);
    this.codec = options.codec ?? jsonCodec;
    this.watch = new WatchLink(conn);
    const cap = eventsMaxLen(options.events);
    this.managers = this.streams.map((s) => new JobManager(conn, this.watch, s, this.codec, cap));
  }

  /** The job with this id, or null when there is no record of it. */
  async getJob(id: string): Promise<JobView<T, R> | null> {
    const found = await this.records([id]);
    const hit = found[0];
    return hit === null || hit === undefined ? null : new JobView(this.info(id, hit.stream, hit.record), this);
  }

  /**
   * Jobs in a state, `start`..`end` inclusive (as BullMQ: 0, -1 is all): completed and failed
   * newest first, delayed soonest first, waiting and active in stream order.
   */
  async getJobs(state: JobState, start = 0, end = -1): Promise<Array<JobView<T, R>>> {
    if (!JOB_STATES.includes(state)) throw new RangeError(`state: one of ${JOB_STATES.join(', ')}`);
    const want = end < 0 ? Infinity : end + 1;
    const ids: string[] = [];
    const archived: Array<JobView<T, R>> = [];
    for (const stream of this.streams) {
      const inSet = await this.idsIn(stream, state, want);
      ids.push(...inSet);
      // Completed jobs older than every one still in the set are in the archive (jobs/archive.ts).
      if (state === 'completed' && inSet.length < want) {
        const count = Number.isFinite(want) ? want - inSet.length : Number(await this.conn.call('XLEN', jobKeys(stream).archive));
        for (const a of await newestArchived(this.conn, jobKeys(stream), count)) archived.push(new JobView(this.info(a.jobId, stream, a.record), this));
      }
    }
    const found = await this.records(ids);
    const jobs = [...found.flatMap((hit, i) => (hit === null ? [] : [new JobView(this.info(ids[i]!, hit.stream, hit.record), this)])).filter((j) => j.state === state || (state === 'active' && j.state === 'active')), ...archived];
    if (this.streams.length > 1) jobs.sort(orderFor(state));
    return jobs.slice(start, end < 0 ? undefined : end + 1);
  }

  /**
   * How many jobs are in each state. `active` counts the group's pending entries (running,
   * waiting out a retry's backoff: `retrying` is counted in it, or read ahead by a worker and
   * about to start), `waiting` its lag.
   */
  async getJobCounts(): Promise<JobCounts> {
    const counts: JobCounts = { delayed: 0, prioritized: 0, 'waiting-children': 0, waiting: 0, active: 0, retrying: 0, completed: 0, failed: 0 };
    for (const stream of this.streams) {
      const keys = jobKeys(stream);
      const [delayed, completed, archived, failed, prioritized, waitingChildren] = await this.conn.pipeline([
        ['ZCARD', delayedKey(stream)],
        ['ZCARD', keys.completed],
        ['XLEN', keys.archive],
        ['ZCARD', keys.failed],
        ['ZCARD', prioritizedKey(stream)],
        ['ZCARD', keys.waitingChildren],
      ]);
      counts['waiting-children'] += Number(waitingChildren);
      counts.delayed += Number(delayed);
      counts.prioritized += Number(prioritized);
      counts.completed += Number(completed) + Number(archived);
      counts.failed += Number(failed);
      const group = await this.group(stream);
      if (group === null) {
        counts.waiting += Number(await this.conn.call('XLEN', stream).catch(() => 0));
        continue;
      }
      counts.active += Number(group['pending']);
      counts.waiting += group['lag'] === null || group['lag'] === undefined ? 0 : Number(group['lag']);
    }
    return counts;
  }

  /** A flow parent's children's return values, by child job id (as the parent's job.getChildrenValues()). */
  async getChildrenValues(id: string): Promise<Record<string, unknown>> {
    const m = await this.managerOf(id);
    return childrenValues(this.conn, this.codec, m === null ? this.streams[0]! : this.streams[this.managers.indexOf(m)]!, id);
  }

  /** A flow parent's children whose failure was ignored (onFailure 'ignore'): child job id → reason. */
  async getIgnoredFailures(id: string): Promise<Record<string, string>> {
    const m = await this.managerOf(id);
    return ignoredFailures(this.conn, m === null ? this.streams[0]! : this.streams[this.managers.indexOf(m)]!, id);
  }

  /** A job's log lines (job.log), oldest first; `start`..`end` inclusive. */
  async getJobLogs(id: string, start = 0, end = -1): Promise<string[]> {
    for (const stream of this.streams) {
      const lines = (await this.conn.call('LRANGE', jobKeys(stream).logs(id), start, end)) as Value[];
      if (lines.length > 0) return lines.map(String);
    }
    return [];
  }

  /**
   * Resolves to the job's return value once it has completed, from any process; rejects with
   * JobFailedError once it was dead-lettered, JobNotFoundError if there is no record of it, and
   * WaitTimeoutError after timeoutMs (default: no limit). Listens to the queue's events and
   * reads the record at least once a second (so it also works with events off).
   */
  async waitUntilFinished(id: string, timeoutMs?: number): Promise<R | undefined> {
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    await this.listen();
    let finish!: (e: Finish<R>) => void;
    const finished = new Promise<Finish<R>>((resolve) => (finish = resolve));
    const set = this.waiters.get(id) ?? new Set();
    set.add(finish);
    this.waiters.set(id, set);
    try {
      // Registered before the record is read: a finish after this read arrives as an event.
      for (;;) {
        const state = await this.finishFromRecord(id);
        if (state !== null) return settle(state);
        const left = deadline - Date.now();
        if (left <= 0) throw new WaitTimeoutError(id, timeoutMs!);
        let timer: NodeJS.Timeout | undefined;
        const tick = new Promise<null>((r) => (timer = setTimeout(r, Math.min(left, RECHECK_MS), null)));
        const event = await Promise.race([finished, tick]);
        clearTimeout(timer);
        if (event !== null) return settle(event);
      }
    } finally {
      set.delete(finish);
      if (set.size === 0) this.waiters.delete(id);
      if (this.waiters.size === 0) this.stopping = this.stopListening();
    }
  }

  /** Stops the events listener of waitUntilFinished, if one runs, and closes the management link. */
  async close(): Promise<void> {
    await this.stopListening();
    // A listener the last wait left stopping: its link closes only once its read has ended;
    // close() returning earlier let the caller close the connection under it (the link then
    // retried for ever against a server that was gone).
    await this.stopping;
    await this.watch.close();
  }

  // --- management (jobs/manage.ts) ---------------------------------------------------------------

  /**
   * Removes a job that is waiting, delayed, completed or failed: its entry or delayed member, its
   * record and logs (event `removed`, field `prev`). Resolves to false when there is no such job;
   * rejects with JobActiveError when a worker holds it (active, or waiting out a retry).
   */
  async remove(id: string): Promise<boolean> {
    const m = await this.managerOf(id);
    return m === null ? false : m.remove(id);
  }

  /** Moves a delayed job into its stream now (event `promoted`); JobStateError when it is not delayed. */
  async promote(id: string): Promise<void> {
    const m = await this.managerOf(id);
    if (m === null) throw new JobStateError(id, null, 'delayed (to promote)');
    await m.promote(id);
  }

  /** Makes a delayed job due `delayMs` from now (server clock); JobStateError when it is not delayed. */
  async changeDelay(id: string, delayMs: number): Promise<void> {
    const m = await this.managerOf(id);
    if (m === null) throw new JobStateError(id, null, 'delayed (to change its delay)');
    await m.changeDelay(id, delayMs);
  }

  /**
   * Runs a failed (dead-lettered) job again: a new entry with the same id, data and options, its
   * attempts counted from 0 (event `waiting`). Its dead letter stays in the dead-letter stream.
   * JobStateError when the job is not failed.
   */
  async retryJob(id: string): Promise<void> {
    const m = await this.managerOf(id);
    if (m === null) throw new JobStateError(id, null, 'failed (to retry)');
    await m.retryJob(id);
  }

  /**
   * Removes jobs in `state` older than `graceMs` (completed / failed: by finish time; delayed:
   * by add time; waiting: by entry id), at most `limit` (0: all) per stream; resolves to their ids.
   */
  async clean(graceMs: number, limit: number, state: CleanState): Promise<string[]> {
    if (!['completed', 'failed', 'delayed', 'waiting'].includes(state)) throw new RangeError('state: completed, failed, delayed or waiting');
    const out: string[] = [];
    for (const m of this.managers) out.push(...(await m.clean(graceMs, limit, state)));
    return out;
  }

  /** Removes every waiting, delayed and prioritized job (active ones run on); resolves to how many. */
  async drain(): Promise<number> {
    let n = 0;
    for (const m of this.managers) n += await m.drain();
    return n;
  }

  /**
   * Deletes the queue: its stream(s) and every key beside them (records, logs, completed /
   * failed, events, delayed jobs, schedules, deduplication ids), not the dead-letter stream.
   * Rejects with JobActiveError while workers hold jobs, unless `force` (they then finish into
   * a queue that is gone: stop them first).
   */
  async obliterate(options: { force?: boolean } = {}): Promise<void> {
    if (!options.force) {
      let active = 0;
      for (const m of this.managers) active += await m.activeCount();
      if (active > 0) throw new JobActiveError('*', `${this.options.stream}: ${active} jobs are active; stop the workers first, or obliterate({ force: true })`);
    }
    for (const m of this.managers) await m.obliterate();
  }

  /** The manager of the (partition) stream holding the job's record, or null. */
  private async managerOf(id: string): Promise<JobManager | null> {
    if (this.managers.length === 1) return this.managers[0]!;
    const [hit] = await this.records([id]);
    return hit === null || hit === undefined ? null : this.managers[this.streams.indexOf(hit.stream)]!;
  }

  // --- internals -------------------------------------------------------------------------------

  private listen(): Promise<void> {
    if (this.eventsReady !== null) return this.eventsReady;
    const events = new QueueEvents<R>(this.conn, { stream: this.options.stream, partitions: this.options.partitions, codec: this.codec });
    const notify = (id: string, f: Finish<R>): void => {
      for (const w of this.waiters.get(id) ?? []) w(f);
    };
    events.on('completed', (e: QueueEventPayloads<R>['completed']) => notify(e.jobId, { ok: true, value: e.returnvalue }));
    events.on('deadLettered', (e) => notify(e.jobId, { ok: false, error: new JobFailedError(e.jobId, e.failedReason, e.attemptsMade, undefined) }));
    events.on('removed', (e) => notify(e.jobId, { ok: false, error: new JobNotFoundError(e.jobId) }));
    events.on('error', () => {}); // the record is read every second regardless
    this.events = events;
    this.eventsReady = events.start();
    return this.eventsReady;
  }

  private async stopListening(): Promise<void> {
    const events = this.events;
    this.events = null;
    this.eventsReady = null;
    await events?.close();
  }

  private async finishFromRecord(id: string): Promise<Finish<R> | null> {
    const [hit] = await this.records([id]);
    if (hit === null || hit === undefined) return { ok: false, error: new JobNotFoundError(id) };
    const r = hit.record;
    if (r[RecordField.state] === 'completed') return { ok: true, value: decodeResult<R>(this.codec, r[RecordField.result]) };
    if (r[RecordField.state] === 'failed') return { ok: false, error: new JobFailedError(id, r[RecordField.error] ?? '', Number(r[RecordField.attempts] ?? 0), r[RecordField.stack]) };
    return null;
  }

  /** The records of these ids (each looked for in every partition, hash or archive), null where none. */
  private async records(ids: string[]): Promise<Array<{ stream: string; record: Record<string, string> } | null>> {
    if (ids.length === 0) return [];
    const found = await readRecords(this.conn, ids.flatMap((id) => this.streams.map((s) => ({ keys: jobKeys(s), id }))));
    return ids.map((_, i) => {
      for (let p = 0; p < this.streams.length; p++) {
        const record = found[i * this.streams.length + p];
        if (record !== null && record !== undefined) return { stream: this.streams[p]!, record };
      }
      return null;
    });
  }

  private info(id: string, stream: string, r: Record<string, string>): JobInfo<T, R> {
    let data: T | undefined;
    try {
      data = r[RecordField.data] === undefined ? undefined : (this.codec.decode(r[RecordField.data]) as T);
    } catch {
      data = undefined;
    }
    const num = (f: string): number | undefined => (r[f] === undefined ? undefined : Number(r[f]));
    return {
      id,
      stream,
      state: (r[RecordField.state] as JobState | undefined) ?? 'waiting',
      data,
      opts: decodeJobOptions(r[RecordField.opts]),
      key: r[RecordField.key],
      attemptsMade: num(RecordField.attempts) ?? 0,
      addedAt: num(RecordField.added) ?? 0,
      dueAt: num(RecordField.due),
      startedAt: num(RecordField.started),
      finishedAt: num(RecordField.finished),
      returnValue: r[RecordField.state] === 'completed' ? decodeResult<R>(this.codec, r[RecordField.result]) : undefined,
      failedReason: r[RecordField.error],
      stacktrace: r[RecordField.stack],
      progress: r[RecordField.progress] === undefined ? undefined : JSON.parse(r[RecordField.progress]),
      entryId: r[RecordField.entry],
      consumer: r[RecordField.consumer],
      priority: num(RecordField.priority) ?? 0,
    };
  }

  /** The ids of a stream's jobs in a state, up to `want` of them. */
  private async idsIn(stream: string, state: JobState, want: number): Promise<string[]> {
    const keys = jobKeys(stream);
    const stop = Number.isFinite(want) ? want - 1 : -1;
    if (state === 'waiting-children') return ((await this.conn.call('ZRANGE', keys.waitingChildren, 0, stop)) as Value[]).map(String);
    if (state === 'completed' || state === 'failed') return ((await this.conn.call('ZRANGE', keys[state], 0, stop, 'REV')) as Value[]).map(String);
    if (state === 'delayed') {
      const members = (await this.conn.call('ZRANGE', delayedKey(stream), 0, stop)) as Value[];
      return members.flatMap((m) => {
        const job = decodeDelayedMember(String(m));
        const i = job === null ? -1 : job.fields.indexOf(Fields.jobId);
        return i >= 0 && i % 2 === 0 ? [job!.fields[i + 1]!] : [];
      });
    }
    if (state === 'prioritized') {
      // Lowest number first, then first in (the members' order).
      const members = (await this.conn.call('ZRANGE', prioritizedKey(stream), 0, stop)) as Value[];
      return members.flatMap((m) => decodePrioritizedMember(String(m))?.jobId ?? []);
    }
    const group = await this.group(stream);
    const count = Number.isFinite(want) ? want : 10_000;
    if (state === 'waiting') {
      const after = group === null ? '-' : `(${String(group['last-delivered-id'])}`;
      const undelivered = jobIdsOf((await this.conn.call('XRANGE', stream, after, '+', 'COUNT', count)) as Value[]);
      // Delivered but not started (a worker's read-ahead): pending, their records still waiting.
      return group === null ? undelivered : [...(await this.pendingIds(stream, group, count)), ...undelivered];
    }
    if (group === null) return [];
    // active, retrying: the group's pending entries, whose records say which
    return this.pendingIds(stream, group, count);
  }

  /** The job ids of a group's pending entries, in stream order (getJobs keeps those in the state asked for). */
  private async pendingIds(stream: string, group: Record<string, Value>, count: number): Promise<string[]> {
    const pending = (await this.conn.call('XPENDING', stream, String(group['name']), '-', '+', count * 2)) as Value[][];
    if (pending.length === 0) return [];
    const entries = await this.conn.pipeline(pending.map((p) => ['XRANGE', stream, String(p[0]), String(p[0])]));
    return entries.flatMap((e) => (e instanceof Error ? [] : jobIdsOf(e as Value)));
  }

  /** The group whose view counts (XINFO GROUPS), or null when the stream has none (or does not exist). */
  private async group(stream: string): Promise<Record<string, Value> | null> {
    let groups: Array<Record<string, Value>>;
    try {
      groups = ((await this.conn.call('XINFO', 'GROUPS', stream)) as Value[]).map(pairsToObject);
    } catch {
      return null; // no such stream
    }
    if (this.options.group !== undefined) return groups.find((g) => String(g['name']) === this.options.group) ?? null;
    if (groups.length > 1) throw new RangeError(`${stream} has ${groups.length} consumer groups: name the one to look through (QueueOptions.group)`);
    return groups[0] ?? null;
  }
}

type Finish<R> = { ok: true; value: R | undefined } | { ok: false; error: Error };

function settle<R>(f: Finish<R>): R | undefined {
  if (f.ok) return f.value;
  throw f.error;
}

/** The `job-id` fields of XRANGE's entries (entries without one are skipped). */
function jobIdsOf(reply: Value): string[] {
  const out: string[] = [];
  for (const entry of reply as Array<[string, Value[]]>) {
    const fields = entry[1];
    for (let i = 0; i + 1 < fields.length; i += 2) if (String(fields[i]) === Fields.jobId) out.push(String(fields[i + 1]));
  }
  return out;
}

function orderFor(state: JobState): (a: JobInfo, b: JobInfo) => number {
  if (state === 'completed' || state === 'failed') return (a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0);
  if (state === 'delayed') return (a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0);
  if (state === 'prioritized') return (a, b) => a.priority - b.priority || a.addedAt - b.addedAt;
  return (a, b) => a.addedAt - b.addedAt;
}
