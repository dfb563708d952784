// Worker: consumes a stream (or every partition of one) through a consumer group, at most
// `concurrency` handlers at once, with retries after backoff, a delivery limit, a dead-letter
// stream, claiming of entries dead consumers left behind, timeouts and graceful shutdown.
// Each stream is served by a StreamConsumer (worker/stream-consumer.ts, which documents the
// life of an entry); this class is what users hold: options, typed events, start and close.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Connection } from '../client/connection.js';
import { jsonCodec } from './codec.js';
import { silentLogger } from '../logger.js';
import { logWorkerEvent } from './worker/event-log.js';
import { Metrics } from './metrics.js';
import { DelayedMover } from './delayed.js';
import { defaultDeadLetterStream, partitionStreams, splitConcurrency } from './partition.js';
import type { StreamFeatures } from './stream-features.js';
import { CloseTimeoutError, type WorkerEvents } from './worker/events.js';
import { type BatchHandler, type BatchOptions, type BatchWorkerOptions, type CloseOptions, type JobHandler, resolveOptions, type WorkerOptions } from './worker/options.js';
import { Scheduler } from './schedules.js';
import { RateLimiter } from './rate-limiter.js';
import { type AnyHandler, type Emit, StreamConsumer } from './worker/stream-consumer.js';
import { eventsMaxLen } from './jobs/events.js';
import { type SandboxPool, sandboxPool } from './sandbox/pool.js';
import { GlobalConcurrency, type RunGate, SlotLeases } from './global-concurrency.js';
import { asError } from './worker/events.js';
import { abortHook } from './worker/job-abort.js';
import { FairTaker } from './fairness/taker.js';

export class Worker<T = unknown, R = unknown> extends EventEmitter<WorkerEvents<T, R>> {
  readonly consumer: string;
  readonly metrics: Metrics;
  /** The streams consumed: `[stream]`, or the partition streams. */
  readonly streams: string[];
  /** Where the first (or only) stream's dead letters go. */
  readonly deadLetterStream: string;
  private readonly consumers: StreamConsumer<T>[];
  private readonly unwatch: Array<() => void> = [];
  private started: Promise<void> | null = null;
  private closed: Promise<void> | null = null;
  private signalHandler: (() => void) | null = null;
  /** Moves the streams' due delayed jobs in (option `delayed`, on by default). */
  private readonly mover: DelayedMover | null;
  private readonly schedulers: Scheduler[] = [];
  private closing = false;
  /** The sandboxes of a processor given as a module path (sandbox/pool.ts), else null. */
  private readonly pool: SandboxPool | null = null;
  /** globalConcurrency's slots (global-concurrency.ts), else null. */
  private gate: RunGate | null = null;
  /** Each stream's mover of fair keys' jobs (fairness/taker.ts). */
  private readonly feeders: FairTaker[] = [];
  /** Emits (and logs) a worker event. */
  private readonly report: <K extends keyof WorkerEvents<T, R>>(event: K, ...args: WorkerEvents<T, R>[K]) => void;

  constructor(conn: Connection, options: BatchWorkerOptions, handler: BatchHandler<T>);
  constructor(conn: Connection, options: WorkerOptions, handler: JobHandler<T, R>);
  /**
   * A sandboxed processor: the module (a file: URL, or a path, resolved against the working
   * directory) whose default export runs each job in a worker thread or, with
   * `sandbox: { kind: 'process' }`, a child process (docs/sandboxes.md).
   */
  constructor(conn: Connection, options: WorkerOptions, processor: string | URL);
  constructor(
    private readonly conn: Connection,
    private readonly options: WorkerOptions & { batch?: BatchOptions },
    handler: JobHandler<T, R> | BatchHandler<T> | string | URL,
  ) {
    super();
    if (typeof handler === 'string' || handler instanceof URL) {
      if (options.batch) throw new RangeError('a sandboxed processor takes one job at a time: batch is not supported with a module path');
      // The pool keeps timeoutMs itself, counted once the job reached a started sandbox.
      const pool = sandboxPool(handler, options.sandbox ?? {}, options.concurrency ?? 10, options.timeoutMs ?? 0);
      this.pool = pool;
      handler = ((job, context) => pool.run(job, abortHook(context))) as JobHandler<T, R>;
    } else if (options.sandbox !== undefined) {
      throw new RangeError('sandbox: the handler is a function, not a module path: it runs in this process');
    }
    this.consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.metrics = options.metrics ?? new Metrics();
    this.streams = options.partitions === undefined ? [options.stream] : partitionStreams(options.stream, options.partitions);
    if (options.deadLetterStream !== undefined && this.streams.length > 1) {
      throw new RangeError('deadLetterStream: each partition has its own dead-letter stream (`partition:dead`, in its slot)');
    }
    const any = (options.batch ? { batch: true, fn: handler } : { batch: false, fn: handler }) as AnyHandler<T>;
    const shares = splitConcurrency(options.concurrency ?? (options.batch ? 1 : 10), this.streams.length);
    const logger = options.logger ?? silentLogger;
    const emit = <K extends keyof WorkerEvents<T, R>>(event: K, ...args: WorkerEvents<T, R>[K]): void => {
      logWorkerEvent(logger, this.consumer, event, args as WorkerEvents<T>[K & keyof WorkerEvents<T>]);
      (this.emit as (e: K, ...a: WorkerEvents<T, R>[K]) => boolean)(event, ...args);
    };
    this.report = emit;
    // One limiter for every partition: the limit is the group's, keyed by the logical stream.
    const limiter = options.limiter ? new RateLimiter(conn, `${options.stream}:limit:${options.group}`, options.limiter) : null;
    const gate = this.runGate(conn, options, (err) => emit('error', asError(err)));
    this.consumers = this.streams.map((stream, i) => {
      const timeoutMs = this.pool === null ? options.timeoutMs : undefined;
      const feeder = new FairTaker(conn, stream, options.group, options.claimIdleMs ?? 30_000, options.fairness ?? {}, (err) => emit('error', asError(err)));
      this.feeders.push(feeder);
      // Auto read-ahead only without slots to wait for before a run, which it would hoard entries through (a limiter says when it holds starts back).
      const readAhead = options.readAhead ?? (gate !== null || options.fairness !== undefined ? 0 : undefined);
      const resolved = { ...resolveOptions({ ...options, stream, concurrency: shares[i]!, timeoutMs, readAhead }, options.codec ?? jsonCodec), limiter, gate: bothGates(gate, feeder), feeder };
      const dead = options.deadLetterStream ?? defaultDeadLetterStream(stream);
      return new StreamConsumer<T>(conn, resolved, this.consumer, dead, this.metrics, any, emit as Emit<T>);
    });
    this.deadLetterStream = this.consumers[0]!.deadLetterStream;
    for (const stream of this.streams) this.unwatch.push(this.metrics.watchLag(conn, stream));
    const delayed = options.delayed ?? true;
    const pollMs = typeof delayed === 'object' ? delayed.pollMs : undefined;
    this.mover = delayed === false ? null : new DelayedMover(conn, { stream: this.streams, pollMs, eventsMaxLen: eventsMaxLen(options.events), onError: (err) => emit('error', err) });
  }

  /** The slots each run takes: globalConcurrency's (global-concurrency.ts), else null. */
  private runGate(conn: Connection, options: WorkerOptions, onError: (err: unknown) => void): RunGate | null {
    if (options.globalConcurrency === undefined) return null;
    const leases = new SlotLeases(conn, options.claimIdleMs ?? 30_000, onError);
    this.gate = new GlobalConcurrency(leases, options.stream, options.group, options.globalConcurrency);
    return this.gate;
  }

  /** What the server supports (probed at start()): CLAIM reads and XNACK where it has them. */
  get features(): StreamFeatures {
    return this.consumers[0]!.features;
  }

  /** Handlers running right now. */
  get active(): number {
    return this.consumers.reduce((n, c) => n + c.active, 0);
  }

  /** Creates the groups if missing and starts reading; resolves once reading has begun. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.pool?.start(); // a processor module that does not load fails here
      await Promise.all(this.consumers.map((c) => c.start()));
      if (this.closing) return; // close() came while starting: start nothing more
      await this.mover?.start();
      if (this.closing) return;
      if (this.options.schedules !== false) {
        for (const stream of this.streams) {
          const scheduler = new Scheduler(this.conn, stream, { onError: (err) => this.emit('error', err) });
          scheduler.start();
          this.schedulers.push(scheduler);
        }
      }
      if (this.options.handleSignals) {
        this.signalHandler = () => void this.close();
        process.once('SIGTERM', this.signalHandler);
        process.once('SIGINT', this.signalHandler);
      }
    })();
    return this.started;
  }

  /** Starts (if needed) and resolves when the worker has been closed. */
  async run(): Promise<void> {
    await this.start();
    await Promise.all(this.consumers.map((c) => c.done()));
    await this.closed;
  }

  /**
   * Graceful stop: no more reads; running handlers finish and are acknowledged. With
   * `timeoutMs`, close resolves within it whatever the server does: handlers still running
   * shortly before (see closeReserveMs) are aborted (their signal) and their entries left for
   * other workers, never acknowledged; if the server does not answer the last round trips in
   * time (it is down or frozen), the worker drops its own links and emits an 'error'
   * (CloseTimeoutError) saying what the server was not told. Idempotent.
   */
  close(options: CloseOptions = {}): Promise<void> {
    this.closed ??= this.shutdown(options.timeoutMs);
    return this.closed;
  }

  private async shutdown(timeoutMs: number | undefined): Promise<void> {
    this.closing = true;
    const graceful = (async () => {
      const began = performance.now();
      await this.started?.catch(() => {});
      const handlersWithinMs = timeoutMs === undefined ? undefined : Math.max(0, timeoutMs - closeReserveMs(timeoutMs) - (performance.now() - began));
      await Promise.all([this.mover?.close(), ...this.schedulers.map((s) => s.close()), ...this.consumers.map((c) => c.close(handlersWithinMs))]);
      await this.pool?.close();
    })();
    const inTime = timeoutMs === undefined ? await graceful.then(() => true) : await settlesWithin(graceful, timeoutMs);
    const abandoned = inTime ? [] : [...this.consumers.flatMap((c) => c.abandon()), ...(this.mover?.abandon() ?? []), ...this.schedulers.flatMap((s) => s.abandon())];
    if (!inTime) await this.pool?.close(); // sandboxes still running abandoned jobs
    for (const u of this.unwatch) u();
    this.gate?.close();
    for (const f of this.feeders) f.close();
    if (this.signalHandler) {
      process.off('SIGTERM', this.signalHandler);
      process.off('SIGINT', this.signalHandler);
    }
    if (!inTime) this.report('error', new CloseTimeoutError(timeoutMs!, abandoned));
  }
}

/** globalConcurrency's gate (if any), then the fair key slots'. */
function bothGates(global: RunGate | null, fair: RunGate): RunGate {
  if (global === null) return fair;
  return {
    async enter(jobs, abort) {
      return (await global.enter(jobs, abort)) && fair.enter(jobs, abort);
    },
    leave(jobs) {
      global.leave(jobs);
      fair.leave(jobs);
    },
    close() {},
  };
}

/**
 * Of close({ timeoutMs }), the part kept for the round trips after the handlers (releases,
 * acknowledgements, removing the consumer): a quarter, at most 500 ms.
 */
function closeReserveMs(timeoutMs: number): number {
  return Math.min(500, Math.floor(timeoutMs / 4));
}

/** True when `p` settles within `ms`; false (and `p` left running) otherwise. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

export { exponentialBackoff } from './worker/options.js';
export type { BatchHandler, BatchOptions, BatchWorkerOptions, CloseOptions, Job, JobContext, JobHandler, SandboxedProcessor, SandboxOptions, WorkerOptions } from './worker/options.js';
export { SandboxExitError, SandboxLoadError } from './sandbox/errors.js';
export { CloseTimeoutError, LeaseLostError, TimeoutError, WorkerClosedError, type DeadLetteredJob, type WorkerEvents } from './worker/events.js';
