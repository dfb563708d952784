// A rate limit shared by every worker of a group, across processes: at most `max` jobs start
// per `durationMs` window. Windows are numbered by the server's clock (TIME, read once and then
// followed locally), and each worker counts its starts in the window's counter key with
// MULTI INCR + PEXPIRE: no Lua needed, so it runs on sluice server, Redis 7 and Valkey. A worker
// that draws a number past `max` waits for the next window. Fixed windows: a burst of up to
// 2·max can straddle a window boundary; over any whole window at most `max` start.
import type { Connection, Value } from '../client/connection.js';

export interface LimiterOptions {
  /** Jobs that may start per window. */
  max: number;
  /** The window, in ms. */
  durationMs: number;
}

export class RateLimiter {
  /** Server time minus local time (ms), read with TIME at the first acquire. */
  private offset: number | null = null;

  constructor(
    private readonly conn: Connection,
    /** The counter keys' prefix (beside the stream, so in its slot on a cluster). */
    private readonly keyPrefix: string,
    private readonly options: LimiterOptions,
  ) {
    if (!(Number.isInteger(options.max) && options.max >= 1)) throw new RangeError('limiter.max must be a positive integer');
    if (!(options.durationMs >= 1)) throw new RangeError('limiter.durationMs must be at least 1');
  }

  /** Resolves when this job may start; `signal` ends the wait early (the job is not started). */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    const { max, durationMs } = this.options;
    for (;;) {
      if (signal?.aborted) return false;
      const now = await this.serverNow();
      const window = Math.floor(now / durationMs);
      const key = `${this.keyPrefix}:${window}`;
      const [count] = (await this.conn.multi([
        ['INCR', key],
        ['PEXPIRE', key, durationMs * 2],
      ])) as [Value, Value];
      if (Number(count) <= max) return true;
      // Spread the wakers over the first few ms of the next window.
      await sleep((window + 1) * durationMs - now + Math.random() * Math.min(20, durationMs / 10), signal);
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

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
