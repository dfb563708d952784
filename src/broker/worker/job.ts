// The job a handler gets: its payload, ids and delivery count, and the two things a handler may
// write about itself while it runs, progress and log lines (stored in its record, sent as events).
import type { PerJobOptions } from '../jobs/job-options.js';

export interface Job<T = unknown> {
  /** The job's id, as add() returned it; for an entry without one (jobs: false), its entry id. */
  readonly id: string;
  /** The stream entry's id (a job retried from the dead letters gets a new entry, same job id). */
  readonly entryId: string;
  readonly stream: string;
  readonly payload: T;
  /** 1 on the first delivery, counted by the server (XPENDING). */
  readonly deliveries: number;
  readonly fields: Record<string, string>;
  readonly key: string | undefined;
  /** The options the job was added with (attempts, backoff, retention), {} when none. */
  readonly opts: PerJobOptions;
  /**
   * Stores the job's progress (a number or a JSON-serialisable object) in its record and sends
   * a `progress` event. Rejects for an entry without a job record (added with jobs: false).
   */
  updateProgress(progress: number | object): Promise<void>;
  /** Appends a line to the job's log (kept up to the worker's `keepLogs`); resolves to the count. */
  log(line: string): Promise<number>;
  /**
   * A flow parent's children's return values, by child job id (docs/flows.md); {} for a job
   * without children. A child whose failure was ignored or removed has no value.
   */
  getChildrenValues(): Promise<Record<string, unknown>>;
}

/** How a job writes its progress and logs: the worker's JobWrites. */
export interface JobWriter {
  progress(jobId: string, progress: number | object): Promise<void>;
  log(jobId: string, line: string): Promise<number>;
  childrenValues(jobId: string): Promise<Record<string, unknown>>;
}

export class WorkerJob<T> implements Job<T> {
  constructor(
    readonly id: string,
    readonly entryId: string,
    readonly stream: string,
    readonly payload: T,
    readonly deliveries: number,
    readonly fields: Record<string, string>,
    readonly key: string | undefined,
    readonly opts: PerJobOptions,
    /** Null for an entry without a job id. */
    private readonly writer: JobWriter | null,
  ) {}

  updateProgress(progress: number | object): Promise<void> {
    if (this.writer === null) return Promise.reject(new Error(`entry ${this.entryId} has no job record (added with jobs: false)`));
    return this.writer.progress(this.id, progress);
  }

  log(line: string): Promise<number> {
    if (this.writer === null) return Promise.reject(new Error(`entry ${this.entryId} has no job record (added with jobs: false)`));
    return this.writer.log(this.id, line);
  }

  getChildrenValues(): Promise<Record<string, unknown>> {
    if (this.writer === null) return Promise.resolve({});
    return this.writer.childrenValues(this.id);
  }
}
