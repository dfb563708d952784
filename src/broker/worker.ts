// Worker: consumes one stream through a consumer group, at most `concurrency` handlers at once.
//
// Life of an entry:
//   XREADGROUP >  ─ handler ok ─▶ XACK (batched)
//                 └ handler throws ─▶ stays pending; after backoff(deliveries) this worker takes
//                   it again with XCLAIM min-idle=backoff (the server's idle clock, not ours, so
//                   a retry never runs early), which counts one more delivery
//   deliveries reach maxDeliveries (or the payload does not decode) ─▶ MULTI XADD dead-letter +
//                   XACK EXEC
//   the consumer dies ─▶ after claimIdleMs another worker's XAUTOCLAIM timer takes the entry
// Where the server has the Redis 8 stream features (stream-features.ts; sluice has them):
//   reads are XREADGROUP ... CLAIM claimIdleMs ">" (idle entries and new ones in one round
//   trip, no XAUTOCLAIM timer), and a failed entry, or one still waiting for its retry or
//   a handler slot at close(), is released with XNACK, so any worker takes it at once.
// A handler that runs long keeps its lease: XCLAIM ... JUSTID resets the idle time without
// counting a delivery. After a reconnect (and at start) the worker first re-reads its own PEL
// from id 0, so entries delivered to it before the link dropped are not left for a claim.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Arg, Connection, Value } from '../client/connection.js';
import { type Codec, decodeEntry, jsonCodec } from './codec.js';
import { deadLetterFields } from './dead-letters.js';
import { Metrics } from './metrics.js';
import { parseClaimReadReply, probeStreamFeatures, REDIS7_FEATURES, type StreamFeatures } from './stream-features.js';
import { defaultDeadLetterStream } from './partition.js';
import { errorMessage, parseEntries, parseReadReply, type StreamEntry } from './replies.js';

export interface Job<T = unknown> {
  id: string;
  stream: string;
  payload: T;
  /** 1 on the first delivery, counted by the server (XPENDING). */
  deliveries: number;
  fields: Record<string, string>;
  key: string | undefined;
}

export type Handler<T = unknown> = (job: Job<T>) => unknown | Promise<unknown>;

export interface WorkerOptions {
  stream: string;
  group: string;
  /** Consumer name; default hostname-pid-random, unique per process. */
  consumer?: string;
  /** Handlers running at once (default 10). */
  concurrency?: number;
  /** Pending entries idle this long belong to a dead consumer and are claimed (default 30s). */
  claimIdleMs?: number;
  /** How often XAUTOCLAIM runs (default claimIdleMs / 2). */
  claimIntervalMs?: number;
  /** Deliveries after which a failing entry is dead-lettered (default 5). */
  maxDeliveries?: number;
  /** Default `${stream}:dead`. */
  deadLetterStream?: string;
  /** Delay before retrying after failed delivery n (1-based); default 100ms·2^(n-1). Capped below claimIdleMs. */
  backoff?: (deliveries: number) => number;
  /** XREADGROUP BLOCK timeout (default 2000ms); bounds how long close() waits for a read. */
  blockMs?: number;
  /** Where a newly created group starts: '0' (all entries, default) or '$' (new ones only). */
  startId?: string;
  /** Remove other consumers of the group idle this long with nothing pending (0 = never, default). */
  consumerIdleMs?: number;
  codec?: Codec;
  /** Share one Metrics between workers, e.g. for one Prometheus endpoint. */
  metrics?: Metrics;
  /** Close gracefully on SIGTERM and SIGINT (default false). */
  handleSignals?: boolean;
  /**
   * 'auto' (default): use XREADGROUP ... CLAIM and XNACK when the server has them;
   * 'redis7': XAUTOCLAIM and idle timeouts only, whatever the server.
   */
  streamFeatures?: 'auto' | 'redis7';
}

export type WorkerEvent = 'error' | 'processed' | 'failed' | 'deadLettered' | 'claimed';

interface Task {
  entry: StreamEntry;
  deliveries: number;
  startedAt: number;
}

export function exponentialBackoff(baseMs = 100, maxMs = 30_000): (deliveries: number) => number {
  return (n) => Math.min(maxMs, baseMs * 2 ** Math.max(0, n - 1));
}

export class Worker<T = unknown> {
  readonly consumer: string;
  readonly metrics: Metrics;
  readonly deadLetterStream: string;
  private readonly o: Required<Omit<WorkerOptions, 'consumer' | 'metrics' | 'deadLetterStream'>>;
  private reader: Connection | null = null;
  private readerId: number | null = null;
  private state: 'idle' | 'running' | 'closing' | 'closed' = 'idle';
  private readonly inflight = new Map<string, Task>();
  /** Delivered to us but waiting for a free handler slot. */
  private readonly backlog: Task[] = [];
  private readonly retryTimers = new Map<string, { timer: NodeJS.Timeout; deliveries: number; delay: number }>();
  private readonly retryReady: Array<{ id: string; deliveries: number; delay: number }> = [];
  private readonly lastErrors = new Map<string, string>();
  private readonly tasks = new Set<Promise<void>>();
  /** Acks sent for handled messages and not yet answered. */
  private readonly acking = new Set<Promise<void>>();
  private slotWaiters: Array<() => void> = [];
  private ackQueue: string[] = [];
  private ackFlush: Promise<boolean> | null = null;
  private readPel = true;
  private pelCursor = '0';
  private claimCursor = '0-0';
  private timers: NodeJS.Timeout[] = [];
  private loop: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;
  private unsubscribeReconnect: Array<() => void> = [];
  private readonly listeners = new Map<WorkerEvent, Set<(...args: unknown[]) => void>>();
  private signalHandler: (() => void) | null = null;
  /** What the server supports, probed at start(). */
  features: StreamFeatures = REDIS7_FEATURES;

  constructor(
    private readonly conn: Connection,
    options: WorkerOptions,
    private readonly handler: Handler<T>,
  ) {
    const claimIdleMs = options.claimIdleMs ?? 30_000;
    this.o = {
      stream: options.stream,
      group: options.group,
      concurrency: options.concurrency ?? 10,
      claimIdleMs,
      claimIntervalMs: options.claimIntervalMs ?? Math.max(10, Math.floor(claimIdleMs / 2)),
      maxDeliveries: options.maxDeliveries ?? 5,
      backoff: options.backoff ?? exponentialBackoff(),
      blockMs: options.blockMs ?? 2000,
      startId: options.startId ?? '0',
      consumerIdleMs: options.consumerIdleMs ?? 0,
      codec: options.codec ?? jsonCodec,
      handleSignals: options.handleSignals ?? false,
      streamFeatures: options.streamFeatures ?? 'auto',
    };
    if (!(this.o.concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
    if (!(this.o.maxDeliveries >= 1)) throw new RangeError('maxDeliveries must be at least 1');
    this.consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.deadLetterStream = options.deadLetterStream ?? defaultDeadLetterStream(options.stream);
    this.metrics = options.metrics ?? new Metrics();
    this.metrics.watchLag(conn, options.stream);
  }

  on(event: WorkerEvent, listener: (...args: unknown[]) => void): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  private emit(event: WorkerEvent, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) {
      try {
        l(...args);
      } catch {
        // a listener's bug must not stop the worker
      }
    }
  }

  /** Number of handlers running right now. */
  get active(): number {
    return this.inflight.size;
  }

  /** Creates the group if missing and starts reading; resolves once reading has begun. */
  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    this.state = 'running';
    await this.ensureGroup();
    if (this.o.streamFeatures === 'auto') this.features = await probeStreamFeatures(this.conn);
    this.reader = await this.conn.duplicate();
    this.readerId = await this.reader.call('CLIENT', 'ID').then(Number, () => null);
    const resume = (): void => {
      // Entries delivered to us before the link dropped are in our PEL: read them from 0.
      this.readPel = true;
      this.pelCursor = '0';
      if (this.reader) void this.reader.call('CLIENT', 'ID').then((id) => (this.readerId = Number(id)), () => {});
    };
    this.unsubscribeReconnect.push(this.reader.onReconnect(resume), this.conn.onReconnect(resume));
    // With CLAIM every read claims idle entries: no separate XAUTOCLAIM round trips.
    if (!this.features.readClaim) this.every(this.o.claimIntervalMs, () => this.autoclaim());
    this.every(Math.max(10, Math.floor(this.o.claimIdleMs / 3)), () => this.renewLeases());
    if (this.o.consumerIdleMs > 0) this.every(Math.max(10, Math.floor(this.o.consumerIdleMs / 2)), () => this.removeIdleConsumers());
    if (this.o.handleSignals) {
      this.signalHandler = () => void this.close();
      process.once('SIGTERM', this.signalHandler);
      process.once('SIGINT', this.signalHandler);
    }
    this.loop = this.readLoop();
  }

  /** Starts (if needed) and resolves when the worker has been closed. */
  async run(): Promise<void> {
    await this.start();
    await this.loop;
    await this.stopped;
  }

  /** Graceful stop: no more reads, in-flight handlers finish and are acked. Idempotent. */
  close(): Promise<void> {
    if (this.stopped) return this.stopped;
    this.stopped = this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    if (this.state === 'idle') {
      this.state = 'closed';
      return;
    }
    this.state = 'closing';
    for (const t of this.timers) clearInterval(t);
    // Entries waiting for a retry were delivered and failed: XNACK FAIL hands them to the
    // other workers now (their count stays); without XNACK they wait for claimIdleMs.
    const waitingRetry = [...this.retryTimers.keys(), ...this.retryReady.map((r) => r.id)];
    for (const { timer } of this.retryTimers.values()) clearTimeout(timer);
    this.retryTimers.clear(); // they stay pending on the server; a claim or our next start retries them
    this.retryReady.length = 0;
    this.wakeSlotWaiters();
    // Interrupt the blocking read so that it returns nil (nothing delivered). An embedded session
    // is unblocked by closing it; a socket read by CLIENT UNBLOCK (closing the socket could lose
    // a reply already sent). Without CLIENT UNBLOCK the read ends at its BLOCK timeout.
    if (this.reader?.kind === 'embedded') await this.reader.close();
    else if (this.readerId !== null) await this.conn.call('CLIENT', 'UNBLOCK', this.readerId).catch(() => {});
    await this.loop;
    if (this.features.xnack) {
      // Delivered but never started: SILENT, that delivery does not count.
      const unstarted = this.backlog.splice(0).map((t) => t.entry.id);
      await this.release(unstarted, 'SILENT');
      await this.release(waitingRetry, 'FAIL');
    }
    while (this.tasks.size > 0 || this.backlog.length > 0) await Promise.allSettled([...this.tasks]);
    await this.flushAcks();
    await Promise.all([...this.acking]);
    for (const u of this.unsubscribeReconnect) u();
    await this.reader?.close();
    if (this.signalHandler) {
      process.off('SIGTERM', this.signalHandler);
      process.off('SIGINT', this.signalHandler);
    }
    this.state = 'closed';
  }

  // --- group and read loop -------------------------------------------------------------------

  private async ensureGroup(): Promise<void> {
    try {
      await this.conn.call('XGROUP', 'CREATE', this.o.stream, this.o.group, this.o.startId, 'MKSTREAM');
    } catch (err) {
      if (!errorMessage(err).startsWith('BUSYGROUP')) throw err;
    }
  }

  private freeSlots(): number {
    return this.o.concurrency - this.inflight.size - this.backlog.length;
  }

  private waitForSlot(): Promise<void> {
    if (this.freeSlots() > 0 || this.state !== 'running') return Promise.resolve();
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  private wakeSlotWaiters(): void {
    const waiters = this.slotWaiters;
    this.slotWaiters = [];
    for (const w of waiters) w();
  }

  private async readLoop(): Promise<void> {
    let failures = 0;
    while (this.state === 'running') {
      await this.waitForSlot();
      if (this.state !== 'running') break;
      await this.runDueRetries();
      const free = this.freeSlots();
      if (free <= 0) continue;
      const history = this.readPel;
      const claim = !history && this.features.readClaim;
      try {
        const argv: Arg[] = ['XREADGROUP', 'GROUP', this.o.group, this.consumer, 'COUNT', free];
        // A blocked CLAIM read is not woken when an entry becomes idle: bound the block by
        // the claim interval, as the XAUTOCLAIM timer would be.
        if (!history) argv.push('BLOCK', claim ? Math.min(this.o.blockMs, this.o.claimIntervalMs) : this.o.blockMs);
        if (claim) argv.push('CLAIM', this.o.claimIdleMs);
        argv.push('STREAMS', this.o.stream, history ? this.pelCursor : '>');
        const reply = await this.reader!.call(...argv);
        if (claim) {
          failures = 0;
          this.dispatchClaimRead(reply);
          continue;
        }
        const entries = parseReadReply(reply);
        failures = 0;
        if (history) {
          if (entries.length === 0) this.readPel = false;
          else this.pelCursor = entries[entries.length - 1]!.id;
          const fresh = entries.filter((e) => !this.inflight.has(e.id) && !this.retryTimers.has(e.id));
          await this.dispatchWithCounts(fresh);
        } else {
          for (const e of entries) this.dispatch(e, 1);
        }
      } catch (err) {
        if (this.state !== 'running') break;
        const msg = errorMessage(err);
        if (msg.startsWith('NOGROUP')) {
          await this.ensureGroup().catch(() => {}); // the stream or group was deleted: recreate
        } else {
          this.emit('error', err);
        }
        failures++;
        await sleep(Math.min(2000, 20 * 2 ** Math.min(failures, 7)));
      }
    }
  }

  // --- dispatch --------------------------------------------------------------------------------

  /** An XREADGROUP ... CLAIM reply: claimed entries carry their count, new ones are first deliveries. */
  private dispatchClaimRead(reply: Value): void {
    const claimed: string[] = [];
    for (const { entry, previousDeliveries } of parseClaimReadReply(reply)) {
      if (previousDeliveries === undefined) {
        this.dispatch(entry, 1);
        continue;
      }
      const waiting = this.retryTimers.get(entry.id);
      if (waiting) {
        clearTimeout(waiting.timer);
        this.retryTimers.delete(entry.id);
      }
      claimed.push(entry.id);
      this.dispatch(entry, previousDeliveries + 1);
    }
    if (claimed.length > 0) {
      this.metrics.inc('claimed', claimed.length);
      this.emit('claimed', claimed);
    }
  }

  /** XNACK: the entries go back to the group, claimable by any worker at once. */
  private async release(ids: string[], mode: 'SILENT' | 'FAIL'): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.conn.call('XNACK', this.o.stream, this.o.group, mode, 'IDS', ids.length, ...ids);
    } catch (err) {
      this.emit('error', err); // still ours and pending: claimed after claimIdleMs as before
    }
  }

  /** Dispatches entries whose delivery counts must be read from the PEL (history, claims). */
  private async dispatchWithCounts(entries: StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const counts = await this.deliveryCounts(entries);
    for (const e of entries) this.dispatch(e, counts.get(e.id) ?? 1);
  }

  private async deliveryCounts(entries: StreamEntry[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const first = entries[0]!.id;
    const last = entries[entries.length - 1]!.id;
    // Our own PEL between the first and last id: small, since we only hold `concurrency` entries.
    const rows = (await this.conn.call('XPENDING', this.o.stream, this.o.group, first, last, entries.length + this.o.concurrency + 100, this.consumer)) as Value[][];
    for (const row of rows) counts.set(String(row[0]), Number(row[3]));
    return counts;
  }

  /** Runs the entry's handler now, or queues it locally if `concurrency` handlers are running. */
  private dispatch(entry: StreamEntry, deliveries: number): void {
    if (this.inflight.has(entry.id) || this.backlog.some((t) => t.entry.id === entry.id)) return;
    const task: Task = { entry, deliveries, startedAt: Date.now() };
    if (this.inflight.size >= this.o.concurrency) {
      // Can happen when a retry or claim lands while a read was in flight; keeps the limit strict.
      this.backlog.push(task);
      return;
    }
    this.begin(task);
  }

  private begin(task: Task): void {
    task.startedAt = Date.now();
    this.inflight.set(task.entry.id, task);
    const p = this.execute(task).finally(() => {
      this.inflight.delete(task.entry.id);
      this.tasks.delete(p);
      const next = this.backlog.shift();
      if (next !== undefined) this.begin(next);
      else this.wakeSlotWaiters();
    });
    this.tasks.add(p);
  }

  private async execute(task: Task): Promise<void> {
    const { entry, deliveries } = task;
    if (entry.fields === null) {
      // Deleted while pending: nothing to run; acknowledge so it leaves the PEL.
      await this.ack(entry.id);
      return;
    }
    if (deliveries > this.o.maxDeliveries) {
      // A consumer died (or kept dying) holding it: it has had its chances.
      await this.deadLetter(entry, deliveries, this.lastErrors.get(entry.id) ?? `delivered ${deliveries} times without success`);
      return;
    }
    let payload: unknown;
    try {
      payload = decodeEntry(this.o.codec, entry.fields);
    } catch (err) {
      await this.deadLetter(entry, deliveries, errorMessage(err));
      return;
    }
    const started = performance.now();
    try {
      await this.handler({
        id: entry.id,
        stream: this.o.stream,
        payload: payload as T,
        deliveries,
        fields: entry.fields,
        key: entry.fields['key'],
      });
    } catch (err) {
      this.metrics.observe(performance.now() - started);
      this.metrics.inc('failed');
      const message = errorMessage(err);
      this.lastErrors.set(entry.id, message);
      this.emit('failed', entry.id, err, deliveries);
      if (deliveries >= this.o.maxDeliveries) await this.deadLetter(entry, deliveries, message);
      else this.scheduleRetry(entry.id, deliveries);
      return;
    }
    this.metrics.observe(performance.now() - started);
    this.lastErrors.delete(entry.id);
    // The slot is freed now, so the next read does not wait for the XACK round trip;
    // `processed` counts the message once the ack is answered, and close() awaits it.
    const acked = this.ack(entry.id).then((ok) => {
      this.acking.delete(acked);
      if (!ok) return;
      this.metrics.inc('processed');
      this.emit('processed', entry.id);
    });
    this.acking.add(acked);
  }

  // --- acknowledgement (batched: one XACK per event-loop turn) --------------------------------

  /** Queues an XACK; resolves once the batch it went out in was answered (true if it succeeded). */
  private ack(id: string): Promise<boolean> {
    this.ackQueue.push(id);
    if (this.ackFlush === null) this.ackFlush = new Promise((r) => setImmediate(r)).then(() => this.sendAcks());
    return this.ackFlush;
  }

  private async sendAcks(): Promise<boolean> {
    const ids = this.ackQueue;
    this.ackQueue = [];
    this.ackFlush = null;
    if (ids.length === 0) return true;
    try {
      await this.conn.call('XACK', this.o.stream, this.o.group, ...ids);
      return true;
    } catch (err) {
      // Still pending on the server: our PEL re-read or a claim will deliver them again.
      this.emit('error', err);
      return false;
    }
  }

  private async flushAcks(): Promise<void> {
    while (this.ackFlush !== null || this.ackQueue.length > 0) {
      if (this.ackFlush !== null) await this.ackFlush;
      else await this.sendAcks();
    }
  }

  // --- retries ---------------------------------------------------------------------------------

  private scheduleRetry(id: string, deliveries: number): void {
    if (this.state !== 'running') return; // stays pending; retried after restart or by a claim
    if (this.features.xnack) {
      // Released at once (FAIL keeps the count): whichever worker reads next retries it.
      this.metrics.inc('retried');
      void this.release([id], 'FAIL');
      return;
    }
    // Keep below claimIdleMs, or another worker's XAUTOCLAIM would take it first.
    const delay = Math.max(0, Math.min(this.o.backoff(deliveries), Math.floor(this.o.claimIdleMs * 0.8)));
    const timer = setTimeout(() => {
      this.retryTimers.delete(id);
      this.retryReady.push({ id, deliveries, delay });
      this.wakeSlotWaiters();
      this.kickRetries();
    }, delay);
    this.retryTimers.set(id, { timer, deliveries, delay });
  }

  /** Retries become due while the read loop may be blocked in XREADGROUP: run them directly. */
  private kickRetries(): void {
    void this.runDueRetries().catch((err) => this.emit('error', err));
  }

  private retrying = false;

  private async runDueRetries(): Promise<void> {
    if (this.retrying) return;
    this.retrying = true;
    try {
      while (this.retryReady.length > 0 && this.freeSlots() > 0 && this.state === 'running') {
        const batch = this.retryReady.splice(0, this.freeSlots());
        for (const r of batch) await this.retryOne(r.id, r.deliveries, r.delay);
      }
    } finally {
      this.retrying = false;
    }
  }

  private async retryOne(id: string, deliveries: number, delay: number): Promise<void> {
    // min-idle = delay: the server confirms the backoff has elapsed and that nobody took it.
    const claimed = parseEntries(await this.conn.call('XCLAIM', this.o.stream, this.o.group, this.consumer, delay, id));
    const entry = claimed[0];
    if (entry !== undefined) {
      this.metrics.inc('retried');
      this.dispatch(entry, deliveries + 1);
      return;
    }
    const rows = (await this.conn.call('XPENDING', this.o.stream, this.o.group, id, id, 1)) as Value[][];
    const row = rows[0];
    if (row && String(row[1]) === this.consumer) {
      // Still ours but not idle long enough by the server's clock: try again a little later.
      const timer = setTimeout(() => {
        this.retryTimers.delete(id);
        this.retryReady.push({ id, deliveries, delay });
        this.kickRetries();
      }, Math.max(5, delay - Number(row[2])));
      this.retryTimers.set(id, { timer, deliveries, delay });
    } else {
      this.lastErrors.delete(id); // acked, deleted, or claimed by another consumer
    }
  }

  // --- claims and leases -------------------------------------------------------------------------

  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy || this.state !== 'running') return;
      busy = true;
      fn()
        .catch((err) => this.emit('error', err))
        .finally(() => (busy = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /** Takes entries idle longer than claimIdleMs from any consumer (dead ones, in practice). */
  private async autoclaim(): Promise<void> {
    for (let round = 0; round < 10 && this.freeSlots() > 0 && this.state === 'running'; round++) {
      const reply = (await this.conn.call('XAUTOCLAIM', this.o.stream, this.o.group, this.consumer, this.o.claimIdleMs, this.claimCursor, 'COUNT', this.freeSlots())) as Value[];
      this.claimCursor = String(reply[0]);
        const entries = parseEntries(reply[1]!).filter((e) => !this.inflight.has(e.id));
      for (const e of entries) {
        const waiting = this.retryTimers.get(e.id);
        if (waiting) {
          clearTimeout(waiting.timer);
          this.retryTimers.delete(e.id);
        }
      }
      if (entries.length > 0) {
        this.metrics.inc('claimed', entries.length);
        this.emit('claimed', entries.map((e) => e.id));
        await this.dispatchWithCounts(entries);
      }
      if (this.claimCursor === '0-0') break;
    }
  }

  /** Resets the idle time of entries whose handlers run long, so nobody claims them. */
  private async renewLeases(): Promise<void> {
    const threshold = Date.now() - Math.floor(this.o.claimIdleMs / 3);
    const ids = [...this.inflight.values(), ...this.backlog].filter((t) => t.startedAt <= threshold).map((t) => t.entry.id);
    if (ids.length === 0) return;
    await this.conn.call('XCLAIM', this.o.stream, this.o.group, this.consumer, 0, ...ids, 'JUSTID');
  }

  /** XGROUP DELCONSUMER for other consumers idle past consumerIdleMs that hold nothing. */
  private async removeIdleConsumers(): Promise<void> {
    const rows = (await this.conn.call('XINFO', 'CONSUMERS', this.o.stream, this.o.group)) as Value[][];
    for (const row of rows) {
      const info: Record<string, Value> = {};
      for (let i = 0; i + 1 < row.length; i += 2) info[String(row[i])] = row[i + 1]!;
      const name = String(info['name']);
      if (name === this.consumer) continue;
      // `idle` counts from the last attempted read, so a live consumer blocking in XREADGROUP
      // keeps it low (7.2's `inactive` counts from the last successful one: not what we want).
      const idle = Number(info['idle']);
      if (Number(info['pending']) === 0 && idle >= this.o.consumerIdleMs) {
        // DELCONSUMER drops the consumer's PEL: re-check it is still empty just before (the
        // window left is one round trip, against a consumer idle for consumerIdleMs).
        const held = (await this.conn.call('XPENDING', this.o.stream, this.o.group, '-', '+', 1, name)) as Value[];
        if (held.length === 0) await this.conn.call('XGROUP', 'DELCONSUMER', this.o.stream, this.o.group, name);
      }
    }
  }

  // --- dead letters ------------------------------------------------------------------------------

  private async deadLetter(entry: StreamEntry, deliveries: number, error: string): Promise<void> {
    const fields = deadLetterFields({ entry, stream: this.o.stream, group: this.o.group, consumer: this.consumer, deliveries, error });
    try {
      await this.conn.multi([
        ['XADD', this.deadLetterStream, '*', ...fields],
        ['XACK', this.o.stream, this.o.group, entry.id],
      ]);
    } catch (err) {
      this.emit('error', err); // still pending: it will come back and be dead-lettered then
      return;
    }
    this.lastErrors.delete(entry.id);
    this.metrics.inc('deadLettered');
    this.emit('deadLettered', entry.id, error);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
