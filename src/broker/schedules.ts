// Repeating jobs: schedules kept in a hash beside the stream, `STREAM:schedules` (field = the
// schedule's id, value = JSON { every | cron, tz, fields, next }), and a Scheduler that adds one
// entry per tick. Without Lua: a process WATCHes the hash, checks the schedule is due by the
// server's clock, and in one MULTI adds the entry and moves `next` to the first tick after now;
// a concurrent process that did the same sees its EXEC fail, so a tick yields exactly one entry
// however many schedulers run. Ticks missed while nothing ran are not replayed one by one: the
// first run after the downtime adds one entry and moves on (at most one catch-up).
// Cron expressions (6 fields, seconds first, or 5) and time zones come from `croner`.
import { Cron } from 'croner';
import type { BlockingConnection, Connection, Value } from '../client/connection.js';
import { type Clock, systemClock } from './clock.js';
import { execWatched } from './watched-multi.js';
import { type Codec, encodeEntry, jsonCodec } from './codec.js';

export type Every = { everyMs: number } | { cron: string; tz?: string };

export interface ScheduleInfo {
  id: string;
  every: Every;
  /** The next tick, unix ms (server clock). */
  next: number;
  /** The entry's fields, as the producer encoded them. */
  fields: string[];
}

interface Stored {
  every: Every;
  next: number;
  fields: string[];
}

export function schedulesKey(stream: string): string {
  return `${stream}:schedules`;
}

/** The first tick of `every` strictly after `after` (unix ms). */
export function nextTick(every: Every, after: number): number {
  if ('everyMs' in every) return (Math.floor(after / every.everyMs) + 1) * every.everyMs;
  const next = new Cron(every.cron, { timezone: every.tz, paused: true }).nextRun(new Date(after));
  if (next === null) throw new RangeError(`cron "${every.cron}" has no next run`);
  return next.getTime();
}

function validate(every: Every): void {
  if ('everyMs' in every) {
    if (!(Number.isInteger(every.everyMs) && every.everyMs >= 1)) throw new RangeError('everyMs must be a positive integer');
  } else {
    nextTick(every, Date.now()); // throws on a bad expression or time zone
  }
}

/** Creates or replaces a schedule; its first tick is the next one from now. */
export async function upsertSchedule(conn: Connection, stream: string, id: string, every: Every, payload: unknown, codec: Codec = jsonCodec): Promise<ScheduleInfo> {
  validate(every);
  const stored: Stored = { every, next: nextTick(every, await systemClock.serverNow(conn)), fields: encodeEntry(codec, payload) };
  await conn.call('HSET', schedulesKey(stream), id, JSON.stringify(stored));
  return { id, ...stored };
}

export async function removeSchedule(conn: Connection, stream: string, id: string): Promise<boolean> {
  return Number(await conn.call('HDEL', schedulesKey(stream), id)) === 1;
}

export async function listSchedules(conn: Connection, stream: string): Promise<ScheduleInfo[]> {
  const flat = (await conn.call('HGETALL', schedulesKey(stream))) as Value[];
  const out: ScheduleInfo[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: String(flat[i]), ...(JSON.parse(String(flat[i + 1])) as Stored) });
  return out.sort((a, b) => a.next - b.next || a.id.localeCompare(b.id));
}

export interface SchedulerOptions {
  /** How often it looks for due ticks (default 100 ms). */
  pollMs?: number;
  /** Called with errors of a pass (the scheduler keeps running). */
  onError?: (err: Error) => void;
  /** Whose time says a tick is due: the server's TIME (systemClock) by default. */
  clock?: Clock;
}

/**
 * Adds the entries of due schedules of one stream. Run it in any number of processes (the
 * Worker runs one): each tick is added once.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private connection: BlockingConnection | null = null;
  private readonly clock: Clock;
  private closed = false;

  constructor(
    private readonly conn: Connection,
    private readonly stream: string,
    private readonly options: SchedulerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.running !== null) return;
      this.running = this.tick()
        .then(() => undefined, (err: unknown) => this.options.onError?.(err as Error))
        .finally(() => (this.running = null));
    }, this.options.pollMs ?? 100);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.connection?.close();
  }

  /** For a close that ran out of time: stops now; says whether a tick was left unanswered. */
  abandon(): string[] {
    const busy = this.running !== null;
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    void this.connection?.close({ force: true });
    return busy ? [`${this.stream}: a schedule tick unanswered (one MULTI: its entry added once or not at all)`] : [];
  }

  /** One pass: every due schedule adds its entry. Resolves to how many were added. */
  async tick(): Promise<number> {
    const schedules = await listSchedules(this.conn, this.stream);
    const now = await this.clock.serverNow(this.conn);
    let added = 0;
    for (const s of schedules) if (s.next <= now && (await this.fire(s.id))) added++;
    return added;
  }

  /** WATCH … MULTI XADD + HSET next: false when the tick was taken elsewhere or is not due. */
  private async fire(id: string): Promise<boolean> {
    // WATCH belongs to a connection: use one of our own, never shared with other callers.
    if (this.closed) return false;
    this.connection ??= await this.conn.duplicate();
    if (this.closed) {
      void this.connection.close({ force: true });
      return false;
    }
    const c = this.connection;
    const key = schedulesKey(this.stream);
    await c.call('WATCH', key);
    try {
      const raw = await c.call('HGET', key, id);
      if (raw === null) return false;
      const s = JSON.parse(String(raw)) as Stored;
      const now = await this.clock.serverNow(c);
      if (s.next > now) return false;
      const updated: Stored = { ...s, next: nextTick(s.every, now) };
      const done = await execWatched(c, [
        ['XADD', this.stream, '*', ...s.fields, 'schedule', id, 'tick', String(s.next)],
        ['HSET', key, id, JSON.stringify(updated)],
      ]);
      return done !== null;
    } finally {
      await c.call('UNWATCH').catch(() => {});
    }
  }
}
