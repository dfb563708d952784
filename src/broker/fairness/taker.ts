// The worker's side of per-key fairness (lanes.ts has the keys): one FairTaker per
// StreamConsumer moves jobs from the keys' lanes into the stream as the consumer has free
// slots, round-robin over keys, each key within its concurrency and rate limit.
//
// A move (beside each read while the index may hold keys, as jobs/priority.ts's PriorityTaker):
// WATCH the guard; ZRANGE the index's first keys (least recently served first) and the group's
// last-delivered-id (XINFO GROUPS: the jobs this taker moved past it are still to be read, before
// anything moved now, so only the free slots left after them are filled: more would wait in the
// stream, first in first out, and a quiet key's next job behind them); for the first few keys, more
// only while they lack room for the jobs wanted, its lane's head, its live slots (ZCOUNT of
// unexpired leases) and its window's count; then rounds of one job per key until the free
// slots are used; one MULTI of, per key served: LTRIM (the jobs
// taken off the lane's head; producers only push at the tail, movers are one at a time by the
// guard), its slots (ZADD, leased claimIdleMs), INCRBY of its window, the XADDs (`fair-slot`
// carrying the slot's token), and a new score in the index (now: behind every other key); SET
// guard; EXEC. A kill -9 anywhere loses no job: before EXEC the jobs are in their lanes, after
// it entries like any other (claimed back after claimIdleMs).
//
// A key whose lane a move found empty leaves the index under WATCH of its lane (a producer's
// push meanwhile aborts the ZREM: the key stays). A producer's add is RPUSH + ZADD NX in its
// MULTI, so a key with a job waiting is never out of the index for long.
//
// A job's slot is held by whoever runs it (RunGate: renewed with its lease, given back when the
// run ends, which also moves the key's next job at once); the slot of a job left unread by a
// dead worker expires after claimIdleMs. A retry runs again without taking a slot.
import { randomBytes } from 'node:crypto';
import type { Arg, BlockingConnection, Connection, Value } from '../../client/connection.js';
import { execWatched } from '../watched-multi.js';
import { argsJson } from '../lua-json.js';
import { isNoScript } from '../replies.js';
import { FAIR_MOVE_SCRIPT, FAIR_MOVE_SHA1, type Pick } from './move-script.js';
import { jobKeys } from '../jobs/keys.js';
import { linkEntries } from '../jobs/entry-link.js';
import { Fields } from '../codec.js';
import { WAKE_FIELD } from '../jobs/priority.js';
import { type RunGate, SlotLeases } from '../global-concurrency.js';
import type { LimiterOptions } from '../rate-limiter.js';
import type { Job } from '../worker/job.js';
import { activeKey, decodeLaneElement, FAIR_KEY_FIELD, FAIR_SLOT_FIELD, FAIR_WAKE, fairGuardKey, fairIndexKey, laneKey, rateKey } from './lanes.js';

/** Keys looked at per move: the least recently served. */
const KEYS_PER_MOVE = 64;
/** The guard expires when no mover has moved for this long. */
const GUARD_TTL_MS = 600_000;

/** The worker's `fairness` option. */
export interface FairnessOptions {
  /** At most this many jobs of one key moved in and not finished, across every worker (default: no bound). */
  concurrency?: number;
  /** At most `max` jobs of one key moved in per `durationMs`, across every worker. */
  limiter?: LimiterOptions;
}

/** What the StreamConsumer gives its FairTaker: its free slots, and a way to end its blocking read. */
export interface FeederHost {
  free(): number;
  wake(): void;
  /** Whether the server runs the worker's writes as scripts (job-write-sender.ts): moves go the same way. */
  scripted(): boolean;
}

export class FairTaker implements RunGate {
  /** The index may hold keys: the next read moves some first. */
  pending = true;
  /**
   * The last move found one key waiting, and no lane has had a first job since: the worker may
   * read that key's short jobs ahead (stream-consumer.ts), as no other key's job waits behind them.
   */
  soleKey = false;
  private link: Promise<BlockingConnection> | null = null;
  private closed = false;
  private host: FeederHost | null = null;
  private readonly leases: SlotLeases;
  private readonly concurrency: number;
  private readonly prefix = randomBytes(6).toString('base64url');
  private seq = 0;
  /** The move in progress (moves here go one at a time), and whether another was asked for meanwhile. */
  private moving: Promise<number> | null = null;
  private again = false;
  /** A key held back by its rate limit: a move is due when its window ends. */
  private retryTimer: NodeJS.Timeout | null = null;
  /** Ids of the entries moved here and not yet delivered to the group, oldest first (ids only grow). */
  private readonly undelivered: Array<[number, number]> = [];
  /** The slots of the jobs running here (by entry id): [its active set, token]. */
  private readonly slots = new Map<string, string>();

  constructor(
    private readonly conn: Connection,
    private readonly stream: string,
    private readonly group: string,
    leaseMs: number,
    private readonly options: FairnessOptions,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.concurrency = options.concurrency ?? Infinity;
    if (!(this.concurrency === Infinity || (Number.isInteger(this.concurrency) && this.concurrency >= 1))) throw new RangeError('fairness.concurrency must be a positive integer');
    const limiter = options.limiter;
    if (limiter !== undefined && !(Number.isInteger(limiter.max) && limiter.max >= 1 && limiter.durationMs >= 1)) throw new RangeError('fairness.limiter: max must be a positive integer and durationMs at least 1');
    this.leases = new SlotLeases(conn, leaseMs, onError);
  }

  attach(host: FeederHost): void {
    this.host = host;
  }

  /** A wake-up entry or a moved job was read: the index may hold more. */
  noteEntry(fields: Record<string, string> | null): void {
    if (fields === null) return;
    if (fields[FAIR_KEY_FIELD] !== undefined) this.pending = true;
    if (fields[WAKE_FIELD] === FAIR_WAKE) {
      this.pending = true;
      this.soleKey = false; // perhaps another key's first job
    }
  }

  /** The periodic check: true when the index holds keys nobody here knew of (wake the read). */
  async check(): Promise<boolean> {
    if (this.pending) return false;
    const n = Number(await this.conn.call('EXISTS', fairIndexKey(this.stream)));
    if (n === 0 || this.pending) return false;
    this.pending = true;
    return true;
  }

  /** Moves up to `count` jobs (fewer if the host's free slots shrank); resolves to how many. */
  take(count: number): Promise<number> {
    if (this.moving !== null) {
      this.again = true;
      return this.moving;
    }
    this.moving = (async () => {
      let moved = 0;
      try {
        do {
          this.again = false;
          moved += await this.move(moved === 0 ? count : (this.host?.free() ?? 0));
        } while (this.again && !this.closed);
      } finally {
        this.moving = null;
      }
      return moved;
    })();
    return this.moving;
  }

  private async move(count: number): Promise<number> {
    if (count <= 0 || this.closed) return 0;
    if (this.link === null && Number(await this.conn.call('EXISTS', fairIndexKey(this.stream))) === 0) {
      this.pending = false; // no fair job yet: no link of its own either
      return 0;
    }
    this.link ??= this.conn.duplicate();
    const link = await this.link;
    const index = fairIndexKey(this.stream);
    const guard = fairGuardKey(this.stream);
    const limiter = this.options.limiter;
    const bounded = this.concurrency !== Infinity;
    for (let attempt = 0; attempt < 20 && !this.closed; attempt++) {
      // One pipeline (one write on the link): the guard's WATCH, the index, and, only while
      // some moved here may be unread, the group's last-delivered-id.
      const now = await this.leases.now();
      const first: Arg[][] = [['WATCH', guard], ['ZRANGE', index, 0, KEYS_PER_MOVE - 1]];
      if (this.undelivered.length > 0) first.push(['XINFO', 'GROUPS', this.stream]);
      const [watched, listed, groupsReply] = await link.pipeline(first);
      if (watched instanceof Error) throw watched;
      if (listed instanceof Error) throw listed;
      const groups = groupsReply instanceof Error || groupsReply === undefined ? null : groupsReply;
      const keys = (listed as Value[]).map(String);
      this.soleKey = keys.length === 1;
      if (keys.length === 0) {
        await link.call('UNWATCH');
        this.pending = false;
        return 0;
      }
      // Jobs this taker moved that the group has not delivered yet (ids past its last-delivered-id)
      // are read before anything moved now: move only what the free slots leave after them.
      // Moving more would queue jobs in the stream, first in first out, and a quiet key's next
      // job would wait behind them for its turn. (Not the group's lag: that counts the wake-up
      // entries too, which take no slot, and a move held back for one costs a read.)
      if (this.undelivered.length > 0) this.forgetDelivered(lastDelivered(groups, this.group));
      const want = count - this.undelivered.length;
      if (want <= 0) {
        await link.call('UNWATCH');
        return 0; // still pending: the read takes those entries, the next free slot moves
      }
      // On Redis and Valkey the lanes' jobs go into the stream inside the script (move-script.ts):
      // their lengths are read instead of their heads (unless a key's name is beyond JSON).
      const scripted = this.host?.scripted() === true && argsJson(keys.map((k) => laneKey(this.stream, k))) !== null;
      const window = limiter === undefined ? 0 : Math.floor(now / limiter.durationMs);
      const per = 1 + (bounded ? 1 : 0) + (limiter === undefined ? 0 : 1);
      // Per key: its lane's head, then (as configured) its live slots and its window's count.
      // Read in chunks of keys, least recently served first, until they have room for `want`:
      // a move of one job reads a few lanes, not all 64.
      const lanes: string[][] = []; // each key's head (its first `want` jobs; [] when scripted)
      const lengths: number[] = []; // how many of them there are (at most `want`)
      const emptied: number[] = []; // taken that many, the lane is empty (Infinity: unknown)
      const room: number[] = [];
      const held: number[] = []; // each key's window count (with a limiter)
      let roomTotal = 0;
      while (lanes.length < keys.length && roomTotal < want) {
        const chunk = keys.slice(lanes.length, lanes.length + Math.max(4, 2 * want));
        const reads: Arg[][] = [];
        for (const k of chunk) {
          reads.push(scripted ? ['LLEN', laneKey(this.stream, k)] : ['LRANGE', laneKey(this.stream, k), 0, want - 1]);
          if (bounded) reads.push(['ZCOUNT', activeKey(this.stream, k), `(${now}`, '+inf']);
          if (limiter !== undefined) reads.push(['GET', rateKey(this.stream, k, window)]);
        }
        const replies = await link.pipeline(reads);
        const failedRead = replies.find((r) => r instanceof Error);
        if (failedRead !== undefined) throw failedRead;
        chunk.forEach((_, i) => {
          const lane = scripted ? [] : (replies[i * per] as Value[]).map(String);
          const length = scripted ? Math.min(Number(replies[i * per]), want) : lane.length;
          lengths.push(length);
          emptied.push(scripted ? Number(replies[i * per]) : lane.length < want ? lane.length : Infinity);
          // What the key may still start: its concurrency and its window's rest.
          let r = length;
          if (bounded) r = Math.min(r, this.concurrency - Number(replies[i * per + 1]));
          const inWindow = limiter === undefined ? 0 : Number(replies[i * per + per - 1] ?? 0);
          if (limiter !== undefined) r = Math.min(r, limiter.max - inWindow);
          lanes.push(lane);
          room.push(Math.max(0, r));
          held.push(inWindow);
          roomTotal += Math.max(0, r);
        });
      }
      const seen = keys.slice(0, lanes.length);
      // Round-robin: one job per key per round, least recently served key first.
      const taken = seen.map(() => 0);
      const order: number[] = []; // keys in the order they were last served in this move
      const picks: number[] = []; // the key of each job taken, in turns: the order of the XADDs
      for (let left = want, progress = true; left > 0 && progress; ) {
        progress = false;
        for (let i = 0; i < seen.length && left > 0; i++) {
          if (taken[i]! >= room[i]!) continue;
          taken[i]!++;
          picks.push(i);
          left--;
          progress = true;
          const at = order.indexOf(i);
          if (at >= 0) order.splice(at, 1);
          order.push(i);
        }
      }
      const empty = seen.filter((_, i) => lengths[i] === 0);
      const rateHeld = limiter !== undefined && seen.some((_, i) => lengths[i]! > 0 && room[i] === 0 && held[i]! >= limiter.max);
      if (order.length === 0) {
        await link.call('UNWATCH');
        await this.dropEmpty(link, empty);
        // Keys wait only for their limits: a release here moves again; a rate window's end too.
        if (rateHeld) this.retryAtWindowEnd(now, limiter!.durationMs);
        this.pending = empty.length < keys.length;
        return 0;
      }
      const commands: string[][] = [];
      const xadds: Array<{ at: number; jobId: string | null }> = [];
      const expiry = String(now + this.leases.leaseMs);
      const tokens = seen.map((_, i) => Array.from({ length: taken[i]! }, () => `${this.prefix}:${this.seq++}`));
      order.forEach((i, position) => {
        const k = seen[i]!;
        const n = taken[i]!;
        commands.push(['LTRIM', laneKey(this.stream, k), String(n), '-1']);
        if (bounded) {
          const active = activeKey(this.stream, k);
          commands.push(['ZREMRANGEBYSCORE', active, '-inf', String(now)], ['ZADD', active, ...tokens[i]!.flatMap((t) => [expiry, t])], ['PEXPIRE', active, String(this.leases.leaseMs * 2)]);
        }
        if (limiter !== undefined) {
          const rate = rateKey(this.stream, k, window);
          commands.push(['INCRBY', rate, String(n)], ['PEXPIRE', rate, String(limiter.durationMs * 2)]);
        }
        // Behind every other key, in the order served here (the last served goes last).
        commands.push(['ZADD', fairIndexKey(this.stream), 'XX', String(now + position / 1000), k]);
      });
      // The entries in turns, as picked: a move of many jobs (read-ahead of short ones) puts a
      // quiet key's job among the first, not behind all of a busy key's.
      const next = seen.map(() => 0);
      const moved: Pick[] = [];
      for (const i of picks) {
        const j = next[i]!++;
        const k = seen[i]!;
        if (scripted) {
          moved.push([laneKey(this.stream, k), j, k, bounded ? tokens[i]![j]! : '']);
          continue;
        }
        const fields = decodeLaneElement(lanes[i]![j]!);
        xadds.push({ at: commands.length, jobId: fields === null ? null : fieldOf(fields, Fields.jobId) });
        // Not an element of ours: moved verbatim, so the worker dead-letters it as malformed.
        const slot = bounded ? [FAIR_SLOT_FIELD, tokens[i]![j]!] : [];
        commands.push(fields === null ? ['XADD', this.stream, '*', 'fair-element', lanes[i]![j]!, FAIR_KEY_FIELD, k] : ['XADD', this.stream, '*', ...fields, ...slot]);
      }
      commands.push(['SET', guard, String(now), 'PX', String(GUARD_TTL_MS)]);
      // On Redis and Valkey one script call takes the jobs off the lanes and links their records
      // (move-script.ts); elsewhere a MULTI, and links after it.
      let ids: Value[];
      if (scripted) {
        const added = await this.scriptedMove(link, moved, commands);
        if (added === null) continue; // another worker moved meanwhile (or NOSCRIPT): read again
        ids = added;
      } else {
        const exec = await execWatched(link, commands);
        if (exec === null) continue; // another worker moved meanwhile: read again
        const failed = exec.find((r) => r instanceof Error);
        if (failed) throw failed as Error;
        ids = xadds.map((x) => exec[x.at]!);
        linkEntries(this.conn, this.stream, xadds.flatMap((x, n) => (x.jobId === null ? [] : [{ jobId: x.jobId, entryId: String(ids[n]) }])), this.onError);
      }
      for (const id of ids) this.undelivered.push(parseId(String(id)));
      // Keys whose lanes this move emptied, and those found empty, leave the index.
      await this.dropEmpty(link, [...empty, ...seen.filter((_, i) => taken[i]! > 0 && taken[i] === emptied[i])]);
      this.pending = true;
      return ids.length;
    }
    return 0;
  }

  /**
   * The move as one script call in MULTI … EXEC (move-script.ts); the entries' ids, or null when
   * EXEC was aborted (the guard changed) or the script was missing (loaded now for the next try).
   */
  private async scriptedMove(link: BlockingConnection, picks: Pick[], commands: string[][]): Promise<Value[] | null> {
    const json = JSON.stringify({ p: picks, r: commands });
    const exec = await execWatched(link, [['EVALSHA', FAIR_MOVE_SHA1, '1', this.stream, json, jobKeys(this.stream).record('')]]).catch((err: unknown) => {
      if (isNoScript(err)) return [err as Error]; // a client that throws on an error inside EXEC's array
      throw err;
    });
    if (exec === null) return null;
    const reply = exec[0] as Value | Error;
    if (reply instanceof Error) {
      if (!isNoScript(reply)) throw reply;
      await link.call('SCRIPT', 'LOAD', FAIR_MOVE_SCRIPT);
      return null;
    }
    return reply as Value[];
  }

  /** Drops the moved entries the group has delivered (all of them when it has no such group or stream). */
  private forgetDelivered(last: [number, number] | null): void {
    if (last === null) {
      this.undelivered.length = 0;
      return;
    }
    let n = 0;
    while (n < this.undelivered.length && compareIds(this.undelivered[n]!, last) <= 0) n++;
    this.undelivered.splice(0, n);
  }

  /** ZREM of keys whose lanes are empty, under WATCH of the lanes (a push meanwhile keeps its key). */
  private async dropEmpty(link: BlockingConnection, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const lanes = keys.map((k) => laneKey(this.stream, k));
    const replies = await link.pipeline([['WATCH', ...lanes], ...lanes.map((l) => ['LLEN', l])]);
    const failed = replies.find((r) => r instanceof Error);
    if (failed !== undefined) throw failed;
    const lengths = replies.slice(1);
    const gone = keys.filter((_, i) => Number(lengths[i]) === 0);
    if (gone.length === 0) return void (await link.call('UNWATCH'));
    await execWatched(link, [['ZREM', fairIndexKey(this.stream), ...gone]]); // aborted: a push came, the key stays
  }

  private retryAtWindowEnd(now: number, durationMs: number): void {
    if (this.retryTimer !== null || this.closed) return;
    const ms = (Math.floor(now / durationMs) + 1) * durationMs - now + Math.random() * Math.min(20, durationMs / 10);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.pending = true;
      this.host?.wake();
    }, ms);
    this.retryTimer.unref();
  }

  // --- RunGate: the slots of the jobs running here ------------------------------------------

  enter(jobs: Job<unknown>[]): boolean {
    for (const job of jobs) {
      const key = job.fields[FAIR_KEY_FIELD];
      const token = job.fields[FAIR_SLOT_FIELD];
      if (key === undefined || token === undefined || job.deliveries > 1) continue;
      this.leases.hold(activeKey(this.stream, key), token); // renewed from now on with the run
      this.slots.set(job.entryId, token);
    }
    return true;
  }

  leave(jobs: Job<unknown>[]): void {
    for (const job of jobs) {
      const token = this.slots.get(job.entryId);
      if (token === undefined) continue;
      this.slots.delete(job.entryId);
      void this.leases.release(token).then(
        () => this.afterRelease(),
        () => {}, // not given back: it expires after claimIdleMs
      );
    }
  }

  /** A key's slot came free: move its next job now, not at the next read. */
  private afterRelease(): void {
    if (this.closed || this.host === null) return;
    this.pending = true;
    // After this turn: the finished job's own slot in the consumer is free by then.
    setImmediate(() => {
      const free = this.host?.free() ?? 0;
      if (free > 0 && !this.closed) this.take(free).catch(this.onError);
    });
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.leases.close();
    const link = this.link;
    this.link = null;
    void link?.then((l) => l.close({ force: true })).catch(() => {});
  }
}

/** The group's last-delivered-id in an XINFO GROUPS reply; null without the stream or the group. */
function lastDelivered(groups: Value | null, group: string): [number, number] | null {
  if (!Array.isArray(groups)) return null;
  for (const g of groups) {
    if (!Array.isArray(g)) continue;
    let name: string | undefined;
    let last: string | undefined;
    for (let i = 0; i + 1 < g.length; i += 2) {
      const field = String(g[i]);
      if (field === 'name') name = String(g[i + 1]);
      else if (field === 'last-delivered-id') last = String(g[i + 1]);
    }
    if (name === group && last !== undefined) return parseId(last);
  }
  return null;
}

/** An entry id `ms-seq` as numbers (both below 2^53 for any id a server makes from its clock). */
function parseId(id: string): [number, number] {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

function compareIds(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function fieldOf(fields: string[], name: string): string | null {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]!;
  return null;
}
