// The main view's data: every stream with its groups, consumers and dead-letter count. Reads
// the same XINFO replies as `sluice stats` (readStreamStats), for all streams at once.
// A dead-letter stream `S:dead` whose source S exists is folded into S (its count), not listed;
// so are a jobs events stream `{S}:events` and completed-jobs archive `{S}:archive`
// (jobs/keys.ts): all are S's keys, not queues.
import type { Connection } from '../client/connection.js';
import { delayedKey } from '../broker/delayed.js';
import type { FairBacklog } from '../broker/fairness/lanes.js';
import { jobKeys } from '../broker/jobs/keys.js';
import { defaultDeadLetterStream } from '../broker/partition.js';
import { readStreamStats, type StreamStats } from '../broker/stream-stats.js';
import { StreamKeyError } from '../broker/stream-key-error.js';
import { findStreams } from './discovery.js';
import { HttpError } from './http.js';

export interface ConsumerView {
  name: string;
  pending: number;
  idleMs: number;
}

export interface GroupView {
  name: string;
  /** Entries not yet delivered to the group; null when Redis cannot tell (after deletions). */
  lag: number | null;
  pending: number;
  lastDeliveredId: string;
  entriesRead: number | null;
  /** Paused with pauseGroup / `sluice pause`: its workers take no new entries. */
  paused: boolean;
  consumers: ConsumerView[];
}

export interface StreamView {
  name: string;
  length: number;
  firstId: string | null;
  lastId: string | null;
  lastGeneratedId: string;
  entriesAdded: number | null;
  /** Entries added per second over the last sampling interval; null before two samples. */
  rate: number | null;
  groups: GroupView[];
  /** Entries in the dead-letter stream; null when that key holds another type. */
  deadLetters: number | null;
  deadLetterStream: string;
  /** Delayed jobs (Producer.add with delayMs / at) not yet due: how many, and the soonest. */
  delayed: { count: number; nextDue: number | null };
  /** Repeating jobs (Producer.schedule): id, interval or cron, next tick (unix ms). */
  schedules: Array<{ id: string; every: string; next: number }>;
  /** Fair keys' backlog (broker/fairness/lanes.ts): keys waiting, jobs waiting, the busiest keys. */
  fair: FairBacklog;
}

export interface Overview {
  streams: StreamView[];
  /** True when there were more streams than the dashboard lists. */
  truncated: boolean;
}

/** Streams read side by side: enough to hide round trips, few enough to spare the server. */
const PARALLEL_READS = 8;

function toView(s: StreamStats, rate: number | null): StreamView {
  return {
    name: s.stream,
    length: s.length,
    firstId: s.firstId,
    lastId: s.lastId,
    lastGeneratedId: s.lastGeneratedId,
    entriesAdded: s.entriesAdded,
    rate,
    groups: s.groups.map((g) => ({
      name: g.name,
      lag: g.lag,
      pending: g.pending,
      lastDeliveredId: g.lastDeliveredId,
      entriesRead: g.entriesRead,
      paused: g.paused,
      consumers: g.consumers,
    })),
    deadLetters: s.deadLetters.length,
    deadLetterStream: s.deadLetters.stream,
    delayed: s.delayed,
    schedules: s.schedules,
    fair: s.fair,
  };
}

/** One stream's view; 404 when it does not exist, 400 when the key is not a stream. */
export async function readStream(conn: Connection, name: string, rateOf: (name: string) => number | null = () => null): Promise<StreamView> {
  try {
    return toView(await readStreamStats(conn, name), rateOf(name));
  } catch (err) {
    if (err instanceof StreamKeyError) throw new HttpError(err.reason === 'missing' ? 404 : 400, err.message);
    throw err;
  }
}

/**
 * The streams whose jobs events stream or completed-jobs archive `name` is (`{S}:events` or
 * `{S}:archive` of S, `S{tag}:events` of `S{tag}`), most likely first; empty when it is
 * neither. `{S}:events` is also `{S}`'s: a stream named with its own hash tag shares the key
 * prefix.
 */
export function jobsStreamSources(name: string): string[] {
  const suffix = name.endsWith(':events') ? ':events' : name.endsWith(':archive') ? ':archive' : null;
  if (suffix === null) return [];
  const prefix = name.slice(0, -suffix.length);
  const candidates = /^\{[^{}]+\}$/.test(prefix) ? [prefix.slice(1, -1), prefix] : [prefix];
  return candidates.filter((s) => s !== '' && (suffix === ':events' ? jobKeys(s).events : jobKeys(s).archive) === name);
}

export interface Listed {
  /** The streams listed, sorted. */
  names: string[];
  /**
   * Queues known only by their events stream or archive: S has no stream yet (all its jobs
   * are delayed) or no more, but `{S}:events` or `{S}:archive` exists. The job view offers them beside `names`.
   */
  jobsOnly: string[];
  truncated: boolean;
}

/**
 * The streams the dashboard lists (up to `limit`, sorted): those SCAN finds, less each listed
 * stream's dead-letter stream (`S:dead`) and every jobs events stream (`{S}:events`) and
 * archive (`{S}:archive`): they are a queue's own keys, not queues.
 */
export async function listedStreams(conn: Connection, limit: number): Promise<Listed> {
  const { names, truncated } = await findStreams(conn, limit);
  const found = new Set(names);
  const deadLetterStreams = new Set(names.map(defaultDeadLetterStream));
  const listed: string[] = [];
  const orphans: string[][] = [];
  for (const name of names) {
    const sources = jobsStreamSources(name);
    if (sources.length === 0) {
      if (!deadLetterStreams.has(name)) listed.push(name);
    } else if (!sources.some((s) => found.has(s))) {
      orphans.push(sources);
    }
  }
  // `{S}:events` alone could be S's or `{S}`'s: the one whose delayed jobs are there.
  const ambiguous = orphans.filter((o) => o.length > 1).flat();
  const replies = ambiguous.length === 0 ? [] : await conn.pipeline(ambiguous.map((s) => ['EXISTS', delayedKey(s)]));
  const delayed = new Set(ambiguous.filter((_, i) => Number(replies[i]) === 1));
  // Its events stream and its archive both name it: once.
  const jobsOnly = [...new Set(orphans.map((o) => o.find((s) => delayed.has(s)) ?? o[0]!))];
  return { names: listed, jobsOnly, truncated };
}

/** Every stream (up to `limit`), sorted by name. */
export async function readOverview(conn: Connection, limit: number, rateOf: (name: string) => number | null = () => null): Promise<Overview> {
  const { names: shown, truncated } = await listedStreams(conn, limit);
  const views: Array<StreamView | null> = new Array(shown.length).fill(null);
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < shown.length) {
      const i = next++;
      try {
        views[i] = await readStream(conn, shown[i]!, rateOf);
      } catch (err) {
        // Deleted (or retyped) between SCAN and XINFO: it is simply no longer there.
        if (!(err instanceof HttpError)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, shown.length) }, reader));
  return { streams: views.filter((v): v is StreamView => v !== null), truncated };
}
