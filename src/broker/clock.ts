// The broker's two clocks, in one injectable object. The server's (TIME) decides what is due,
// so every process agrees: schedule ticks. This process's paces its own work: how often the safe
// trim runs. Production uses the real ones (systemClock); a test passes a clock set ahead
// instead of sleeping until the time has come, which makes "not yet" and "now" exact.
import type { Connection } from '../client/connection.js';
import { serverTimeMs } from './delayed.js';

export interface Clock {
  /** This process's time, unix ms. */
  now(): number;
  /** The server's time, unix ms. */
  serverNow(conn: Connection): Promise<number>;
}

export const systemClock: Clock = { now: Date.now, serverNow: serverTimeMs };
