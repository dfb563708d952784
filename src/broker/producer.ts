// Producer: appends encoded payloads to a stream (or, with `partitions`, to the partition
// stream of the entry's key), trimming on write so the stream stays bounded.
//   - maxLen: `MAXLEN ~ n`; minIdAgeMs: `MINID ~ id` from this process's clock minus the age.
//   - trimAckedOnly: never trims an entry some consumer group still needs (pending, or not yet
//     delivered): XADD ... ACKED where the server has Redis 8.2's deletion policies (sluice
//     does), otherwise a periodic XTRIM MINID at the slowest group's position (safe-trim.ts).
//   - producerId: idempotent production (Redis 8.6 XADD IDMP / IDMPAUTO; sluice has it): a
//     resend after a lost reply gets the first id back instead of adding a duplicate.
//   - delayMs / at: delayed delivery; the entry waits in the stream's `:delayed` sorted set
//     until a DelayedMover (delayed.ts; every Worker runs one) moves it in at its due time.
//   - waitReplicas: add() resolves once that many replicas have the entry (WAIT).
//   - tracing: with @opentelemetry/api installed, each add() runs in a PRODUCER span whose
//     context the entry carries as `traceparent` (see tracing.ts); addMany() has one span.
import type { Arg, Connection } from '../client/connection.js';
import { type Codec, encodeEntry, jsonCodec } from './codec.js';
import { partitionOf, partitionStreams } from './partition.js';
import type { Clock } from './clock.js';
import { SafeTrimmer } from './safe-trim.js';
import { type Every, listSchedules, removeSchedule, type ScheduleInfo, upsertSchedule } from './schedules.js';
import type { Logger } from '../logger.js';
import { loadTracing, ProducerTrace } from './tracing.js';
import { probeStreamFeatures, type StreamFeatures } from './stream-features.js';
import { delayedKey, encodeDelayedMember, newJobId, serverTimeMs } from './delayed.js';

export interface ProducerOptions {
  stream: string;
  /** Spread entries over this many partition streams by key (see partition.ts for the names). */
  partitions?: number;
  /** Approximate cap on entries per stream (`MAXLEN ~`). */
  maxLen?: number;
  /** Approximate age limit: entries older than this are trimmed on write (`MINID ~`). */
  minIdAgeMs?: number;
  /** Trim only entries every consumer group has acknowledged (see the top of this file). */
  trimAckedOnly?: boolean;
  codec?: Codec;
  /**
   * Idempotent production: a stable id of this producer (keep it across restarts). Each add
   * sends XADD IDMP producerId idempotencyKey, or IDMPAUTO producerId (the server hashes the
   * content) without one. The first add rejects when the server has no IDMP.
   */
  producerId?: string;
  /**
   * Wait until this many replicas have each write (WAIT, pipelined on the stream's master)
   * before add() resolves; add() rejects with ReplicationError if fewer confirmed within
   * waitTimeoutMs (default 1000). Redis replication is asynchronous: without this, an
   * acknowledged entry can be lost when its master dies first.
   */
  waitReplicas?: number;
  waitTimeoutMs?: number;
  /** Where notices go (a background trim that failed); silent by default. */
  logger?: Logger;
  /** Paces the trimAckedOnly trim on servers without ACKED (at most once a second by it). */
  clock?: Clock;
}

export interface AddOptions {
  /** Partition / ordering key: entries with the same key go to the same stream, in order. */
  key?: string;
  /** With `producerId`: this message's idempotent id (e.g. an order id); default: its content. */
  idempotencyKey?: string;
  /** Delayed delivery: the entry reaches the stream this many ms from now (server clock). */
  delayMs?: number;
  /** Delayed delivery: the entry reaches the stream at this time (unix ms or Date, server clock). */
  at?: Date | number;
}

/** add() with waitReplicas: the entry was written (as `id`) but too few replicas confirmed it. */
export class ReplicationError extends Error {
  constructor(
    readonly id: string,
    readonly replicas: number,
    readonly wanted: number,
  ) {
    super(`entry ${id} reached ${replicas} of ${wanted} replicas; it may be lost on failover`);
    this.name = 'ReplicationError';
  }
}

export class Producer {
  readonly streams: string[];
  private readonly codec: Codec;
  private roundRobin = 0;
  private features: Promise<StreamFeatures> | null = null;
  private trimmer: SafeTrimmer | null = null;
  /** Server clock minus this process's clock (TIME at prepare): delayMs counts on the server's. */
  private clockOffsetMs = 0;

  constructor(
    private readonly conn: Connection,
    private readonly options: ProducerOptions,
  ) {
    if (options.maxLen !== undefined && options.minIdAgeMs !== undefined) {
      throw new RangeError('maxLen and minIdAgeMs are exclusive: XADD trims by one criterion');
    }
    if (options.trimAckedOnly && options.maxLen === undefined && options.minIdAgeMs === undefined) {
      throw new RangeError('trimAckedOnly needs maxLen or minIdAgeMs');
    }
    this.codec = options.codec ?? jsonCodec;
    this.streams = options.partitions === undefined ? [options.stream] : partitionStreams(options.stream, options.partitions);
  }

  /** The stream an entry with this key goes to (keyless entries are spread round-robin). */
  streamFor(key?: string): string {
    if (this.streams.length === 1) return this.streams[0]!;
    if (key === undefined) return this.streams[this.roundRobin++ % this.streams.length]!;
    return this.streams[partitionOf(key, this.streams.length)]!;
  }

  /** Appends one entry; resolves to its id (once `waitReplicas` replicas have it, if set). */
  async add(payload: unknown, options: AddOptions = {}): Promise<string> {
    const features = await this.prepare();
    const stream = this.streamFor(options.key);
    const trace = ProducerTrace.start(stream, 1);
    let id: string;
    try {
      const xadd = this.command(features, stream, payload, options, trace);
      const need = this.options.waitReplicas ?? 0;
      if (need === 0) id = String(await this.conn.call(...xadd.argv));
      else [id] = await this.addAndWait([xadd.argv], need);
      if (xadd.jobId !== undefined) id = xadd.jobId;
    } catch (err) {
      trace?.end(null, err);
      throw err;
    }
    trace?.end([id]);
    this.trimmer?.afterAdd(stream);
    return id;
  }

  /**
   * Appends many entries, pipelined; resolves to their ids in input order. Items are payloads,
   * or `{ payload, key?, idempotencyKey? }` with `{ keyed: true }`. Rejects on the first error.
   */
  async addMany(items: Array<{ payload: unknown } & AddOptions> | unknown[], options: { keyed?: boolean } = {}): Promise<string[]> {
    const features = await this.prepare();
    const trace = ProducerTrace.start(this.options.stream, items.length);
    let commands: Arg[][];
    let ids: string[];
    try {
      const built = items.map((item) => {
        if (!options.keyed) return this.command(features, this.streamFor(), item, {}, trace);
        const { payload, ...add } = item as { payload: unknown } & AddOptions;
        return this.command(features, this.streamFor(add.key), payload, add, trace);
      });
      commands = built.map((b) => b.argv);
      const need = this.options.waitReplicas ?? 0;
      ids = need > 0 ? await this.addAndWait(commands, need) : (await this.conn.pipeline(commands)).map(unwrap);
      ids = ids.map((id, i) => built[i]!.jobId ?? id);
    } catch (err) {
      trace?.end(null, err);
      throw err;
    }
    trace?.end(ids);
    for (const stream of new Set(commands.filter((c) => c[0] === 'XADD').map((c) => String(c[1])))) this.trimmer?.afterAdd(stream);
    return ids;
  }

  /**
   * The XADD of an entry, or, with delayMs / at, the ZADD of a delayed job into the stream's
   * `:delayed` set (delayed.ts), whose id add() then resolves to instead of a stream id.
   */
  private command(features: StreamFeatures, stream: string, payload: unknown, options: AddOptions, trace: ProducerTrace | null): { argv: Arg[]; jobId?: string } {
    const due = this.dueTime(options);
    if (due === undefined) return { argv: this.xadd(features, stream, payload, options.key, options.idempotencyKey, trace) };
    const jobId = options.idempotencyKey ?? newJobId();
    const fields = [...encodeEntry(this.codec, payload, options.key), ...(trace?.entryFields() ?? [])];
    return { argv: ['ZADD', delayedKey(stream), due, encodeDelayedMember(jobId, fields)], jobId };
  }

  /** The due time in server-clock ms, or undefined for an immediate add. */
  private dueTime(options: AddOptions): number | undefined {
    if (options.delayMs !== undefined && options.at !== undefined) throw new RangeError('delayMs and at are exclusive');
    if (options.at !== undefined) {
      const at = options.at instanceof Date ? options.at.getTime() : options.at;
      if (!Number.isFinite(at)) throw new RangeError('at: not a valid time');
      return Math.floor(at);
    }
    if (options.delayMs === undefined) return undefined;
    if (!Number.isFinite(options.delayMs) || options.delayMs < 0) throw new RangeError('delayMs must be a finite number >= 0');
    return Math.floor(Date.now() + this.clockOffsetMs + options.delayMs);
  }

  /**
   * Creates or replaces a repeating job: an entry with `payload` every `everyMs`, or on a cron
   * expression (`{ cron: '0 0 9 * * 1-5', tz: 'Europe/Paris' }`), added by the Scheduler that
   * every Worker of the stream runs; exactly one entry per tick across processes (schedules.ts).
   * With partitions, the schedule lives on the partition of its id.
   */
  schedule(id: string, every: Every, payload: unknown): Promise<ScheduleInfo> {
    return upsertSchedule(this.conn, this.streamFor(id), id, every, payload, this.codec);
  }

  /** Removes a schedule; false when there was none. */
  unschedule(id: string): Promise<boolean> {
    return removeSchedule(this.conn, this.streamFor(id), id);
  }

  /** The schedules of this producer's stream(s), soonest first. */
  async schedules(): Promise<ScheduleInfo[]> {
    const all = await Promise.all(this.streams.map((s) => listSchedules(this.conn, s)));
    return all.flat().sort((a, b) => a.next - b.next);
  }

  /** Probes the server once: idempotence and deletion policies decide the XADD form. */
  private prepare(): Promise<StreamFeatures> {
    this.features ??= Promise.all([probeStreamFeatures(this.conn), loadTracing(), this.measureClock()]).then(([f]) => {
      if (this.options.producerId !== undefined && !f.idmp) {
        throw new Error('producerId: this server has no idempotent production (XADD IDMP needs Redis 8.6+ or sluice)');
      }
      if (this.options.trimAckedOnly && !f.deletionPolicies) {
        this.trimmer = new SafeTrimmer(this.conn, { maxLen: this.options.maxLen, minIdAgeMs: this.options.minIdAgeMs, clock: this.options.clock }, this.options.logger);
      }
      return f;
    });
    return this.features;
  }

  /** Server clock minus local clock, from one TIME (the midpoint of the round trip). */
  private async measureClock(): Promise<void> {
    const sent = Date.now();
    const server = await serverTimeMs(this.conn);
    this.clockOffsetMs = server - Math.round((sent + Date.now()) / 2);
  }

  /** XADDs grouped by stream, each group pipelined with a WAIT on that stream's master. */
  private async addAndWait(commands: Arg[][], need: number): Promise<string[]> {
    const byStream = new Map<string, number[]>();
    commands.forEach((c, i) => {
      const list = byStream.get(String(c[1])) ?? [];
      list.push(i);
      byStream.set(String(c[1]), list);
    });
    const ids: string[] = new Array(commands.length);
    await Promise.all(
      [...byStream.values()].map(async (indexes) => {
        const replies = await this.conn.pipeline([...indexes.map((i) => commands[i]!), ['WAIT', need, this.options.waitTimeoutMs ?? 1000]]);
        const acked = unwrap(replies.pop()!);
        replies.forEach((r, j) => (ids[indexes[j]!] = unwrap(r)));
        if (Number(acked) < need) throw new ReplicationError(ids[indexes[indexes.length - 1]!]!, Number(acked), need);
      }),
    );
    return ids;
  }

  private xadd(
    features: StreamFeatures,
    stream: string,
    payload: unknown,
    key: string | undefined,
    idempotencyKey: string | undefined,
    trace: ProducerTrace | null,
  ): Arg[] {
    const argv: Arg[] = ['XADD', stream];
    const pid = this.options.producerId;
    if (pid !== undefined) argv.push(...(idempotencyKey === undefined ? ['IDMPAUTO', pid] : ['IDMP', pid, idempotencyKey]));
    // With trimAckedOnly on a Redis 7 server the SafeTrimmer trims instead.
    const trimOnWrite = !this.options.trimAckedOnly || features.deletionPolicies;
    if (trimOnWrite && this.options.maxLen !== undefined) argv.push('MAXLEN', '~', this.options.maxLen);
    if (trimOnWrite && this.options.minIdAgeMs !== undefined) argv.push('MINID', '~', Math.max(0, Date.now() - this.options.minIdAgeMs));
    if (trimOnWrite && this.options.trimAckedOnly) argv.push('ACKED');
    argv.push('*', ...encodeEntry(this.codec, payload, key));
    // IDMPAUTO hashes the fields: a resend (in a new span) must hash as the first send did.
    const autoIdempotent = pid !== undefined && idempotencyKey === undefined;
    if (trace !== null && !autoIdempotent) argv.push(...trace.entryFields());
    return argv;
  }
}

function unwrap(reply: unknown): string {
  if (reply instanceof Error) throw reply;
  return String(reply);
}
