// Producer: appends encoded payloads to a stream (or, with `partitions`, to the partition
// stream of the entry's key), trimming on write so the stream stays bounded.
//   - maxLen: `MAXLEN ~ n`; minIdAgeMs: `MINID ~ id` from this process's clock minus the age.
//   - trimAckedOnly: never trims an entry some consumer group still needs (pending, or not yet
//     delivered): XADD ... ACKED where the server has Redis 8.2's deletion policies (sluice
//     does), otherwise a periodic XTRIM MINID at the slowest group's position (safe-trim.ts).
//   - idempotent (default): every XADD carries a producer id and an idempotent id, so an add
//     resent after a lost reply (ioredis resends unanswered commands after reconnecting) gets
//     the first id back instead of adding a duplicate: XADD IDMP where the server has it, a
//     script elsewhere (idempotence.ts). `producerId` (stable across restarts) and
//     `idempotencyKey` (per add) extend it to resends of your own.
//   - delayMs / at: delayed delivery; the entry waits in the stream's `:delayed` sorted set
//     until a DelayedMover (delayed.ts; every Worker runs one) moves it in at its due time.
//   - waitReplicas: add() resolves once that many replicas have the entry (WAIT).
//   - jobs (default on): every add is a job with an id of its own (`jobId`, or a random one)
//     from add to the end, delayed or not: the entry carries it as `job-id`, and a record
//     beside the stream (jobs/record.ts) holds its data, options and, as workers go, its state,
//     result and progress; an event goes to the queue's events stream (jobs/events.ts). The
//     entry, the record and the event are written in one MULTI per stream. `jobs: false`:
//     plain entries, add() resolves to the entry's id.
//   - tracing: with @opentelemetry/api installed, each add() runs in a PRODUCER span whose
//     context the entry carries as `traceparent` (see tracing.ts); addMany() has one span.
import type { Arg, Connection, Value } from '../client/connection.js';
import { createHash, randomBytes } from 'node:crypto';
import { type Codec, encodeEntry, Fields, jsonCodec } from './codec.js';
import { IDEMPOTENCE_WINDOW, type IdempotenceMode, SCRIPT_IDEMPOTENCE_WINDOW, idempotentXadd, InFlightWindow, probeIdempotence, withScriptText } from './idempotence.js';
import { errorMessage, isNoScript } from './replies.js';
import { partitionOf, partitionStreams } from './partition.js';
import type { Clock } from './clock.js';
import { SafeTrimmer } from './safe-trim.js';
import { type Every, listSchedules, removeSchedule, type ScheduleInfo, upsertSchedule } from './schedules.js';
import type { Logger } from '../logger.js';
import { loadTracing, ProducerTrace } from './tracing.js';
import { probeStreamFeatures, type StreamFeatures } from './stream-features.js';
import { delayedKey, encodeDelayedMember, newJobId, serverTimeMs } from './delayed.js';
import { jobKeys } from './jobs/keys.js';
import { linkEntries } from './jobs/entry-link.js';
import { RecordField } from './jobs/record.js';
import { eventCommand, type EventsOption, eventsMaxLen } from './jobs/events.js';
import { encodeJobOptions, type PerJobOptions } from './jobs/job-options.js';
import { IDEMPOTENT_XADD_SCRIPT } from './idempotence.js';
import { ADD_BATCH_SCRIPT, batchScriptedAdds } from './scripted-batch.js';
import { scriptedMulti } from './scripted-multi.js';
import { isScriptedJobAdd, JOB_ADD_SCRIPT, scriptedJobAdd, withJobAddText } from './jobs/add-script.js';
import { sendUnique, type UniqueAdd } from './jobs/unique-adds.js';
import { WatchLink } from './jobs/watch-link.js';
import { PRIORITY_FIELD, PriorityOrder, prioritizedAdd, prioritizedKey, priorityOf, WAKE_FIELD, wakeIfFirst } from './jobs/priority.js';
import { FAIR_KEY_FIELD, FAIR_WAKE, fairAdd, fairKeyOf, groupFairAdds } from './fairness/lanes.js';

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
   * Adds that a resend cannot duplicate (default true): each add carries this producer's id and
   * an id of its own, which the server remembers (XADD IDMP on Redis 8.6+ and sluice, a script
   * on Redis 7 and Valkey; docs/delivery.md). At most 100 adds of a producer are unanswered at
   * once, as the server remembers the last 100 (1,000 with the script). `false`: plain XADD.
   */
  idempotent?: boolean;
  /**
   * A stable id of this producer (keep it across restarts; one process at a time), instead of a
   * random one per Producer. Adds without an `idempotencyKey` are then identified by their
   * content (XADD IDMPAUTO): the same payload added again within the server's window is not
   * added twice. The first add rejects on a server that can deduplicate in no way.
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
  /**
   * Jobs with ids and records (default true): add() resolves to the job's id, which Queue.getJob
   * looks up. `false`: plain entries (no record, no events), add() resolves to the entry id.
   */
  jobs?: boolean;
  /** The queue's events stream (jobs/events.ts): on, capped at 10,000, by default. */
  events?: EventsOption;
}

export interface AddOptions extends PerJobOptions {
  /** Partition / ordering key: entries with the same key go to the same stream, in order. */
  key?: string;
  /**
   * The job's id (default: `idempotencyKey` if given, else a random one). While a job with this
   * id exists (its record: until retention or a remove deletes it), another add with it adds
   * nothing and resolves to the id: on every server, across producers (jobs/unique-adds.ts).
   */
  jobId?: string;
  /**
   * This message's idempotent id (e.g. an order id). For jobs it is the job id (as `jobId`):
   * a second add with it adds nothing. With `jobs: false`, within the server's window (the last
   * 100 keys of the producer, for 100 s by default), adds nothing and returns the first entry
   * id; scoped to `producerId`, or to this Producer without one.
   */
  idempotencyKey?: string;
  /** Delayed delivery: the entry reaches the stream this many ms from now (server clock). */
  delayMs?: number;
  /** Delayed delivery: the entry reaches the stream at this time (unix ms or Date, server clock). */
  at?: Date | number;
  /**
   * Priority, as BullMQ's: 1 is the highest, up to 2^21; 0 or absent is none (plain FIFO, taken
   * before prioritized jobs). Waits in the stream's prioritized set until a worker has room
   * (jobs/priority.ts); with delayMs / at, from its due time on. Needs jobs on (RangeError).
   */
  priority?: number;
  /**
   * The job's fair key (a tenant, a user): it waits in that key's lane until a worker serves the
   * key, keys in turn, each within the workers' `fairness` limits (docs/fairness.md). Needs
   * jobs on; not with delayMs / at or priority (RangeError).
   */
  fairKey?: string;
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

export class Producer<T = unknown> {
  readonly streams: string[];
  private readonly codec: Codec;
  private roundRobin = 0;
  private features: Promise<StreamFeatures> | null = null;
  private trimmer: SafeTrimmer | null = null;
  /** Server clock minus this process's clock (TIME at prepare): delayMs counts on the server's. */
  private clockOffsetMs = 0;
  private idempotence: IdempotenceMode = 'none';
  /** The producer id of adds without a key when no producerId is given: random per Producer. */
  private readonly ownPid = `sluice-${randomBytes(9).toString('base64url')}`;
  /** The idempotent id of the next add without a key (with ownPid). */
  private sequence = 0;
  /** Bounds the unanswered idempotent adds by what the server remembers. */
  private inFlight = new InFlightWindow(IDEMPOTENCE_WINDOW);
  private readonly jobs: boolean;
  private readonly eventsMaxLen: number | null;
  /** The link of adds with a given id or a deduplication id (unique-adds.ts), made on first use. */
  private readonly watch: WatchLink;
  private readonly priorityOrder = new PriorityOrder();

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
    if (options.idempotent === false && options.producerId !== undefined) throw new RangeError('producerId needs idempotent adds (idempotent: false was given)');
    this.codec = options.codec ?? jsonCodec;
    this.jobs = options.jobs ?? true;
    this.eventsMaxLen = this.jobs ? eventsMaxLen(options.events) : null;
    this.streams = options.partitions === undefined ? [options.stream] : partitionStreams(options.stream, options.partitions);
    this.watch = new WatchLink(conn);
  }

  /**
   * Closes the connection of its own that adds with a `jobId`, `idempotencyKey` or
   * `deduplication` use (it also closes itself after a second unused). The Producer can still add.
   */
  close(): Promise<void> {
    return this.watch.close();
  }

  /** The stream an entry with this key goes to (keyless entries are spread round-robin). */
  streamFor(key?: string): string {
    if (this.streams.length === 1) return this.streams[0]!;
    if (key === undefined) return this.streams[this.roundRobin++ % this.streams.length]!;
    return this.streams[partitionOf(key, this.streams.length)]!;
  }

  /**
   * Adds one job; resolves to its id (the entry's id with `jobs: false`), once `waitReplicas`
   * replicas have it, if set.
   */
  async add(payload: T, options: AddOptions = {}): Promise<string> {
    const features = await this.prepare();
    const stream = this.streamFor(options.key);
    const trace = ProducerTrace.start(stream, 1);
    let id: string;
    try {
      const xadd = this.command(features, stream, payload, options, trace);
      [id] = await this.send([xadd]);
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
  async addMany(items: Array<{ payload: T } & AddOptions> | T[], options: { keyed?: boolean } = {}): Promise<string[]> {
    const features = await this.prepare();
    const trace = ProducerTrace.start(this.options.stream, items.length);
    let built: Built[];
    let ids: string[];
    try {
      built = items.map((item) => {
        if (!options.keyed) return this.command(features, this.streamFor(), item as T, {}, trace);
        const { payload, ...add } = item as { payload: T } & AddOptions;
        return this.command(features, this.streamFor(add.key), payload, add, trace);
      });
      ids = await this.send(built);
    } catch (err) {
      trace?.end(null, err);
      throw err;
    }
    trace?.end(ids);
    for (const stream of new Set(built.filter((b) => !b.delayed).map((b) => b.stream))) this.trimmer?.afterAdd(stream);
    return ids;
  }

  /**
   * Sends adds, pipelined, in slices of at most IDEMPOTENCE_WINDOW idempotent ones, each slice
   * sent once the in-flight window has room for it and without waiting for the slices before it
   * to be answered (so the server runs one while the next is encoded); the wire keeps their
   * order. Resolves to their ids in order (a delayed job's: its job id); rejects with the first
   * failure, sending no slice after it is known.
   */
  private async send(built: Built[]): Promise<string[]> {
    const ids: string[] = new Array(built.length);
    const need = this.options.waitReplicas ?? 0;
    const step = this.idempotence === 'none' ? built.length : IDEMPOTENCE_WINDOW;
    const sent: Array<Promise<void>> = [];
    let failed = false;
    for (let from = 0; from < built.length && !failed; from += step) {
      const slice = built.slice(from, from + step);
      const counted = this.idempotence === 'none' ? 0 : slice.filter((b) => !b.delayed).length;
      await this.inFlight.acquire(counted);
      if (failed) {
        this.inFlight.release(counted);
        break;
      }
      const at = from;
      const replies = this.jobs ? this.sendJobs(slice, need) : this.sendSlice(slice.map((b) => b.commands[0]!), need);
      sent.push(
        replies
          .then((r) => slice.forEach((b, i) => (ids[at + i] = b.unique !== undefined ? r[i]! : (b.jobId ?? r[i]!))))
          .catch((err: unknown) => {
            failed = true;
            throw err;
          })
          .finally(() => this.inFlight.release(counted)),
      );
    }
    const settled = await Promise.allSettled(sent);
    const rejected = settled.find((r) => r.status === 'rejected');
    if (rejected !== undefined) throw (rejected as PromiseRejectedResult).reason;
    return ids;
  }

  /**
   * One pipeline of adds (with its WAITs). ioredis resends a pipeline the server left wholly
   * unanswered when the link dropped, but fails one it answered in part ("Command aborted due to
   * connection close"): idempotent adds are then sent again, which is just as safe.
   */
  private async sendSlice(commands: Arg[][], need: number): Promise<string[]> {
    for (;;) {
      // Scripted adds of one stream go as one script call (scripted-batch.ts).
      const batch = batchScriptedAdds(commands);
      try {
        let replies: Array<Value | Error>;
        if (need > 0) replies = await this.addAndWait(batch.commands, need);
        else if (batch.commands.length === 1) replies = [await this.conn.call(...batch.commands[0]!)];
        else replies = await this.conn.pipeline(batch.commands);
        return batch.spread(replies).map(unwrap);
      } catch (err) {
        if (this.idempotence === 'none') throw err;
        // NOSCRIPT did nothing: the script goes with its text, which also caches it there.
        if (isNoScript(err)) commands = withJobAddText(withScriptText(commands));
        else if (!abortedByClose(err)) throw err;
      }
    }
  }

  /**
   * Jobs: per stream, one MULTI of every add's commands (entry or delayed member, record,
   * event), all in the stream's slot; resolves to the replies of each add's first command.
   */
  private async sendJobs(slice: Built[], need: number): Promise<string[]> {
    const byStream = new Map<string, number[]>();
    slice.forEach((b, i) => {
      const list = byStream.get(b.stream) ?? [];
      list.push(i);
      byStream.set(b.stream, list);
    });
    const out: string[] = new Array(slice.length);
    await Promise.all(
      [...byStream.values()].map(async (all) => {
        const unique = all.filter((i) => slice[i]!.unique !== undefined);
        const indexes = all.filter((i) => slice[i]!.unique === undefined);
        if (unique.length > 0) {
          const ids = await sendUnique(this.watch, slice[unique[0]!]!.stream, unique.map((i) => slice[i]!.unique!), need, this.options.waitTimeoutMs ?? 1000);
          unique.forEach((i, j) => (out[i] = ids[j]!));
          // Prioritized ones: wake idle workers if the set held nothing else (as below).
          const woken = unique.filter((i) => slice[i]!.prioritized).length;
          const stream = slice[unique[0]!]!.stream;
          if (woken > 0) await wakeIfFirst(this.conn, stream, await this.conn.call('ZCARD', prioritizedKey(stream)), woken);
          if (unique.some((i) => slice[i]!.fair)) await this.conn.call('XADD', stream, '*', WAKE_FIELD, FAIR_WAKE); // idle workers look at the lanes
        }
        if (indexes.length === 0) return;
        // Fair adds: one RPUSH per lane and one ZADD NX per key, first (lanes.ts).
        const fairAdds = indexes.filter((i) => slice[i]!.fair);
        const lanes = fairAdds.length === 0 ? null : groupFairAdds(fairAdds.map((i) => slice[i]!.commands));
        const own = new Map<number, Arg[][]>(fairAdds.map((i, j) => [i, lanes!.rest[j]!]));
        const head = lanes?.head ?? [];
        let commands = [...head, ...indexes.flatMap((i) => own.get(i) ?? slice[i]!.commands)];
        // Prioritized jobs: the set's size last, which says whether idle workers need a wake.
        const prioritized = indexes.filter((i) => slice[i]!.prioritized).length;
        if (prioritized > 0) commands.push(['ZCARD', prioritizedKey(slice[indexes[0]!]!.stream)]);
        // Adds that are one script each (jobs/add-script.ts) need no MULTI and no link.
        if (indexes.every((i) => slice[i]!.commands.length === 1 && isScriptedJobAdd(slice[i]!.commands[0]!))) {
          const ids = await this.sendSlice(commands, need);
          indexes.forEach((i, j) => (out[i] = ids[j]!));
          return;
        }
        for (;;) {
          try {
            const replies = need > 0 ? await this.multiAndWait(commands, need) : await this.multi(slice[indexes[0]!]!.stream, commands);
            let at = head.length;
            const links: Array<{ jobId: string; entryId: string }> = [];
            // A lane that was empty before this push: idle workers need a wake-up.
            const fairWake = lanes !== null && lanes.pushes.some((p) => Number(replies[p.at]) === p.count);
            for (const i of indexes) {
              out[i] = String(replies[at]);
              at += (own.get(i) ?? slice[i]!.commands).length;
              if (!slice[i]!.delayed && !isScriptedJobAdd(slice[i]!.commands[0]!)) links.push({ jobId: slice[i]!.jobId!, entryId: out[i]! });
            }
            // The records learn their entries' ids (known only now); sent before add() resolves.
            linkEntries(this.conn, slice[indexes[0]!]!.stream, links, (e) => this.options.logger?.warn(`sluice: recording the entry ids of jobs added to ${slice[indexes[0]!]!.stream} failed (a worker records them when it starts each job):`, e));
            if (prioritized > 0) await wakeIfFirst(this.conn, slice[indexes[0]!]!.stream, replies[replies.length - 1]!, prioritized);
            if (fairWake) await this.conn.call('XADD', slice[indexes[0]!]!.stream, '*', WAKE_FIELD, FAIR_WAKE); // idle workers look at the lanes
            return;
          } catch (err) {
            if (this.idempotence === 'none') throw err;
            // The script cache was emptied (a restart) since prepare loaded it: again, with its text.
            if (errorMessage(err).includes('NOSCRIPT')) commands = withJobAddText(withScriptText(commands));
            else if (!abortedByClose(err)) throw err;
          }
        }
      }),
    );
    return out;
  }

  /**
   * A MULTI of one stream's adds; on Redis and Valkey (scripted idempotence), as one script call
   * (scripted-multi.ts) unless the adds are scripts themselves (a script cannot call one).
   */
  private async multi(stream: string, commands: Arg[][]): Promise<Value[]> {
    if (this.idempotence === 'script' && !commands.some((c) => c[0] === 'EVALSHA' || c[0] === 'EVAL')) {
      const replies = await scriptedMulti(this.conn, stream, commands);
      if (replies !== null) return replies;
    }
    return this.conn.multi(commands);
  }

  /** MULTI … EXEC and a WAIT, pipelined on the stream's master; rejects as add() with waitReplicas. */
  private async multiAndWait(commands: Arg[][], need: number): Promise<Value[]> {
    const replies = await this.conn.pipeline([['MULTI'], ...commands, ['EXEC'], ['WAIT', need, this.options.waitTimeoutMs ?? 1000]]);
    const failed = replies.find((r) => r instanceof Error);
    if (failed) throw failed;
    const exec = replies[replies.length - 2] as Value[] | null;
    if (exec === null) throw new Error('EXEC aborted');
    const bad = exec.find((r) => r instanceof Error);
    if (bad) throw bad;
    const acked = Number(replies[replies.length - 1]);
    if (acked < need) throw new ReplicationError(String(exec[0]), acked, need);
    return exec;
  }

  /**
   * The commands of one add: its XADD, or, with delayMs / at, the ZADD of a delayed job into the
   * stream's `:delayed` set (delayed.ts); with jobs on, the record and the event after it.
   */
  private command(features: StreamFeatures, stream: string, payload: T, options: AddOptions, trace: ProducerTrace | null): Built {
    const due = this.dueTime(options);
    const priority = priorityOf(options.priority);
    if (priority !== undefined && !this.jobs) throw new RangeError('priority needs jobs (this Producer was made with jobs: false)');
    const fairKey = fairKeyOf(options.fairKey);
    if (fairKey !== undefined && (!this.jobs || due !== undefined || priority !== undefined)) throw new RangeError('fairKey needs jobs, and goes with neither delayMs / at nor priority');
    if (!this.jobs) {
      if (due === undefined) return { stream, commands: [this.xadd(features, stream, payload, options.key, options.idempotencyKey, trace, [])], delayed: false };
      // A delayed job's member holds its random job id: a resent ZADD changes nothing.
      const jobId = options.idempotencyKey ?? newJobId();
      const fields = [...encodeEntry(this.codec, payload, options.key), ...(trace?.entryFields() ?? [])];
      return { stream, commands: [['ZADD', delayedKey(stream), due, encodeDelayedMember(jobId, fields)]], jobId, delayed: true };
    }
    const given = options.jobId ?? options.idempotencyKey;
    const jobId = given ?? newJobId();
    if (jobId.length === 0) throw new RangeError('jobId must not be empty');
    const opts = encodeJobOptions(options);
    const keys = jobKeys(stream);
    const data = this.codec.encode(payload);
    const now = Date.now() + this.clockOffsetMs;
    const entryFields = due === undefined ? [] : [...encodeEntry(this.codec, payload, options.key), ...(trace?.entryFields() ?? [])];
    // The commands for a job id: the add's own, or (unique-adds.ts) those of the job holding a
    // deduplication id whose delayed job this add replaces.
    const build = (id: string): Arg[][] => {
      const jobFields = opts === undefined ? [Fields.jobId, id] : [Fields.jobId, id, Fields.opts, opts];
      const record: Arg[] = ['HSET', keys.record(id), RecordField.data, data, RecordField.added, now];
      if (opts !== undefined) record.push(RecordField.opts, opts);
      if (options.key !== undefined) record.push(RecordField.key, options.key);
      // HSETNX: a resent add (its reply lost to a reconnect) must not set back the state a worker
      // has moved the job on to meanwhile.
      const commands: Arg[][] = [];
      if (fairKey !== undefined) {
        // Into the key's lane; a worker moves it in when the key's turn comes (fairness/lanes.ts).
        const fields = [...encodeEntry(this.codec, payload, options.key), ...jobFields, FAIR_KEY_FIELD, fairKey, ...(trace?.entryFields() ?? [])];
        commands.push(...fairAdd(stream, fairKey, fields, now), record, ['HSETNX', keys.record(id), RecordField.state, 'waiting']);
        if (this.eventsMaxLen !== null) commands.push(eventCommand(keys.events, this.eventsMaxLen, 'added', id));
      } else if (priority !== undefined && due === undefined) {
        // Into the stream's prioritized set; a worker moves it in when it has room (jobs/priority.ts).
        const fields = [...encodeEntry(this.codec, payload, options.key), ...jobFields, PRIORITY_FIELD, String(priority), ...(trace?.entryFields() ?? [])];
        record.push(RecordField.priority, priority);
        commands.push(prioritizedAdd(stream, priority, this.priorityOrder.next(now), id, fields), record, ['HSETNX', keys.record(id), RecordField.state, 'prioritized']);
        if (this.eventsMaxLen !== null) commands.push(eventCommand(keys.events, this.eventsMaxLen, 'added', id, ['priority', priority]));
      } else if (due === undefined) {
        const xadd = this.xadd(features, stream, payload, options.key, options.idempotencyKey ?? options.jobId, trace, jobFields, true);
        const event = this.eventsMaxLen === null ? undefined : eventCommand(keys.events, this.eventsMaxLen, 'added', id);
        // Where the XADD is a script anyway, the whole add is one (jobs/add-script.ts).
        const scripted = scriptedJobAdd(xadd, record, keys.events, event);
        if (scripted !== null) return [scripted];
        commands.push(xadd, record, ['HSETNX', keys.record(id), RecordField.state, 'waiting']);
        if (event !== undefined) commands.push(event);
      } else {
        // With a priority, the mover puts it into the prioritized set when it is due (delayed.ts).
        if (priority !== undefined) record.push(RecordField.priority, priority);
        const priorityFields = priority === undefined ? [] : [PRIORITY_FIELD, String(priority)];
        record.push(RecordField.due, due);
        commands.push(['ZADD', delayedKey(stream), due, encodeDelayedMember(id, [...entryFields, ...jobFields, ...priorityFields])], record, ['HSETNX', keys.record(id), RecordField.state, 'delayed']);
        if (this.eventsMaxLen !== null) commands.push(eventCommand(keys.events, this.eventsMaxLen, 'delayed', id, ['due', due, 'delay', Math.max(0, due - now)]));
      }
      return commands;
    };
    // A prioritized job is not in the stream yet either: no entry id to link, a wake instead.
    const delayed = due !== undefined || priority !== undefined || fairKey !== undefined;
    const prioritized = priority !== undefined && due === undefined;
    const fair = fairKey !== undefined;
    // A given id or a deduplication id: checked and added under WATCH (unique-adds.ts).
    if (given !== undefined || options.deduplication !== undefined) {
      return { stream, commands: [], jobId, delayed, prioritized, fair, unique: { jobId, checkRecord: given !== undefined, dedup: options.deduplication, build, delayed } };
    }
    return { stream, commands: build(jobId), jobId, delayed, prioritized, fair };
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
    this.features ??= Promise.all([probeStreamFeatures(this.conn), loadTracing(), this.measureClock()]).then(async ([f]) => {
      this.idempotence = this.options.idempotent === false ? 'none' : await probeIdempotence(this.conn, f);
      // Jobs send the script by its SHA1 inside a MULTI, where a NOSCRIPT would fail it alone.
      if (this.jobs && this.idempotence === 'script') await Promise.all([this.conn.call('SCRIPT', 'LOAD', IDEMPOTENT_XADD_SCRIPT), this.conn.call('SCRIPT', 'LOAD', JOB_ADD_SCRIPT)]);
      // Batches go by SHA1 too; loaded here so the first one is not a NOSCRIPT round trip.
      if (this.idempotence === 'script') {
        await this.conn.call('SCRIPT', 'LOAD', ADD_BATCH_SCRIPT);
        // The script remembers more iids than IDMP's default: more slices in flight at once.
        this.inFlight = new InFlightWindow(SCRIPT_IDEMPOTENCE_WINDOW);
      }
      if (this.options.producerId !== undefined && this.idempotence === 'none') {
        throw new Error('producerId: this server can deduplicate adds in no way (neither XADD IDMP, Redis 8.6+ and sluice, nor EVAL)');
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

  /** XADDs grouped by stream, each group pipelined with a WAIT on that stream's master; their replies. */
  private async addAndWait(commands: Arg[][], need: number): Promise<Array<Value | Error>> {
    const byStream = new Map<string, number[]>();
    commands.forEach((c, i) => {
      const key = String(c[0] === 'EVALSHA' || c[0] === 'EVAL' ? c[3] : c[1]); // a script's first key is the stream
      const list = byStream.get(key) ?? [];
      list.push(i);
      byStream.set(key, list);
    });
    const out: Array<Value | Error> = new Array(commands.length);
    await Promise.all(
      [...byStream.values()].map(async (indexes) => {
        const replies = await this.conn.pipeline([...indexes.map((i) => commands[i]!), ['WAIT', need, this.options.waitTimeoutMs ?? 1000]]);
        const acked = unwrap(replies.pop()!);
        replies.forEach((r, j) => (out[indexes[j]!] = r));
        if (Number(acked) < need) {
          // The last entry written: a batch's reply is its ids.
          const last = replies[replies.length - 1]!;
          throw new ReplicationError(unwrap(Array.isArray(last) ? last[last.length - 1] : last), Number(acked), need);
        }
      }),
    );
    return out;
  }

  private xadd(
    features: StreamFeatures,
    stream: string,
    payload: unknown,
    key: string | undefined,
    idempotencyKey: string | undefined,
    trace: ProducerTrace | null,
    jobFields: string[],
    jobs = false,
  ): Arg[] {
    const rest: Arg[] = [];
    // With trimAckedOnly on a Redis 7 server the SafeTrimmer trims instead.
    const trimOnWrite = !this.options.trimAckedOnly || features.deletionPolicies;
    if (trimOnWrite && this.options.maxLen !== undefined) rest.push('MAXLEN', '~', this.options.maxLen);
    if (trimOnWrite && this.options.minIdAgeMs !== undefined) rest.push('MINID', '~', Math.max(0, Date.now() - this.options.minIdAgeMs));
    if (trimOnWrite && this.options.trimAckedOnly) rest.push('ACKED');
    const fields = encodeEntry(this.codec, payload, key);
    rest.push('*', ...fields, ...jobFields);
    const mode = this.idempotence;
    if (mode === 'none') {
      if (idempotencyKey !== undefined) {
        if (jobs) {
          if (trace !== null) rest.push(...trace.entryFields());
          return ['XADD', stream, ...rest];
        }
        throw new Error(`idempotencyKey: ${this.options.idempotent === false ? 'this Producer was made with idempotent: false' : 'this server can deduplicate adds in no way (neither XADD IDMP nor EVAL)'}`);
      }
      if (trace !== null) rest.push(...trace.entryFields());
      return ['XADD', stream, ...rest];
    }
    const pid = this.options.producerId;
    if (idempotencyKey === undefined && pid !== undefined && !jobs) {
      // By content: the trace fields stay out, so a resend (in a new span) is the same content.
      if (mode === 'idmp') return ['XADD', stream, 'IDMPAUTO', pid, ...rest];
      return idempotentXadd(mode, stream, pid, `content:${createHash('sha1').update(JSON.stringify(fields)).digest('hex')}`, rest);
    }
    if (trace !== null) rest.push(...trace.entryFields());
    // Keys and the producer's own sequence under different pids, so no key can equal a number.
    if (idempotencyKey !== undefined) return idempotentXadd(mode, stream, pid ?? `${this.ownPid}:keys`, idempotencyKey, rest);
    return idempotentXadd(mode, stream, this.ownPid, (this.sequence++).toString(36), rest);
  }
}

/**
 * An add ready to send: its commands (the entry's XADD or the delayed ZADD first), its stream
 * and the id add() returns when it is not the first command's reply (a job's id).
 */
interface Built {
  stream: string;
  commands: Arg[][];
  jobId?: string;
  delayed: boolean;
  /** An add with a given id or a deduplication id: sent by sendUnique (commands is empty). */
  unique?: UniqueAdd;
  /** A prioritized job (its ZADD first). */
  prioritized?: boolean;
  /** A job with a fair key (its lane's RPUSH first). */
  fair?: boolean;
}

/** ioredis's AbortError: a command of a pipeline cut short by a dropped link, maybe applied. */
function abortedByClose(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError' && err.message.includes('connection close');
}

function unwrap(reply: unknown): string {
  if (reply instanceof Error) throw reply;
  return String(reply);
}
