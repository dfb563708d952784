// What a worker writes about the jobs it runs (jobs/record.ts, jobs/events.ts), beside the
// stream's own commands:
//   start     HSET state=active, started, attempts, entry, consumer; event active (claimed too,
//             when taken over from a dead consumer): one pipeline per read, not awaited; when
//             the job finished in the same event-loop turn, they go first in the MULTI of its
//             XACK instead (deferWhile / take), so the server still sees them before the
//             completion, in one write;
//   complete  HSET state=completed, finished, result; ZADD PREFIX:completed; event completed:
//             inside the MULTI of the XACK (acker.ts), so a job is never acknowledged without
//             its result, nor completed without its acknowledgement;
//   failure   HSET state=retrying, error, stack; events failed and retrying: pipelined;
//   dead      HSET state=failed, finished, error, stack; ZADD PREFIX:failed; event deadLettered:
//             inside the dead letter's MULTI (XADD dead letter + XACK).
// A finish also frees the job's deduplication id when it holds it without a ttl (DEL PREFIX:dedup:ID).
// Retention (jobs/retention.ts) then removes finished records beyond removeOnComplete /
// removeOnFail. Entries without a `job-id` field (a Producer with jobs: false, another
// language's producer) are anonymous: nothing is written for them.
import type { Arg, Connection } from '../../client/connection.js';
import type { Codec } from '../codec.js';
import { jobKeys, type JobKeys } from '../jobs/keys.js';
import { RecordField, stackOf } from '../jobs/record.js';
import { eventCommand, type QueueEventName } from '../jobs/events.js';
import { type Keep, resolveKeep, type KeepJobs } from '../jobs/job-options.js';
import type { JobWriter } from './job.js';
import { childrenValues } from '../flows/reporter.js';
import type { JobWriteSender } from './job-write-sender.js';

/** The parts of a running job the writes need. */
export interface JobRef {
  /** The job's id; null for an anonymous entry (nothing is written). */
  jobId: string | null;
  entryId: string;
  deliveries: number;
  removeOnComplete?: KeepJobs;
  removeOnFail?: KeepJobs;
  /** A deduplication id held until the job finishes (no ttl): released with the finish. */
  dedupId?: string;
  /** Taken over from another consumer (its start writes a `claimed` event too). */
  claimed: boolean;
}

export class JobWrites implements JobWriter {
  readonly keys: JobKeys;
  private buffer: Arg[][] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** The last writes sent on their own (sendNow), settled: a flow report on another link waits for it. */
  private lastSent: Promise<void> = Promise.resolve();

  constructor(
    private readonly conn: Connection,
    stream: string,
    private readonly consumer: string,
    private readonly codec: Codec,
    /** The events stream's cap, or null: no events. */
    readonly eventsMaxLen: number | null,
    readonly removeOnComplete: Keep,
    readonly removeOnFail: Keep,
    /** Log lines kept per job (the newest). */
    private readonly keepLogs: number,
    private readonly onError: (err: unknown) => void,
    /** While true at a turn's end, the queued writes wait for take() (the acker's next batch). */
    private readonly deferWhile: () => boolean,
    /** Sends them (job-write-sender.ts: a pipeline, or the same commands as one script call). */
    private readonly sender: JobWriteSender,
  ) {
    this.keys = jobKeys(stream);
  }

  private event(name: QueueEventName, jobId: string | null, fields: Arg[] = []): Arg[][] {
    return this.eventsMaxLen === null ? [] : [eventCommand(this.keys.events, this.eventsMaxLen, name, jobId, fields)];
  }

  /** Records the start of these deliveries (not awaited: the handlers do not wait for it). */
  started(jobs: JobRef[], now: number): void {
    const commands: Arg[][] = [];
    for (const j of jobs) {
      if (j.jobId === null) continue;
      commands.push(['HSET', this.keys.record(j.jobId), RecordField.state, 'active', RecordField.started, now, RecordField.attempts, j.deliveries, RecordField.entry, j.entryId, RecordField.consumer, this.consumer]);
      if (j.claimed) commands.push(...this.event('claimed', j.jobId, ['consumer', this.consumer, 'attemptsMade', j.deliveries]));
      commands.push(...this.event('active', j.jobId, ['consumer', this.consumer, 'attemptsMade', j.deliveries]));
    }
    this.send(commands);
  }

  /** The commands recording a completion, for the XACK's MULTI; [] for an anonymous entry. */
  completed(j: JobRef, result: unknown, now: number): Arg[][] {
    if (j.jobId === null) return [];
    const record = this.keys.record(j.jobId);
    let encoded: string;
    try {
      encoded = result === undefined ? '' : this.codec.encode(result);
    } catch (err) {
      encoded = '';
      this.onError(new Error(`job ${j.jobId}: its return value was not stored: ${(err as Error).message}`));
    }
    const keep = j.removeOnComplete === undefined ? this.removeOnComplete : resolveKeep(j.removeOnComplete);
    const commands: Arg[][] =
      keep.count === 0
        ? [['DEL', record, this.keys.logs(j.jobId)]]
        : [
            ['HSET', record, RecordField.state, 'completed', RecordField.finished, now, RecordField.result, encoded, RecordField.attempts, j.deliveries],
            ['ZADD', this.keys.completed, now, j.jobId],
          ];
    commands.push(...this.event('completed', j.jobId, ['returnvalue', encoded]), ...this.release(j));
    return commands;
  }

  /** Records a failed delivery and, when it will be retried, the retry (pipelined, not awaited). */
  failed(j: JobRef, error: Error, retryDelayMs: number | null): void {
    if (j.jobId === null) return;
    const commands: Arg[][] = [];
    const state = retryDelayMs === null ? [] : [RecordField.state, 'retrying'];
    commands.push(['HSET', this.keys.record(j.jobId), ...state, RecordField.error, error.message, RecordField.stack, stackOf(error), RecordField.attempts, j.deliveries]);
    commands.push(...this.event('failed', j.jobId, ['failedReason', error.message, 'attemptsMade', j.deliveries]));
    if (retryDelayMs !== null) commands.push(...this.event('retrying', j.jobId, ['delay', retryDelayMs, 'attemptsMade', j.deliveries]));
    this.send(commands);
  }

  /** The commands recording a dead letter, for its MULTI; [] for an anonymous entry. */
  deadLettered(j: JobRef, error: Error, now: number): Arg[][] {
    if (j.jobId === null) return [];
    const record = this.keys.record(j.jobId);
    const keep = j.removeOnFail === undefined ? this.removeOnFail : resolveKeep(j.removeOnFail);
    const commands: Arg[][] =
      keep.count === 0
        ? [['DEL', record, this.keys.logs(j.jobId)]]
        : [
            ['HSET', record, RecordField.state, 'failed', RecordField.finished, now, RecordField.error, error.message, RecordField.stack, stackOf(error), RecordField.attempts, j.deliveries],
            ['ZADD', this.keys.failed, now, j.jobId],
          ];
    commands.push(...this.event('deadLettered', j.jobId, ['failedReason', error.message, 'attemptsMade', j.deliveries]), ...this.release(j));
    return commands;
  }

  /** Frees the job's deduplication id, held until it finishes (no ttl: no other job can hold it). */
  private release(j: JobRef): Arg[][] {
    return j.dedupId === undefined ? [] : [['DEL', this.keys.dedup(j.dedupId)]];
  }

  /** job.updateProgress: the record's `progress` and a progress event, together. */
  async progress(jobId: string, progress: number | object): Promise<void> {
    const text = JSON.stringify(progress);
    if (text === undefined || (typeof progress !== 'number' && (progress === null || typeof progress !== 'object'))) {
      throw new TypeError('progress: a number or a JSON-serialisable object');
    }
    this.flush();
    await this.conn.multi([['HSET', this.keys.record(jobId), RecordField.progress, text], ...this.event('progress', jobId, ['data', text])]);
  }

  /** job.log: appends a line, keeping the newest keepLogs; resolves to the lines kept. */
  async log(jobId: string, line: string): Promise<number> {
    const key = this.keys.logs(jobId);
    const [count] = await this.conn.multi([['RPUSH', key, line], ['LTRIM', key, -this.keepLogs, -1]]);
    return Math.min(Number(count), this.keepLogs);
  }

  /** job.getChildrenValues: a flow parent's children's return values (flows/). */
  childrenValues(jobId: string): Promise<Record<string, unknown>> {
    return childrenValues(this.conn, this.codec, this.keys.stream, jobId);
  }

  /** Resolves once the writes sent so far were answered (whatever the answer). */
  settled(): Promise<void> {
    return this.lastSent;
  }

  /** The group found nothing more to read after running jobs. */
  drained(): void {
    this.send(this.event('drained', null));
  }

  /**
   * Queues writes for the next flush (the end of this event-loop turn): a turn's starts go in
   * one pipeline. Anything the worker sends about these jobs flushes first (flush()), so the
   * server sees a job's writes in the order they were made.
   */
  private send(commands: Arg[][]): void {
    if (commands.length === 0) return;
    for (const c of commands) this.buffer.push(c);
    this.scheduled ??= setImmediate(() => {
      this.scheduled = null;
      if (!this.deferWhile()) this.flush();
    });
  }

  /** The queued writes, to be sent by the caller ahead of its own commands (and no longer here). */
  take(): Arg[][] {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    const commands = this.buffer;
    this.buffer = [];
    return commands;
  }

  /** Sends the queued writes now (not awaited; a failure is reported through onError). */
  flush(): void {
    this.sendNow(this.take());
  }

  /** Sends these writes now (not awaited; a failure is reported through onError). */
  sendNow(commands: Arg[][]): void {
    if (commands.length === 0) return;
    this.lastSent = this.sender.pipelined(commands).catch(this.onError);
  }
}
