// The Worker's events, typed: `worker.on('failed', (job, error) => ...)` checks both.
import type { Job } from './options.js';

/** A dead-lettered entry: a Job, but an entry that did not decode has no payload. */
export type DeadLetteredJob<T> = Omit<Job<T>, 'payload'> & { payload: T | undefined };

export interface WorkerEvents<T = unknown, R = unknown> {
  /** The handler resolved (to `result`, stored in the job's record) and the entry was acknowledged. */
  completed: [job: Job<T>, result: R];
  /** The handler threw or timed out (each failed delivery once). */
  failed: [job: Job<T>, error: Error];
  /** A failed job will be retried by this worker after `delayMs`. */
  retrying: [job: Job<T>, delayMs: number];
  /** Moved to the dead-letter stream after maxDeliveries, or because it did not decode. */
  deadLettered: [job: DeadLetteredJob<T>, error: Error];
  /** Entries taken over from other (dead) consumers. */
  claimed: [ids: string[]];
  /** Pending entries that were deleted from the stream (trimmed) before they were handled. */
  trimmed: [ids: string[]];
  /** The group was paused (pauseGroup, `sluice pause`): no new entries until it is resumed. */
  paused: [];
  /** The group was resumed. */
  resumed: [];
  /** Another consumer claimed a job this worker was still running; its result is dropped. */
  leaseLost: [job: Job<T>];
  /**
   * A command failed (the connection dropped, the server refused). As for any EventEmitter, an
   * 'error' with no listener throws: attach one.
   */
  error: [error: Error];
}

export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`handler timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

export class LeaseLostError extends Error {
  constructor(id: string) {
    super(`entry ${id} was claimed by another consumer`);
    this.name = 'LeaseLostError';
  }
}

export class WorkerClosedError extends Error {
  constructor() {
    super('the worker closed before the handler finished');
    this.name = 'WorkerClosedError';
  }
}

/**
 * close({ timeoutMs }) ran out of time waiting for the server (down, or not answering): the
 * worker dropped its own links and left these things undone, each a line of `abandoned`. What it
 * left pending on the server is delivered again (at least once); nothing is lost.
 */
export class CloseTimeoutError extends Error {
  constructor(
    /** The close's timeoutMs. */
    readonly timeoutMs: number,
    /** What was left undone, one line each (unconfirmed acks and releases by id, and so on). */
    readonly abandoned: string[],
  ) {
    super(`close() gave up after ${timeoutMs} ms without the server's answers; ${abandoned.length === 0 ? 'nothing held was left undone' : `left undone: ${abandoned.join('; ')}`}`);
    this.name = 'CloseTimeoutError';
  }
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
