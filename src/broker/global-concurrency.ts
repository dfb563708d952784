// Slots held under a lease, shared by every process (no Lua): a sorted set whose members are
// the holders' tokens, scored by their lease's expiry (server clock, ms). Taking a slot:
// ZREMRANGEBYSCORE (expired leases out), WATCH, ZCARD; below the limit, MULTI ZADD EXEC (aborted
// when another taker, a release or a renewal wrote the set meanwhile: look again); at the limit,
// wait for a release here (woken at once) or poll (another process's). (ZADD-then-ZCARD without
// WATCH never exceeds the limit either, but under contention every taker saw too many and backed
// off: the slots went unused.) Holders renew
// their leases (ZADD XX) every leaseMs / 3; a process killed with kill -9 stops renewing, and its
// slots expire within leaseMs (the worker's claimIdleMs), when the next taker sweeps them.
//
// GlobalConcurrency (the worker's `globalConcurrency: N`) is one such set per group,
// `{stream}:concurrency:GROUP`: each job takes a slot before its handler runs, and gives it back
// when the handler returns. fairness/ uses the same leases per key.
import { randomBytes } from 'node:crypto';
import type { BlockingConnection, Connection, Value } from '../client/connection.js';
import { execWatched } from './watched-multi.js';
import { slotPrefix } from './partition.js';
import type { Job } from './worker/job.js';

/** Longest wait between two tries of a full set (a release here wakes the waiters sooner). */
const MAX_POLL_MS = 50;

export class SlotLeases {
  /** Server time minus local time (ms), from one TIME. */
  private offset: number | null = null;
  /** Held here: token → its set, renewed until released. */
  private readonly held = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private readonly waiters = new Set<() => void>();
  /** The WATCH link (made on first use) and the chain that keeps its tries one at a time. */
  private link: Promise<BlockingConnection> | null = null;
  private tries: Promise<void> = Promise.resolve();
  /** Tokens given back in this turn, by set, and the send they wait for (release()). */
  private releasing = new Map<string, string[]>();
  private released: Promise<void> | null = null;

  constructor(
    private readonly conn: Connection,
    /** A lease lasts this long unless renewed (the worker's claimIdleMs). */
    readonly leaseMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** The server's clock (TIME once, then followed locally). */
  async now(): Promise<number> {
    if (this.offset === null) {
      const [seconds, micros] = (await this.conn.call('TIME')) as [Value, Value];
      this.offset = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - Date.now();
    }
    return Date.now() + this.offset;
  }

  /**
   * One try: true when `token` now holds a slot of `key` (at most `limit` held). Under WATCH,
   * so two takers never both take the last slot; the tries of this process go one at a time.
   */
  tryTake(key: string, token: string, limit: number): Promise<boolean> {
    const attempt = this.tries.then(() => this.watchedTake(key, token, limit));
    this.tries = attempt.then(
      () => undefined,
      () => undefined,
    );
    return attempt;
  }

  private async watchedTake(key: string, token: string, limit: number): Promise<boolean> {
    this.link ??= this.conn.duplicate();
    const link = await this.link;
    for (let attempt = 0; attempt < 20; attempt++) {
      const now = await this.now();
      // Expired leases out first (before the WATCH: our own write would abort our EXEC).
      const [, , card] = await Promise.all([link.call('ZREMRANGEBYSCORE', key, '-inf', now), link.call('WATCH', key), link.call('ZCARD', key)]);
      if (Number(card) >= limit) {
        await link.call('UNWATCH');
        return false;
      }
      const exec = await execWatched(link, [
        ['ZADD', key, String(now + this.leaseMs), token],
        ['PEXPIRE', key, String(this.leaseMs * 2)],
      ]);
      if (exec === null) continue; // a take, release or renewal meanwhile: look again
      this.hold(key, token);
      return true;
    }
    return false;
  }

  /** Takes a slot, waiting while the set is full; false when `signal` aborted first. */
  async take(key: string, token: string, limit: number, signal?: AbortSignal): Promise<boolean> {
    for (let tries = 0; ; tries++) {
      if (signal?.aborted) return false;
      if (await this.tryTake(key, token, limit)) return true;
      // Woken by a release here, else after a short poll (another process's release).
      await this.wait(Math.min(MAX_POLL_MS, 2 + tries * 5) * (0.5 + Math.random()), signal);
    }
  }

  /** Renews `token`'s lease from now on (one taken elsewhere, e.g. by a fairness mover). */
  hold(key: string, token: string): void {
    this.held.set(token, key);
    this.timer ??= setInterval(() => void this.renew().catch(this.onError), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /**
   * Gives the slot back (and wakes the local waiters). The releases of one event-loop turn go
   * together, one ZREM per set: a worker's batch of finished jobs gave back one slot per round
   * trip, most of fairness's cost per job over a plain one.
   */
  release(token: string): Promise<void> {
    const key = this.held.get(token);
    if (key === undefined) return Promise.resolve();
    this.held.delete(token);
    if (this.held.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
    const tokens = this.releasing.get(key);
    if (tokens === undefined) this.releasing.set(key, [token]);
    else tokens.push(token);
    this.released ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.sendReleases());
    return this.released;
  }

  /** The ZREMs of the releases gathered so far; rejects when one failed (those slots expire). */
  private async sendReleases(): Promise<void> {
    const batch = this.releasing;
    this.releasing = new Map();
    this.released = null;
    try {
      const replies = await this.conn.pipeline([...batch].map(([key, tokens]) => ['ZREM', key, ...tokens]));
      const failed = replies.find((r) => r instanceof Error);
      if (failed !== undefined) throw failed;
    } finally {
      for (const w of [...this.waiters]) w();
    }
  }

  /** Pushes every held lease's expiry forward (ZADD XX: an expired one is not brought back). */
  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const expiry = (await this.now()) + this.leaseMs;
    const byKey = new Map<string, string[]>();
    for (const [token, key] of this.held) {
      const list = byKey.get(key) ?? [];
      list.push(String(expiry), token);
      byKey.set(key, list);
    }
    await this.conn.pipeline([...byKey].map(([key, pairs]) => ['ZADD', key, 'XX', ...pairs]));
  }

  private wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Stops renewing (close): leases still held expire on the server. */
  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.held.clear();
    const link = this.link;
    this.link = null;
    void link?.then((l) => l.close({ force: true })).catch(() => {});
  }
}

/** The set of a group's global concurrency slots (in the stream's cluster slot). */
export function concurrencyKey(stream: string, group: string): string {
  return `${slotPrefix(stream)}:concurrency:${group}`;
}

/**
 * What a StreamConsumer calls around each run (worker/stream-consumer.ts): `enter` before the
 * handler (false: do not run, the abort came first), `leave` after it, whatever the outcome.
 * `enter` answers at once where it can (fairness, for jobs without a key: every job of a worker
 * passes through it), and reads `abort.signal` only if it waits: the signal is made on first read.
 */
export interface RunGate {
  enter(jobs: Job<unknown>[], abort: { readonly signal: AbortSignal }): boolean | Promise<boolean>;
  leave(jobs: Job<unknown>[]): void;
  close(): void;
}

/** At most `limit` jobs of a group running at once across every process (`globalConcurrency`). */
export class GlobalConcurrency implements RunGate {
  private readonly key: string;
  private readonly prefix = randomBytes(6).toString('base64url');
  private seq = 0;
  /** The token of each running job (by entry id). */
  private readonly tokens = new Map<string, string>();

  constructor(
    private readonly leases: SlotLeases,
    stream: string,
    group: string,
    private readonly limit: number,
  ) {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError('globalConcurrency must be a positive integer');
    this.key = concurrencyKey(stream, group);
  }

  async enter(jobs: Job<unknown>[], abort: { readonly signal: AbortSignal }): Promise<boolean> {
    for (const job of jobs) {
      const token = `${this.prefix}:${this.seq++}`;
      if (!(await this.leases.take(this.key, token, this.limit, abort.signal))) {
        this.leave(jobs); // the ones taken so far
        return false;
      }
      this.tokens.set(job.entryId, token);
    }
    return true;
  }

  leave(jobs: Job<unknown>[]): void {
    for (const job of jobs) {
      const token = this.tokens.get(job.entryId);
      if (token === undefined) continue;
      this.tokens.delete(job.entryId);
      void this.leases.release(token).catch(() => {}); // not given back: it expires after leaseMs
    }
  }

  close(): void {
    this.leases.close();
  }
}
