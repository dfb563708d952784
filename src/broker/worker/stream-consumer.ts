// One stream's consumer: reads through its GroupReader, runs handlers within `concurrency`,
// acknowledges, retries after backoff, dead-letters, keeps leases of long handlers, and shuts
// down gracefully. Every entry it holds is in its EntryTable with its state (entry-table.ts).
//
// Life of an entry:
//   read ─▶ queued ─▶ running ─ ok ─▶ acking ─▶ XACK (batched) ─▶ 'completed'
//                        └ throws / times out ─▶ 'failed'; then
//                            deliveries < maxDeliveries ─▶ retry-wait: stays pending under our
//                              name; after backoff(deliveries) re-taken with XCLAIM
//                              min-idle=backoff (the server's clock), one more delivery
//                            otherwise ─▶ MULTI XADD dead-letter + XACK EXEC ─▶ 'deadLettered'
//   a payload that does not decode ─▶ dead-lettered at once
//   tracing (@opentelemetry/api installed): each run is a CONSUMER span, child of the
//   producer's `traceparent`; the handler runs in it; failure, retry and dead letter are recorded
//   the consumer dies ─▶ after claimIdleMs another worker claims the entry (XAUTOCLAIM, or
//                        XREADGROUP ... CLAIM where the server has it)
//   a job (an entry with `job-id`): each step also updates its record and sends its event
//   (job-writes.ts); the completion goes in the XACK's MULTI, the dead letter's in its MULTI;
//   finished records are then kept by removeOnComplete / removeOnFail (jobs/retention.ts)
//   a flow child (flows/): its completion or dead letter goes in one WATCHed MULTI with its
//   report to its parent (flows/report.ts), instead of the batched XACK
//   prioritized jobs (jobs/priority.ts): moved from the stream's prioritized set into the stream,
//   lowest number first, up to the free slots, along with a read; wake-up entries are acked
import type { Arg, BlockingConnection, Connection, Value } from '../../client/connection.js';
import { decodeEntry } from '../codec.js';
import { deadLetterFields } from '../dead-letters.js';
import type { Metrics } from '../metrics.js';
import { errorMessage, parseEntries, type StreamEntry } from '../replies.js';
import { probeStreamFeatures, REDIS7_FEATURES, type StreamFeatures } from '../stream-features.js';
import { Acker } from './acker.js';
import { JobWriteSender } from './job-write-sender.js';
import { EntryTable, type HeldEntry } from './entry-table.js';
import { asError, type DeadLetteredJob, LeaseLostError, TimeoutError, WorkerClosedError, type WorkerEvents } from './events.js';
import { type Delivered, GroupReader, type ReadResult } from './group-reader.js';
import type { BatchHandler, Job, JobHandler, ResolvedOptions } from './options.js';
import { isGroupPaused } from '../pause.js';
import { RetryScheduler } from './retry-scheduler.js';
import { ConsumerTrace, loadTracing } from '../tracing.js';
import { JobAbort, runContext } from './job-abort.js';
import { JobWrites, type JobRef } from './job-writes.js';
import { WorkerJob } from './job.js';
import { Fields } from '../codec.js';
import { backoffFunction, decodeJobOptions, resolveKeep } from '../jobs/job-options.js';
import { RetentionKeeper } from '../jobs/retention.js';
import { isWakeEntry, PRIORITY_FIELD, PriorityTaker } from '../jobs/priority.js';
import { FAIR_KEY_FIELD } from '../fairness/lanes.js';
import { FlowReporter } from '../flows/reporter.js';
import type { ParentLink } from '../flows/link.js';
import type { ChildOutcome } from '../flows/report.js';

/** How often a pause repeats its interrupt while a read it must end is still on its way. */
const INTERRUPT_RETRY_MS = 20;
/** Auto read-ahead holds entries only while runs average under this (ms). */
const READ_AHEAD_RUN_MS = 5;
/** ... and no job moved in for a free slot (a fair key's, a prioritized one) was read for this long (ms). */
const READ_AHEAD_AFTER_FED_MS = 5000;
/**
 * While one fair key has the lanes to itself, its jobs may be read ahead as far as they run
 * within this (ms): another key's first job then waits at most that long behind them, and one
 * busy key's short jobs still go in batches (without read-ahead, no-op jobs of one key cost
 * 1.4-1.8x plain ones). With several keys waiting, only free slots are filled, in turns.
 */
const FAIR_READ_AHEAD_MS = 1;

export type Emit<T> = <K extends keyof WorkerEvents<T>>(event: K, ...args: WorkerEvents<T>[K]) => void;

/** How a handler's run ended. */
type RunOutcome = { ok: true; result: unknown } | { ok: false; error: Error };

export type AnyHandler<T> = { batch: false; fn: JobHandler<T> } | { batch: true; fn: BatchHandler<T> };

export class StreamConsumer<T> {
  features: StreamFeatures = REDIS7_FEATURES;
  private state: 'idle' | 'running' | 'closing' | 'closed' = 'idle';
  private readonly table = new EntryTable();
  private readonly acker: Acker;
  private readonly retries: RetryScheduler;
  private reader: GroupReader | null = null;
  private blocking: BlockingConnection | null = null;
  private readonly runs = new Set<Promise<void>>();
  private readonly acks = new Set<Promise<void>>();
  private slotWaiter: (() => void) | null = null;
  private batchTimer: NodeJS.Timeout | null = null;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: Array<() => void> = [];
  private loop: Promise<void> | null = null;
  /** Set by close() after its timeout: results of handlers still running are dropped. */
  private abandoned = false;
  /** The read loop's read while it is on its way or blocked (settles when it ends, never fails). */
  private readInFlight: Promise<void> | null = null;
  /** The group's pause flag as last read; `resumed` wakes a read loop waiting on it. */
  private paused = false;
  private resumed: (() => void) | null = null;
  /** Set by close(): entries already delivered here still run before it returns. */
  private draining = false;
  /** Set by abandon(): the close in progress stops at its next step, nothing more is sent. */
  private gaveUp = false;
  /** Ids of XNACKs sent at close and not answered yet. */
  private readonly releasing = new Set<string[]>();
  private consumerRemoved = false;
  /** Resolves when the consumer has closed or been abandoned (a read may then never settle). */
  private readonly ended: Promise<void>;
  private end!: () => void;
  private readonly writes: JobWrites;
  /** How job writes and the acknowledgements' MULTI reach the server (commands, or a script). */
  private readonly sender: JobWriteSender;
  private readonly retention: RetentionKeeper;
  private readonly priority: PriorityTaker;
  private readonly flow: FlowReporter;
  private readonly recordRunTime: (ms: number) => void;
  /** Recent runs' average time (ms, exponentially weighted), null before the first. */
  private runTimeAverage: number | null = null;
  /** When the last job moved in for a free slot was read (Date.now()): a fair key's, a prioritized one. */
  private fairFedAt = 0;
  private priorityFedAt = 0;
  /** Jobs were read since the last empty read: the next empty one sends a 'drained' event. */
  private busySinceDrained = false;

  constructor(
    private readonly conn: Connection,
    private readonly o: ResolvedOptions,
    readonly consumer: string,
    readonly deadLetterStream: string,
    private readonly metrics: Metrics,
    private readonly handler: AnyHandler<T>,
    private readonly emit: Emit<T>,
  ) {
    // After abandon() the CloseTimeoutError has said which acks went unconfirmed.
    const onError = (err: unknown): void => void (this.gaveUp || this.emit('error', asError(err)));
    // A job's start waits for its completion's MULTI when that is queued by the turn's end.
    this.sender = new JobWriteSender(conn, o.stream);
    this.writes = new JobWrites(conn, o.stream, consumer, o.codec, o.eventsMaxLen, o.removeOnComplete, o.removeOnFail, o.keepLogs, onError, () => this.acker.queued, this.sender);
    this.retention = new RetentionKeeper(conn, this.writes.keys, o.removeOnComplete, o.removeOnFail, o.keepAcknowledged, onError);
    this.acker = new Acker(conn, o.stream, o.group, onError, this.sender, () => this.writes.take(), (commands) => this.writes.sendNow(commands));
    this.retries = new RetryScheduler((id) => this.guard(this.retryDue(id)));
    this.priority = new PriorityTaker(conn, o.stream, onError);
    this.flow = new FlowReporter(conn, o.codec, o.eventsMaxLen);
    this.recordRunTime = metrics.runTimeRecorder(o.stream, o.group);
    this.ended = new Promise((resolve) => (this.end = resolve));
  }

  /** Handlers running now. */
  get active(): number {
    return this.table.count('running');
  }

  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    this.state = 'running';
    if (this.o.streamFeatures === 'auto') this.features = await probeStreamFeatures(this.conn);
    // Job writes as one script call on Redis / Valkey (job-write-sender.ts).
    await this.sender.probe(this.o.streamFeatures === 'auto' ? this.features : undefined);
    await loadTracing();
    // After each step: a close that gave up (abandon) may have come meanwhile.
    if (this.state !== 'running') return;
    const blocking = await this.conn.duplicate();
    if (this.state !== 'running') return void blocking.close({ force: true });
    this.blocking = blocking;
    const reader = new GroupReader(this.conn, blocking, this.o, this.consumer, this.features);
    this.reader = reader;
    await reader.ensureGroup();
    if (this.state !== 'running') return;
    const resume = (): void => reader.resumeHistory();
    this.unsubscribe.push(blocking.onReconnect(resume), this.conn.onReconnect(resume));
    // With CLAIM every read claims idle entries: no separate XAUTOCLAIM round trips.
    if (!this.features.readClaim) this.every(this.o.claimIntervalMs, () => this.autoclaim());
    this.every(Math.max(10, Math.floor(this.o.claimIdleMs / 3)), () => this.renewLeases());
    if (this.o.consumerIdleMs > 0) this.every(Math.max(10, Math.floor(this.o.consumerIdleMs / 2)), () => this.removeIdleConsumers());
    await this.checkPause();
    if (this.state !== 'running') return;
    this.every(this.o.pauseCheckMs, () => this.checkPause());
    // Prioritized jobs whose wake-up entry went missing (a producer killed just after its add).
    this.every(this.o.pauseCheckMs, async () => {
      if (await this.priority.check()) await this.blocking?.interrupt();
    });
    // Fair keys' lanes (fairness/taker.ts): the same check; a key's freed slot or rate window moves and wakes.
    const feeder = this.o.feeder;
    if (feeder !== null) {
      feeder.attach({ free: () => this.freeSlots(), wake: () => void this.blocking?.interrupt(), scripted: () => this.sender.usesScript });
      this.every(this.o.pauseCheckMs, async () => {
        if (await feeder.check()) await this.blocking?.interrupt();
      });
    }
    this.loop = this.readLoop();
  }

  /** Resolves when the read loop has ended (after close()), or the close gave up on it. */
  async done(): Promise<void> {
    await Promise.race([this.loop, this.ended]);
  }

  // --- reading ---------------------------------------------------------------------------------

  /** Handler slots not taken: capacity minus the entries queued or running. */
  private freeSlots(): number {
    return this.o.concurrency * this.o.batchSize - this.table.count('queued') - this.table.count('running');
  }

  /** Entries the next read may take: the free slots plus the read-ahead allowed now. */
  private readRoom(): number {
    return this.freeSlots() + this.readAhead();
  }

  /**
   * Read-ahead (WorkerOptions.readAhead): auto holds entries ahead only while runs are short, so
   * a slow job never keeps others waiting here that another worker could run (the Worker turns
   * it off where a slot may hold runs back: that wait is not run time; a limiter, while it does).
   */
  private readAhead(): number {
    if (this.o.readAhead !== 'auto') return this.o.readAhead;
    if (!this.autoReadAheadAllowed()) return 0;
    // Jobs a feeder moved in for free slots, in its order (priorities, keys in turn), would
    // wait here behind others: a higher priority behind a lower one; a quiet key's job behind a
    // flood's, which is bounded instead (fairReadAhead).
    const now = Date.now();
    if (now - this.priorityFedAt < READ_AHEAD_AFTER_FED_MS) return 0;
    if (now - this.fairFedAt < READ_AHEAD_AFTER_FED_MS) return this.fairReadAhead();
    return Math.max(16, this.o.concurrency * this.o.batchSize);
  }

  /**
   * Auto read-ahead may hold entries now: runs are short, and no limiter holds starts back
   * (entries read then would only wait here).
   */
  private autoReadAheadAllowed(): boolean {
    return this.o.readAhead === 'auto' && this.runTimeAverage !== null && this.runTimeAverage < READ_AHEAD_RUN_MS && this.o.limiter?.throttled !== true;
  }

  /** A sole fair key's jobs to move beyond the free slots: as many as the slots run in FAIR_READ_AHEAD_MS. */
  private fairReadAhead(): number {
    if (this.o.feeder?.soleKey !== true || !this.autoReadAheadAllowed()) return 0;
    const slots = this.o.concurrency * this.o.batchSize;
    return Math.min(Math.max(16, slots), Math.floor((slots * FAIR_READ_AHEAD_MS) / Math.max(this.runTimeAverage!, 0.01)));
  }

  private waitForSlot(): Promise<void> {
    if (this.readRoom() > 0 || this.state !== 'running') return Promise.resolve();
    return new Promise((resolve) => (this.slotWaiter = resolve));
  }

  private wakeReader(): void {
    const w = this.slotWaiter;
    this.slotWaiter = null;
    w?.();
  }

  /** Reads the group's pause flag; pausing interrupts a blocking read so no new entry is taken. */
  private async checkPause(): Promise<void> {
    const paused = await isGroupPaused(this.conn, this.o.stream, this.o.group);
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) {
      await this.interruptRead();
      this.emit('paused'); // once no read is left blocked: from here on nothing new is delivered
    } else {
      const wake = this.resumed;
      this.resumed = null;
      wake?.();
      this.emit('resumed');
    }
  }

  /**
   * Interrupts until the read in flight has ended (a pause, a close). One interrupt is not
   * enough: a read sent just before may reach the server after the interrupt (another
   * connection), and would then block for blockMs: taking entries added while paused, or
   * holding close() that long.
   */
  private async interruptRead(): Promise<void> {
    for (;;) {
      const reading = this.readInFlight;
      await this.blocking?.interrupt();
      if (reading === null || this.gaveUp) return;
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([reading.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(r, INTERRUPT_RETRY_MS, false)))]);
      clearTimeout(timer);
      if (ended) return;
    }
  }

  private waitWhilePaused(): Promise<void> {
    if (!this.paused || this.state !== 'running') return Promise.resolve();
    return new Promise((resolve) => (this.resumed = resolve));
  }

  private async readLoop(): Promise<void> {
    let failures = 0;
    /** The read in flight may bring back entries delivered before (see EntryTable.beginGuardedRead). */
    let guarded = false;
    while (this.state === 'running') {
      await this.waitWhilePaused();
      await this.waitForSlot();
      if (this.state !== 'running' || this.paused) continue;
      if (this.state !== 'running') break;
      // A claim may have filled the room since waitForSlot (and XREADGROUP's COUNT 0 means no limit).
      const room = this.readRoom();
      if (room <= 0) continue;
      try {
        // Prioritized jobs, lowest number first, into the stream (jobs/priority.ts), beside the
        // read below, which takes them whether it reaches the server after the move's EXEC or
        // before (blocked, it is woken by the move's XADDs): one round trip less per move.
        const moving = this.priority.pending ? this.priority.take(this.freeSlots()).then(() => null, asError) : null;
        const feeding = this.o.feeder?.pending ? this.o.feeder.take(this.freeSlots() + this.fairReadAhead()).then(() => null, asError) : null;
        // Set before anything is awaited: a pause seen from here on waits for this read to end.
        guarded = this.reader!.nextReadMayRepeat;
        if (guarded) this.table.beginGuardedRead();
        const reading = this.reader!.read(room);
        this.readInFlight = reading.then(
          () => undefined,
          () => undefined,
        );
        const result = await reading.finally(() => (this.readInFlight = null));
        const moveFailed = moving === null ? null : await moving;
        if (moveFailed !== null) this.emit('error', moveFailed);
        const feedFailed = feeding === null ? null : await feeding;
        if (feedFailed !== null) this.emit('error', feedFailed);
        failures = 0;
        this.accept(result);
        if (guarded) this.table.endGuardedRead();
        guarded = false;
        if (result.entries.length > 0) this.busySinceDrained = true;
        else if (this.busySinceDrained && this.table.size === 0) {
          this.busySinceDrained = false;
          this.writes.drained();
        }
        // The embedded engine replies in microtasks: let timers and I/O run between reads.
        await new Promise((r) => setImmediate(r));
      } catch (err) {
        if (guarded) this.table.endGuardedRead();
        guarded = false;
        if (this.state !== 'running') break;
        if (errorMessage(err).startsWith('NOGROUP')) {
          await this.reader!.ensureGroup().catch(() => {}); // the stream or group was deleted
        } else {
          this.emit('error', asError(err));
        }
        failures++;
        await this.pauseUnlessEnded(Math.min(2000, 20 * 2 ** Math.min(failures, 7)));
      }
    }
  }

  /** Waits before the next try, or less when the consumer ends meanwhile (its timer goes). */
  private async pauseUnlessEnded(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (timer = setTimeout(r, ms))), this.ended]);
    clearTimeout(timer);
  }

  /** Takes a read's entries into the table and starts what the slots allow. */
  private accept(result: ReadResult): void {
    if (result.trimmed.length > 0) this.trimmed(result.trimmed);
    const claimed: string[] = [];
    for (const d of result.entries) {
      this.priority.noteEntry(d.entry.fields);
      this.o.feeder?.noteEntry(d.entry.fields);
      const fields = d.entry.fields;
      if (fields !== null && fields[FAIR_KEY_FIELD] !== undefined) this.fairFedAt = Date.now();
      if (fields !== null && fields[PRIORITY_FIELD] !== undefined) this.priorityFedAt = Date.now();
      if (isWakeEntry(d.entry.fields)) {
        void this.acker.ack(d.entry.id); // a wake-up (jobs/priority.ts): nothing to run
        continue;
      }
      if (!this.take(d)) continue;
      if (d.claimed) claimed.push(d.entry.id);
    }
    if (claimed.length > 0) {
      this.metrics.inc('claimed', claimed.length);
      this.emit('claimed', claimed);
    }
    this.pump();
  }

  /** Adds a delivered entry; false when it was ours already (then only its count is updated). */
  private take(d: Delivered): boolean {
    // A read sent before our XACK of it was confirmed: done here, not run again.
    if (this.table.isFinished(d.entry.id)) return false;
    const held = this.table.get(d.entry.id);
    if (held === undefined) {
      this.table.add(d.entry, d.deliveries, d.claimed);
      return true;
    }
    if (held.state === 'retry-wait') {
      // Delivered again before our retry was due (a claim after a long pause): run it now.
      this.retries.cancel(d.entry.id);
      held.deliveries = d.deliveries;
      this.table.setState(held, 'queued');
    }
    return false;
  }

  /** Pending entries deleted under us: counted and reported, then removed from the PEL. */
  private trimmed(ids: string[]): void {
    this.metrics.inc('trimmed', ids.length);
    this.emit('trimmed', ids);
    for (const id of ids) void this.acker.ack(id);
  }

  // --- running handlers --------------------------------------------------------------------------

  /** Starts handlers (or batches) while slots are free. */
  private pump(): void {
    if (this.state !== 'running' && !this.draining) return;
    // One unit (a job, or a batch) per handler slot.
    while (this.table.count('queued') > 0 && this.runs.size < this.o.concurrency) {
      if (this.o.batchSize > 1 && this.table.count('queued') < this.o.batchSize && !this.draining) {
        // Wait a little for the batch to fill.
        this.batchTimer ??= setTimeout(() => {
          this.batchTimer = null;
          this.runUnit(this.table.takeQueued(this.o.batchSize));
          this.pump();
        }, this.o.batchWaitMs);
        return;
      }
      this.runUnit(this.table.takeQueued(this.o.batchSize));
    }
  }

  private runUnit(held: HeldEntry[]): void {
    if (held.length === 0) return;
    // Counted before execute() starts: it calls the handler synchronously, and a handler may
    // look at the worker (close() waits for the runs) before execute() returns.
    let ended!: () => void;
    const p = new Promise<void>((resolve) => (ended = resolve));
    this.runs.add(p);
    void this.execute(held).finally(() => {
      this.runs.delete(p);
      ended();
      this.pump();
      this.wakeReader();
    });
  }

  private async execute(held: HeldEntry[]): Promise<void> {
    // The entries that became jobs, and their jobs, index for index.
    const hs: HeldEntry[] = [];
    const jobs: Job<T>[] = [];
    for (const h of held) {
      const prepared = this.prepare(h);
      const job = prepared instanceof Promise ? await prepared : prepared;
      if (job !== null) {
        hs.push(h);
        jobs.push(job);
      }
    }
    if (jobs.length === 0) return;
    const abort = new JobAbort();
    for (const h of hs) h.abort = abort;
    if (this.o.limiter !== null) {
      // Each job of the unit takes a start from the group's limit; an abort meanwhile (lost
      // lease, close timeout) means the entries were dealt with elsewhere: do not run them.
      try {
        for (let i = 0; i < jobs.length; i++) if (!(await this.o.limiter.acquire(abort))) return;
      } catch (err) {
        // The limit could not be checked: leave the entries pending (claimed back after
        // claimIdleMs) rather than run them past the limit.
        this.emit('error', asError(err));
        for (const h of hs) this.table.delete(h);
        return;
      }
    }
    // globalConcurrency / fairness (global-concurrency.ts): a slot before the run, given back after.
    if (this.o.gate !== null) {
      let entered = this.enterGate(hs, jobs, abort);
      if (typeof entered !== 'boolean') entered = await entered;
      if (!entered) return;
    }
    this.recordStarts(hs);
    const trace = ConsumerTrace.start(jobs, this.o.group, this.consumer);
    const started = performance.now();
    const outcome = await this.invoke(jobs, abort, trace);
    this.o.gate?.leave(jobs);
    const elapsed = performance.now() - started;
    for (let i = 0; i < jobs.length; i++) {
      const h = hs[i]!;
      const job = jobs[i]!;
      h.abort = null;
      if (this.table.get(job.entryId) !== h) {
        trace?.event(i, 'sluice.lease_lost'); // the lease was lost meanwhile
        continue;
      }
      this.recordRunTime(elapsed);
      this.runTimeAverage = this.runTimeAverage === null ? elapsed : this.runTimeAverage * 0.9 + elapsed * 0.1;
      if (this.abandoned) {
        trace?.event(i, 'sluice.abandoned'); // close() gave up on it: it stays pending, never acked
        continue;
      }
      if (outcome.ok) {
        this.complete(h, job, outcome.result);
        trace?.ok(i);
      } else {
        const next = await this.fail(h, job, outcome.error);
        trace?.event(i, next.event, next.attributes);
        trace?.failed(i, outcome.error);
      }
    }
    trace?.endAll();
  }

  /** Records the start of the unit's jobs (anonymous entries have no record: nothing to build). */
  private recordStarts(hs: HeldEntry[]): void {
    let starts: JobRef[] | null = null;
    for (const h of hs) if (h.entry.fields?.[Fields.jobId] !== undefined) (starts ??= []).push(this.ref(h));
    if (starts !== null) this.writes.started(starts, Date.now());
  }

  /** The run gate's slot; false when the abort came first or the gate failed (then left pending, as the limiter does). */
  private enterGate(hs: HeldEntry[], jobs: Job<T>[], abort: JobAbort): boolean | Promise<boolean> {
    const failed = (err: unknown): false => {
      this.emit('error', asError(err));
      for (const h of hs) this.table.delete(h);
      return false;
    };
    try {
      const entered = this.o.gate!.enter(jobs, abort);
      return typeof entered === 'boolean' ? entered : entered.catch(failed);
    } catch (err) {
      return failed(err);
    }
  }

  /**
   * The job for an entry, or null when it was dealt with here (dead-lettered: too many
   * deliveries or undecodable). Synchronous unless it dead-letters: a job costs no promise here.
   */
  private prepare(h: HeldEntry): Job<T> | Promise<null> {
    const { entry, deliveries } = h;
    const fields = entry.fields!;
    h.opts = decodeJobOptions(fields[Fields.opts]);
    if (deliveries > this.maxDeliveries(h)) {
      // A consumer died (or kept dying) holding it: it has had its chances.
      const message = h.lastError ?? `delivered ${deliveries} times without success`;
      return this.deadLetterUnhandled(h, this.job(entry.id, undefined, deliveries, fields, h.opts), new Error(message)).then(() => null);
    }
    if (deliveries > 1) this.metrics.inc('redelivered');
    let payload: T;
    try {
      payload = decodeEntry(this.o.codec, fields) as T;
    } catch (err) {
      return this.deadLetterUnhandled(h, this.job(entry.id, undefined, deliveries, fields, h.opts), asError(err)).then(() => null);
    }
    return this.job(entry.id, payload, deliveries, fields, h.opts);
  }

  /**
   * A job, always built by this one literal so every job has the same shape. (A spread such as
   * `{ ...base, payload }` got a hidden class of its own per job once optimized, about 0.5 us
   * each, and made every property read of a handler's `job` megamorphic.)
   */
  private job<P>(id: string, payload: P, deliveries: number, fields: Record<string, string>, opts = decodeJobOptions(fields[Fields.opts])): Job<P> {
    const jobId = fields[Fields.jobId];
    return new WorkerJob(jobId ?? id, id, this.o.stream, payload, deliveries, fields, fields['key'], opts, jobId === undefined ? null : this.writes);
  }

  /** What the job writes need of a held entry. */
  private ref(h: HeldEntry): JobRef {
    return {
      jobId: h.entry.fields?.[Fields.jobId] ?? null,
      entryId: h.entry.id,
      deliveries: h.deliveries,
      removeOnComplete: h.opts.removeOnComplete,
      removeOnFail: h.opts.removeOnFail,
      dedupId: h.opts.deduplication?.ttl === undefined ? h.opts.deduplication?.id : undefined,
      claimed: h.claimed,
    };
  }

  /** The job's own attempts, else the worker's maxDeliveries. */
  private maxDeliveries(h: HeldEntry): number {
    return h.opts.attempts ?? this.o.maxDeliveries;
  }

  /** The retry delay after a failed delivery: the job's own backoff, else the worker's, below claimIdleMs. */
  private retryDelay(h: HeldEntry): number {
    const backoff = h.opts.backoff === undefined ? this.o.backoff : backoffFunction(h.opts.backoff);
    return Math.max(0, Math.min(backoff(h.deliveries), Math.floor(this.o.claimIdleMs * 0.8)));
  }

  /** Dead-letters an entry the handler never saw, in a span of its own (ERROR, with the event). */
  private async deadLetterUnhandled(h: HeldEntry, job: DeadLetteredJob<T>, error: Error): Promise<void> {
    const trace = ConsumerTrace.start([job], this.o.group, this.consumer);
    const moved = await this.deadLetter(h, job, error);
    if (moved) trace?.event(0, 'sluice.dead_letter', { 'sluice.dead_letter.stream': this.deadLetterStream });
    trace?.failed(0, error);
  }

  /**
   * Runs the handler, bounded by timeoutMs; a timeout aborts the signal and counts as a failure.
   * One promise per run: the outcome settles on whichever comes first, the handler or the abort
   * (a handler that settles after its abort is caught and dropped, never an unhandled rejection).
   */
  private invoke(jobs: Job<T>[], abort: JobAbort, trace: ConsumerTrace | null): Promise<RunOutcome> {
    return new Promise<RunOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: RunOutcome): void => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(outcome); // later calls are no-ops
      };
      abort.listen((reason) => settle({ ok: false, error: asError(reason) }));
      if (this.o.timeoutMs > 0) timer = setTimeout(() => abort.abort(new TimeoutError(this.o.timeoutMs)), this.o.timeoutMs);
      const context = runContext(abort);
      const call = (): unknown => (this.handler.batch ? this.handler.fn(jobs, context) : this.handler.fn(jobs[0]!, context));
      let run: unknown;
      try {
        // In the job's span: spans the handler starts are its children.
        run = trace !== null ? trace.run(call) : call();
      } catch (err) {
        settle({ ok: false, error: asError(err) });
        return;
      }
      (run instanceof Promise ? run : Promise.resolve(run)).then(
        (result: unknown) => settle({ ok: true, result }),
        (err: unknown) => settle({ ok: false, error: asError(err) }),
      );
    });
  }

  private complete(h: HeldEntry, job: Job<T>, result: unknown): void {
    // The slot is free now, so the next read does not wait for the XACK round trip.
    this.table.setState(h, 'acking');
    // An anonymous entry (no job id) has nothing but its XACK: no record, flow or retention.
    const ref = h.entry.fields?.[Fields.jobId] === undefined ? null : this.ref(h);
    const parent = ref === null ? null : this.flow.parentOf(h.entry.fields);
    const finish = ref === null ? [] : this.writes.completed(ref, result, Date.now());
    const sent =
      parent === null
        ? this.acker.ack(job.entryId, finish)
        : this.finishInFlow(ref!.jobId!, parent, { ok: true, value: this.flow.encode(result) }, [['XACK', this.o.stream, this.o.group, job.entryId], ...finish]).then(
            () => true,
            (err: unknown) => (this.emit('error', asError(err)), false), // still pending: claimed and reported again
          );
    const acked = sent.then((ok) => {
      this.acks.delete(acked);
      if (!ok) return void this.table.delete(h);
      this.table.finish(h);
      if (ref !== null) this.retention.afterFinish('completed', ref.removeOnComplete === undefined ? undefined : resolveKeep(ref.removeOnComplete));
      this.metrics.inc('processed');
      this.emit('completed', job, result);
    });
    this.acks.add(acked);
  }

  /** Counts and reports a failed delivery, then dead-letters or schedules the retry; returns which (a trace event). */
  private async fail(h: HeldEntry, job: Job<T>, error: Error): Promise<{ event: string; attributes?: Record<string, number | string> }> {
    this.metrics.inc('failed');
    if (error instanceof TimeoutError) this.metrics.inc('timedOut');
    h.lastError = error.message;
    this.emit('failed', job, error);
    const dies = h.deliveries >= this.maxDeliveries(h) || this.state !== 'running';
    this.writes.failed(this.ref(h), error, dies ? null : this.retryDelay(h));
    if (h.deliveries >= this.maxDeliveries(h)) {
      const moved = await this.deadLetter(h, job, error);
      return moved ? { event: 'sluice.dead_letter', attributes: { 'sluice.dead_letter.stream': this.deadLetterStream } } : { event: 'sluice.left_pending' };
    }
    if (this.state !== 'running') {
      this.table.delete(h); // stays pending: retried after a restart or by a claim
      return { event: 'sluice.left_pending' };
    }
    // Below claimIdleMs, or another worker would claim it before its retry is due.
    const delay = this.retryDelay(h);
    this.table.setState(h, 'retry-wait');
    this.emit('retrying', job, delay);
    this.retries.schedule(job.entryId, delay);
    return { event: 'sluice.retry', attributes: { 'sluice.retry.delay_ms': delay, 'messaging.sluice.deliveries': h.deliveries } };
  }

  /** The backoff has passed by our clock: re-take the entry if the server agrees. */
  private async retryDue(id: string): Promise<void> {
    const h = this.table.get(id);
    if (h === undefined || h.state !== 'retry-wait' || this.state !== 'running') return;
    const delay = this.retryDelay(h);
    // min-idle = delay: the server confirms the backoff has elapsed and that nobody took it.
    const [entry] = parseEntries(await this.conn.call('XCLAIM', this.o.stream, this.o.group, this.consumer, delay, id));
    if (this.table.get(id) !== h || h.state !== 'retry-wait') return;
    if (entry !== undefined) {
      this.metrics.inc('retried');
      h.deliveries++;
      this.table.setState(h, 'queued');
      this.pump();
      return;
    }
    const [row] = (await this.conn.call('XPENDING', this.o.stream, this.o.group, id, id, 1)) as Value[][];
    if (row && String(row[1]) === this.consumer) {
      // Still ours but not idle long enough by the server's clock: try again a little later.
      this.retries.schedule(id, Math.max(5, delay - Number(row[2])));
    } else {
      this.table.delete(h); // acknowledged, deleted, or claimed by another consumer meanwhile
    }
  }

  // --- dead letters ------------------------------------------------------------------------------

  /** True when the entry was moved (false: the MULTI failed, it stays pending). */
  private async deadLetter(h: HeldEntry, job: DeadLetteredJob<T>, error: Error): Promise<boolean> {
    const fields = deadLetterFields({ entry: h.entry, stream: this.o.stream, group: this.o.group, consumer: this.consumer, deliveries: h.deliveries, error: error.message });
    const ref = this.ref(h);
    try {
      const own: Arg[][] = [['XADD', this.deadLetterStream, '*', ...fields], ['XACK', this.o.stream, this.o.group, h.entry.id], ...this.writes.deadLettered(ref, error, Date.now())];
      const parent = ref.jobId === null ? null : this.flow.parentOf(h.entry.fields);
      if (parent !== null) await this.finishInFlow(ref.jobId!, parent, { ok: false, reason: error.message }, own);
      else {
        this.writes.flush();
        await this.conn.multi(own);
      }
    } catch (err) {
      this.emit('error', asError(err)); // still pending: it comes back and is dead-lettered then
      this.table.delete(h);
      return false;
    }
    this.table.finish(h);
    if (ref.jobId !== null) this.retention.afterFinish('failed', ref.removeOnFail === undefined ? undefined : resolveKeep(ref.removeOnFail));
    this.metrics.inc('deadLettered');
    this.emit('deadLettered', job, error);
    return true;
  }

  /**
   * A flow child's finish (`own`) with its report to the parent, in one WATCHed MULTI on the
   * reporter's link: the job's queued writes (its start) go first in it, and those already sent
   * on the worker's connection are answered before, so the server sees them in order.
   */
  private async finishInFlow(jobId: string, parent: ParentLink, outcome: ChildOutcome, own: Arg[][]): Promise<void> {
    const before = this.writes.take();
    await this.writes.settled();
    await this.flow.report({ stream: this.o.stream, id: jobId }, parent, outcome, [...before, ...own]);
  }

  // --- claims, leases and idle consumers ----------------------------------------------------------

  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy || this.state !== 'running') return;
      busy = true;
      void this.guard(fn()).finally(() => (busy = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /** Runs background work, reporting its failure as an 'error' event. */
  private guard(p: Promise<void>): Promise<void> {
    return p.catch((err) => {
      if (this.state === 'running') this.emit('error', asError(err));
    });
  }

  /** Redis 7: takes entries idle longer than claimIdleMs from any consumer (dead ones, in practice). */
  private async autoclaim(): Promise<void> {
    for (let round = 0; round < 10 && this.freeSlots() > 0 && this.state === 'running'; round++) {
      this.table.beginGuardedRead();
      try {
        this.accept(await this.reader!.autoclaim(this.freeSlots()));
      } finally {
        this.table.endGuardedRead();
      }
      if (this.reader!.claimScanDone) break;
    }
  }

  /**
   * Long handlers keep their lease: XCLAIM ... JUSTID resets the idle time without counting a
   * delivery. An entry another consumer took meanwhile has lost its lease: its handler's
   * signal aborts and its result will be dropped (the new owner acknowledges it). The XCLAIM
   * carries the smallest idle time XPENDING just showed as its min-idle-time, so an entry claimed
   * by someone else between the two round trips (its idle time reset) is not taken back.
   */
  private async renewLeases(): Promise<void> {
    // Passes run every claimIdleMs / 3; half that as the age keeps a renewed entry in every pass.
    const started = Date.now();
    const threshold = started - Math.floor(this.o.claimIdleMs / 6);
    // 'acking' too: a flow child's finish waits its turn on the report link (flows/), and must not be claimed meanwhile.
    const long = this.table.inState('queued', 'running', 'acking').filter((h) => h.since <= threshold);
    if (long.length === 0) return;
    const owners = await this.conn.pipeline(long.map((h) => ['XPENDING', this.o.stream, this.o.group, h.entry.id, h.entry.id, 1]));
    const kept: HeldEntry[] = [];
    let minIdle = Infinity;
    long.forEach((h, i) => {
      const rows = owners[i];
      if (rows instanceof Error) return;
      const row = (rows as Value[][])[0];
      if (row !== undefined && String(row[1]) === this.consumer) {
        kept.push(h);
        minIdle = Math.min(minIdle, Number(row[2]));
      } else if (this.table.get(h.entry.id) === h && h.state !== 'acking') this.leaseLost(h);
    });
    if (kept.length === 0) return;
    const renewed = new Set(((await this.conn.call('XCLAIM', this.o.stream, this.o.group, this.consumer, minIdle, ...kept.map((h) => h.entry.id), 'JUSTID')) as Value[]).map(String));
    // One that was not renewed is checked again on the next pass (taken: its lease is lost then).
    for (const h of kept) if (renewed.has(h.entry.id)) h.since = started;
  }

  private leaseLost(h: HeldEntry): void {
    this.table.delete(h);
    this.metrics.inc('leaseLost');
    h.abort?.abort(new LeaseLostError(h.entry.id));
    this.emit('leaseLost', this.job(h.entry.id, undefined as T, h.deliveries, h.entry.fields ?? {}));
  }

  /** XGROUP DELCONSUMER for consumers idle past consumerIdleMs that hold nothing. */
  private async removeIdleConsumers(): Promise<void> {
    const rows = (await this.conn.call('XINFO', 'CONSUMERS', this.o.stream, this.o.group)) as Value[][];
    for (const row of rows) {
      const info: Record<string, Value> = {};
      for (let i = 0; i + 1 < row.length; i += 2) info[String(row[i])] = row[i + 1]!;
      const name = String(info['name']);
      if (name === this.consumer) continue;
      // `idle` counts from the last attempted read, so a live consumer blocking in XREADGROUP
      // keeps it low (7.2's `inactive` counts from the last successful one: not what we want).
      if (Number(info['pending']) === 0 && Number(info['idle']) >= this.o.consumerIdleMs) await this.deleteConsumerIfEmpty(name);
    }
  }

  /** DELCONSUMER drops the consumer's PEL: re-check it is empty just before (one round trip). */
  private async deleteConsumerIfEmpty(name: string): Promise<boolean> {
    const held = (await this.conn.call('XPENDING', this.o.stream, this.o.group, '-', '+', 1, name)) as Value[];
    if (held.length > 0) return false;
    await this.conn.call('XGROUP', 'DELCONSUMER', this.o.stream, this.o.group, name);
    return true;
  }

  // --- shutdown ------------------------------------------------------------------------------------

  /**
   * Stops reading, lets running handlers finish (up to timeoutMs, then aborts them), awaits
   * the acks, and removes this consumer from the group when it holds nothing.
   */
  async close(handlersWithinMs?: number): Promise<void> {
    if (this.state === 'idle') {
      this.state = 'closed';
      this.end();
      return;
    }
    if (this.state !== 'running') return;
    this.state = 'closing';
    for (const t of this.timers) clearInterval(t);
    if (this.batchTimer) clearTimeout(this.batchTimer);
    // Entries waiting for a retry stay pending under our name: another worker claims them after
    // claimIdleMs, which is longer than any backoff, so the backoff holds across a restart too.
    for (const id of this.retries.cancelAll()) {
      const h = this.table.get(id);
      if (h) this.table.delete(h);
    }
    this.wakeReader();
    this.resumed?.();
    const started = performance.now();
    // Each step may wait on a server that no longer answers; after abandon() none goes on.
    await this.interruptRead();
    if (this.gaveUp) return;
    await this.loop;
    if (this.gaveUp) return;
    // Entries already delivered here run before close() returns (unless its timeout passes).
    this.draining = true;
    this.pump();
    await this.waitForHandlers(handlersWithinMs === undefined ? undefined : Math.max(0, handlersWithinMs - (performance.now() - started)));
    if (this.gaveUp) return;
    await this.acker.drain();
    await Promise.all([...this.acks]);
    this.writes.flush();
    this.retention.close();
    // A pass in progress writes on the caller's connection: it ends before close() returns.
    await this.retention.settled().catch(() => {});
    this.priority.close();
    await this.flow.close();
    if (this.gaveUp) return;
    for (const u of this.unsubscribe) u();
    this.consumerRemoved = await this.deleteConsumerIfEmpty(this.consumer).catch(() => false);
    if (this.gaveUp) return;
    await this.blocking?.close();
    this.state = 'closed';
    this.end();
  }

  /**
   * The close in progress ran out of time (the server does not answer): stops everything at
   * once, drops this consumer's own link, and says what the server was not told. Handlers still
   * running are aborted; their entries, and those whose XACK went unanswered, stay pending on
   * the server and are delivered again (at least once).
   */
  abandon(): string[] {
    if (this.state === 'closed') return [];
    const closing = this.state === 'closing';
    this.state = 'closed';
    this.gaveUp = true;
    this.abandoned = true;
    for (const t of this.timers) clearInterval(t);
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.retries.cancelAll();
    this.retention.close();
    this.priority.close();
    void this.flow.close();
    const lost: string[] = [];
    const running = this.table.inState('running', 'queued');
    for (const h of running) {
      h.abort?.abort(new WorkerClosedError());
      this.table.delete(h);
    }
    const stream = this.o.stream;
    if (running.length > 0) lost.push(`${stream}: ${running.length} jobs aborted unfinished (${listIds(running.map((h) => h.entry.id))})`);
    const acks = this.acker.unconfirmed();
    if (acks.length > 0) lost.push(`${stream}: ${acks.length} acknowledgements unconfirmed, these jobs may be delivered again (${listIds(acks)})`);
    const releases = [...this.releasing].flat();
    if (releases.length > 0) lost.push(`${stream}: ${releases.length} releases (XNACK) unconfirmed, claimed after claimIdleMs instead (${listIds(releases)})`);
    if (closing && !this.consumerRemoved && this.o.consumerIdleMs > 0) {
      lost.push(`${stream}: consumer ${this.consumer} left in group ${this.o.group} (other workers remove it once idle and empty)`);
    }
    for (const u of this.unsubscribe) u();
    this.wakeReader();
    this.resumed?.();
    void this.blocking?.close({ force: true });
    this.end();
    return lost;
  }

  private async waitForHandlers(timeoutMs: number | undefined): Promise<void> {
    const all = (): Promise<unknown> => Promise.allSettled([...this.runs]);
    if (timeoutMs === undefined) {
      while (this.runs.size > 0) await all();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const finished = (async () => {
      while (this.runs.size > 0) await all();
      return 'done' as const;
    })();
    const outcome = await Promise.race([finished, expired]);
    clearTimeout(timer);
    if (outcome === 'done') return;
    // Give up: abort the handlers, never acknowledge what they return, hand their entries back.
    this.abandoned = true;
    const running = this.table.inState('running');
    const unstarted = this.table.inState('queued');
    for (const h of [...running, ...unstarted]) {
      h.abort?.abort(new WorkerClosedError());
      this.table.delete(h);
    }
    if (!this.features.xnack) return; // pending under our name: claimed after claimIdleMs
    await this.release(running.map((h) => h.entry.id), 'FAIL');
    // Never started: SILENT, that delivery does not count.
    await this.release(unstarted.map((h) => h.entry.id), 'SILENT');
  }

  /** XNACK: the entries go back to the group, claimable by any worker at once. */
  private async release(ids: string[], mode: 'SILENT' | 'FAIL'): Promise<void> {
    if (ids.length === 0) return;
    this.releasing.add(ids);
    try {
      await this.conn.call('XNACK', this.o.stream, this.o.group, mode, 'IDS', ids.length, ...ids);
    } catch (err) {
      this.emit('error', asError(err)); // still ours and pending: claimed after claimIdleMs
    } finally {
      this.releasing.delete(ids);
    }
  }
}

/** Ids for a message: the first ten, then how many more. */
function listIds(ids: string[]): string {
  return ids.length <= 10 ? ids.join(' ') : `${ids.slice(0, 10).join(' ')} and ${ids.length - 10} more`;
}


export type { StreamEntry };
