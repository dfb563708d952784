// Worker options, their defaults, and the job types handlers see.
import type { LimiterOptions, RateLimiter } from '../rate-limiter.js';
import type { Codec } from '../codec.js';
import type { RunGate } from '../global-concurrency.js';
import type { FairnessOptions, FairTaker } from '../fairness/taker.js';
import type { Metrics } from '../metrics.js';
import type { Logger } from '../../logger.js';
import { type EventsOption, eventsMaxLen } from '../jobs/events.js';
import { type Keep, type KeepJobs, resolveKeep } from '../jobs/job-options.js';
import { DEFAULT_REMOVE_ON_COMPLETE, DEFAULT_REMOVE_ON_FAIL } from '../jobs/retention.js';

export type { Job } from './job.js';
import type { Job } from './job.js';

/** What a handler gets besides its job(s). */
export interface JobContext {
  /**
   * Aborts when the job's `timeoutMs` passes, when another consumer took the entry over (the
   * lease was lost), or when `close({ timeoutMs })` gives up waiting. The reason says which.
   */
  signal: AbortSignal;
}

/** A handler: what it returns (R) is the job's result, stored in its record with the codec. */
export type JobHandler<T = unknown, R = unknown> = (job: Job<T>, context: JobContext) => R | Promise<R>;
export type BatchHandler<T = unknown> = (jobs: Job<T>[], context: JobContext) => unknown;

/**
 * What a sandboxed processor module exports as its default: a function of the job (its payload,
 * ids, deliveries, updateProgress and log, as an in-process handler's), whose result (sent back
 * by structured clone) is the job's result. It runs in a worker thread or a child process; it
 * gets no AbortSignal: a run that must stop (timeoutMs, a lost lease) ends its sandbox.
 */
export type SandboxedProcessor<T = unknown, R = unknown> = (job: Job<T>) => R | Promise<R>;

/** How a Worker given a module path runs it (docs/sandboxes.md). */
export interface SandboxOptions {
  /** 'thread' (default): worker threads; 'process': child processes (forked, one Node each). */
  kind?: 'thread' | 'process';
  /** Most sandboxes at once (default: the worker's concurrency); more jobs wait for one. */
  size?: number;
  /**
   * Heap limit of each sandbox in MB (a thread's resourceLimits.maxOldGenerationSizeMb, a child
   * process's --max-old-space-size). A job that runs out fails; its sandbox is replaced.
   */
  maxMemoryMb?: number;
  /** Node flags of child processes (default: this process's, without --test and --inspect ones). */
  execArgv?: string[];
}

export interface BatchOptions {
  /** Most jobs per handler call. */
  size: number;
  /** How long to wait for a batch to fill before running a smaller one (default 50 ms). */
  waitMs?: number;
}

export interface WorkerOptions {
  stream: string;
  group: string;
  /**
   * Consume the partitions `stream{tag}` a Producer with the same `partitions` writes (one
   * consumer group per partition, concurrency split over them).
   */
  partitions?: number;
  /** Consumer name; default hostname-pid-random, unique per process. */
  consumer?: string;
  /** Handlers (with `batch`: batches) running at once (default 10; with `batch`, 1). */
  concurrency?: number;
  /**
   * Entries read ahead of free handler slots, waiting here (pending under this consumer, their
   * leases kept) to start as slots free, so short jobs don't each wait for a read's round trip.
   * Default: while recent runs took under 5 ms on average, the limiter (if any) holds no start
   * back, and no globalConcurrency or fairness is set, up to max(16, concurrency × batch size);
   * else none. 0 turns it off.
   */
  readAhead?: number;
  /**
   * A handler running longer is aborted (its signal) and the delivery counts as failed. A
   * sandboxed processor's sandbox is ended instead (and replaced), the time counted from when
   * the job reached a started sandbox.
   */
  timeoutMs?: number;
  /** Pending entries idle this long belong to a dead consumer and are claimed (default 30s). */
  claimIdleMs?: number;
  /** How often XAUTOCLAIM runs (default claimIdleMs / 2). */
  claimIntervalMs?: number;
  /** Deliveries after which a failing entry is dead-lettered (default 5). */
  maxDeliveries?: number;
  /** Default `${stream}:dead`. */
  deadLetterStream?: string;
  /**
   * Delay before retrying after failed delivery n (1-based); default 100ms·2^(n-1). Capped at
   * 0.8·claimIdleMs, so that no other worker claims the entry before its retry is due.
   */
  backoff?: (deliveries: number) => number;
  /** XREADGROUP BLOCK timeout (default 2000ms). */
  blockMs?: number;
  /** Where a newly created group starts: '0' (all entries, default) or '$' (new ones only). */
  startId?: string;
  /**
   * Remove consumers of the group idle this long with nothing pending (those of workers that
   * are gone). Default max(5 min, 10·claimIdleMs); 0 turns it off.
   */
  consumerIdleMs?: number;
  /** Run the Scheduler of the stream's repeating jobs (Producer.schedule; default true). */
  schedules?: boolean;
  /**
   * At most `max` jobs start per `durationMs`, counted across every worker of the group in every
   * process (see rate-limiter.ts).
   */
  limiter?: LimiterOptions;
  /**
   * At most this many jobs of the group run at once, counted across every worker of every
   * process (global-concurrency.ts). Slots are leased for claimIdleMs and renewed while held:
   * those of a worker killed with kill -9 come back within claimIdleMs.
   */
  globalConcurrency?: number;
  /**
   * Jobs added with a `fairKey` (a tenant, a user) are served round-robin over keys, each key
   * within `concurrency` jobs at once and `limiter` starts per window, counted across every
   * worker (docs/fairness.md). Jobs without a fairKey are not affected.
   */
  fairness?: FairnessOptions;
  /**
   * How often the group's pause flag (pauseGroup / `sluice pause`) is checked (default 500 ms):
   * the longest a worker may go on taking entries after a pause.
   */
  pauseCheckMs?: number;
  codec?: Codec;
  /**
   * Run a DelayedMover for the worker's stream(s), moving due delayed jobs in (default true).
   * `{ pollMs }`: longest sleep between looks at the delayed set (default 100 ms; it sleeps
   * only until the next due time when that is sooner).
   */
  delayed?: boolean | { pollMs?: number };
  /** Share one Metrics between workers, e.g. for one Prometheus endpoint. */
  metrics?: Metrics;
  /** Close gracefully on SIGTERM and SIGINT (default false). */
  handleSignals?: boolean;
  /**
   * 'auto' (default): use XREADGROUP ... CLAIM and XNACK when the server has them;
   * 'redis7': XAUTOCLAIM and idle timeouts only, whatever the server.
   */
  streamFeatures?: 'auto' | 'redis7';
  /**
   * Where the worker's notices go: 'error' events (error), dead letters (warn), failed
   * deliveries and retries (debug). Silent by default; events are emitted either way.
   */
  logger?: Logger;
  /**
   * Completed jobs' records kept (jobs/retention.ts): true removes each at once, a count keeps
   * the newest n, `{ age, count }` (age in seconds, as BullMQ). Default `{ count: 1000 }`. The
   * stream's acknowledged entries are trimmed to the same count or age (never one a group still
   * needs), all of them when the records are kept without a bound (`false`: the records hold
   * the jobs), unless keepAcknowledged. A job's own removeOnComplete overrides it.
   */
  removeOnComplete?: KeepJobs;
  /** Dead-lettered jobs' records kept, as removeOnComplete. Default `{ count: 10000 }`. */
  removeOnFail?: KeepJobs;
  /** Keep every acknowledged entry in the stream (history on purpose); default false. */
  keepAcknowledged?: boolean;
  /** Log lines (job.log) kept per job, the newest (default 100). */
  keepLogs?: number;
  /** The queue's events stream (jobs/events.ts): on, capped at 10,000, by default. */
  events?: EventsOption;
  /** For a processor given as a module path: threads or processes, how many (docs/sandboxes.md). */
  sandbox?: SandboxOptions;
}

/** A worker whose handler takes arrays of jobs (for bulk inserts). */
export interface BatchWorkerOptions extends WorkerOptions {
  batch: BatchOptions;
}

export interface CloseOptions {
  /**
   * close() resolves within this many ms, whatever the server does. Handlers still running
   * when a reserve for the last round trips is left (a quarter, at most 500 ms) are aborted;
   * their entries stay pending (released with XNACK where the server has it), never
   * acknowledged. If the server does not answer in time (down, frozen), the worker drops its
   * own links and emits an 'error', a CloseTimeoutError listing what was left undone.
   */
  timeoutMs?: number;
}

export function exponentialBackoff(baseMs = 100, maxMs = 30_000): (deliveries: number) => number {
  return (n) => Math.min(maxMs, baseMs * 2 ** Math.max(0, n - 1));
}

/** Options of one stream's consumer, defaults applied. */
export interface ResolvedOptions {
  stream: string;
  group: string;
  concurrency: number;
  /** A fixed read-ahead, or 'auto' (WorkerOptions.readAhead). */
  readAhead: number | 'auto';
  batchSize: number;
  batchWaitMs: number;
  timeoutMs: number;
  claimIdleMs: number;
  claimIntervalMs: number;
  maxDeliveries: number;
  backoff: (deliveries: number) => number;
  blockMs: number;
  startId: string;
  consumerIdleMs: number;
  pauseCheckMs: number;
  /** One limiter shared by every stream (partition) of the worker: the limit is the group's. */
  limiter: RateLimiter | null;
  /** Around each run: globalConcurrency's slots and fairness's key slots (global-concurrency.ts). */
  gate: RunGate | null;
  /** Moves fair keys' jobs into the stream (fairness/taker.ts); null in tests that make consumers directly. */
  feeder: FairTaker | null;
  codec: Codec;
  streamFeatures: 'auto' | 'redis7';
  removeOnComplete: Keep;
  removeOnFail: Keep;
  keepAcknowledged: boolean;
  keepLogs: number;
  /** The events stream's cap, or null: no events. */
  eventsMaxLen: number | null;
}

export function resolveOptions(o: WorkerOptions & { batch?: BatchOptions }, codec: Codec): ResolvedOptions {
  const claimIdleMs = o.claimIdleMs ?? 30_000;
  const resolved: ResolvedOptions = {
    stream: o.stream,
    group: o.group,
    concurrency: o.concurrency ?? (o.batch ? 1 : 10),
    readAhead: o.readAhead ?? 'auto',
    batchSize: o.batch?.size ?? 1,
    batchWaitMs: o.batch ? (o.batch.waitMs ?? 50) : 0,
    timeoutMs: o.timeoutMs ?? 0,
    claimIdleMs,
    claimIntervalMs: o.claimIntervalMs ?? Math.max(10, Math.floor(claimIdleMs / 2)),
    maxDeliveries: o.maxDeliveries ?? 5,
    backoff: o.backoff ?? exponentialBackoff(),
    blockMs: o.blockMs ?? 2000,
    startId: o.startId ?? '0',
    consumerIdleMs: o.consumerIdleMs ?? Math.max(300_000, 10 * claimIdleMs),
    pauseCheckMs: o.pauseCheckMs ?? 500,
    limiter: null,
    gate: null,
    feeder: null,
    codec,
    streamFeatures: o.streamFeatures ?? 'auto',
    removeOnComplete: resolveKeep(o.removeOnComplete ?? DEFAULT_REMOVE_ON_COMPLETE),
    removeOnFail: resolveKeep(o.removeOnFail ?? DEFAULT_REMOVE_ON_FAIL),
    keepAcknowledged: o.keepAcknowledged ?? false,
    keepLogs: o.keepLogs ?? 100,
    eventsMaxLen: eventsMaxLen(o.events),
  };
  if (!(Number.isInteger(resolved.keepLogs) && resolved.keepLogs >= 1)) throw new RangeError('keepLogs must be an integer >= 1');
  if (!(resolved.concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  if (resolved.readAhead !== 'auto' && !(Number.isInteger(resolved.readAhead) && resolved.readAhead >= 0)) throw new RangeError('readAhead must be an integer >= 0');
  if (!(resolved.maxDeliveries >= 1)) throw new RangeError('maxDeliveries must be at least 1');
  if (!(resolved.batchSize >= 1)) throw new RangeError('batch.size must be at least 1');
  if (!(resolved.timeoutMs >= 0)) throw new RangeError('timeoutMs must not be negative');
  return resolved;
}
