// A broker Clock for tests: the real clocks (this process's and the server's TIME) plus an
// offset the test moves, to say "this much time has passed" without sleeping through it.
import type { Connection } from '../../src/client/connection.js';
import type { Clock } from '../../src/broker/clock.js';
import { serverTimeMs } from '../../src/broker/delayed.js';

export class AheadClock implements Clock {
  constructor(private aheadMs = 0) {}

  now(): number {
    return Date.now() + this.aheadMs;
  }

  async serverNow(conn: Connection): Promise<number> {
    return (await serverTimeMs(conn)) + this.aheadMs;
  }

  /** Moves both clocks `ms` further ahead. */
  advance(ms: number): void {
    this.aheadMs += ms;
  }
}
