// A rate limit shared by every worker of a group, across processes: at most `max` jobs start
// per `durationMs` window. Windows are numbered by the server's clock (TIME, read once and then
// followed locally), and each worker counts its starts in the window's counter key with
// MULTI INCRBY + PEXPIRE (a batch of starts per round trip): no Lua needed, so it runs on
// sluice server, Redis 7 and Valkey. Starts that draw numbers past `max` wait for the next
// window. Fixed windows: a burst of up to 2·max can straddle a window boundary; over any whole
// window at most `max` start.
import type { Connection, Value } from '../client/connection.js';

export interface LimiterOptions {
  /** Jobs that may start per window. */
  max: number;
  /** The window, in ms. */
  durationMs: number;
}

/**
 * What may end a wait early: an AbortSignal, or the worker's JobAbort (`aborted` and `onAbort`),
 * which spares making an AbortController per job.
 */
export type AbortSource = AbortSignal | { readonly aborted: boolean; onAbort(fn: (reason: unknown) => void): () => void };

/** An acquire waiting for its start. */
interface Waiter {
  settle: (ok: boolean) => void;
  fail: (err: unknown) => void;
  done: boolean;
  /** Stops listening to its abort source. */
  unsubscribe: () => void;
}

export class RateLimiter {
  /** Server time minus local time (ms), read with TIME at the first acquire. */
  private offset: number | null = null;
  /** Acquires not granted yet, first come first served. */
  private waiting: Waiter[] = [];
  private taking = false;
  /** Until when (Date.now()) starts count as held back: the end of the window after one was. */
  private heldUntil = 0;
  /** The wait for the next window, while a batch's rest waits: ended early once none of them waits. */
  private nap: { timer: NodeJS.Timeout; wake: () => void; rest: Waiter[] } | null = null;

  constructor(
    private readonly conn: Connection,
    /** The counter keys' prefix (beside the stream, so in its slot on a cluster). */
    private readonly keyPrefix: string,
    private readonly options: LimiterOptions,
  ) {
    if (!(Number.isInteger(options.max) && options.max >= 1)) throw new RangeError('limiter.max must be a positive integer');
    if (!(options.durationMs >= 1)) throw new RangeError('limiter.durationMs must be at least 1');
  }

  /**
   * Resolves to true when this job may start, false when `signal` aborted first (the job is
   * not started); rejects when the server could not be asked.
   */
  acquire(signal?: AbortSource): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      const waiter: Waiter = { settle: resolve, fail: reject, done: false, unsubscribe: () => {} };
      if (signal !== undefined) {
        waiter.unsubscribe = listen(signal, () => {
          settle(waiter, false);
          // Nobody left to start: no timer keeps the process up for the rest of a window (a close).
          const nap = this.nap;
          if (nap !== null && nap.rest.every((w) => w.done) && this.waiting.every((w) => w.done)) {
            clearTimeout(nap.timer);
            nap.wake();
          }
        });
      }
      this.waiting.push(waiter);
      if (!this.taking) void this.take();
    });
  }

  /** Whether starts were held back in this window or the last (a worker then reads no more than it can start). */
  get throttled(): boolean {
    return Date.now() < this.heldUntil;
  }

  /**
   * Takes starts for everyone waiting, a batch per round trip: the acquires made while one
   * round trip is out go together in the next (INCRBY of their number), so a busy worker pays
   * one MULTI per batch rather than one per job. A batch that finds the window (partly) full
   * is granted what is left of it and waits for the next window with the rest, ahead of
   * newer acquires. Counting the ungranted ones too only ever makes a full window look fuller.
   */
  private async take(): Promise<void> {
    this.taking = true;
    const { max, durationMs } = this.options;
    try {
      // Acquires of the same turn (a read's jobs) join before the first batch goes.
      await Promise.resolve();
      while (this.waiting.length > 0) {
        const batch = this.waiting.filter((w) => !w.done);
        this.waiting = [];
        if (batch.length === 0) break;
        let count: number;
        let now: number;
        try {
          now = await this.serverNow();
          const key = `${this.keyPrefix}:${Math.floor(now / durationMs)}`;
          const [reply] = (await this.conn.multi([
            ['INCRBY', key, batch.length],
            ['PEXPIRE', key, durationMs * 2],
          ])) as [Value, Value];
          count = Number(reply);
        } catch (err) {
          for (const w of batch) if (!w.done) ((w.done = true), w.unsubscribe(), w.fail(err));
          continue;
        }
        const left = Math.max(0, max - (count - batch.length));
        const rest = batch.slice(left);
        for (const w of batch.slice(0, left)) settle(w, true);
        if (rest.some((w) => !w.done)) {
          // Spread the wakers over the first few ms of the next window.
          const window = Math.floor(now / durationMs);
          this.heldUntil = Date.now() + (window + 2) * durationMs - now;
          await new Promise<void>((wake) => {
            const timer = setTimeout(wake, Math.max(0, (window + 1) * durationMs - now + Math.random() * Math.min(20, durationMs / 10)));
            this.nap = { timer, wake, rest };
          });
          this.nap = null;
          this.waiting = [...rest, ...this.waiting];
        }
      }
    } finally {
      this.taking = false;
    }
  }

  private async serverNow(): Promise<number> {
    if (this.offset === null) {
      const [seconds, micros] = (await this.conn.call('TIME')) as [Value, Value];
      this.offset = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - Date.now();
    }
    return Date.now() + this.offset;
  }
}

function settle(w: Waiter, ok: boolean): void {
  if (w.done) return;
  w.done = true;
  w.unsubscribe();
  w.settle(ok);
}

/** Calls `fn` when `source` aborts; returns the unsubscribe. */
function listen(source: AbortSource, fn: () => void): () => void {
  if ('onAbort' in source) return source.onAbort(fn);
  source.addEventListener('abort', fn, { once: true });
  return () => source.removeEventListener('abort', fn);
}


