// The operator's read model of one stream: its length and id range, each group's progress (lag,
// entries-read, pending, paused), each consumer's idle time and pending count, the dead-letter
// backlog, delayed jobs, schedules and the fair keys' backlog. `sluice stats` renders it, the dashboard serves it.
import type { Connection, Value } from '../client/connection.js';
import { defaultDeadLetterStream } from './partition.js';
import { pairsToObject } from './replies.js';
import { groupLag, type GroupLag } from './metrics.js';
import { pausedGroups } from './pause.js';
import { delayedKey } from './delayed.js';
import { type Every, listSchedules } from './schedules.js';
import { streamKeyError } from './stream-key-error.js';
import { type FairBacklog, readFairBacklog } from './fairness/lanes.js';

export interface ConsumerStats {
  name: string;
  pending: number;
  idleMs: number;
}

export interface GroupStats {
  /** Paused with `sluice pause` (pauseGroup): its workers take no new entries. */
  paused: boolean;
  name: string;
  pending: number;
  lastDeliveredId: string;
  /** null when Redis reports nil (entries-read unknown). */
  entriesRead: number | null;
  /** null when Redis cannot tell (after deletions). */
  lag: number | null;
  consumers: ConsumerStats[];
}

export interface StreamStats {
  stream: string;
  length: number;
  firstId: string | null;
  lastId: string | null;
  lastGeneratedId: string;
  entriesAdded: number | null;
  groups: GroupStats[];
  deadLetters: { stream: string; length: number | null };
  /** Delayed jobs waiting in STREAM:delayed, and the soonest due time (unix ms, server clock). */
  delayed: { count: number; nextDue: number | null };
  /** Repeating jobs (Producer.schedule) of this stream, soonest first. */
  schedules: Array<{ id: string; every: string; next: number }>;
  /** Jobs waiting in fair keys' lanes (fairness/lanes.ts): how many keys, and the busiest. */
  fair: FairBacklog;
}

const num = (v: Value | undefined): number | null => (v === null || v === undefined ? null : Number(v));
const entryId = (v: Value | undefined): string | null => (Array.isArray(v) && v.length > 0 ? String(v[0]) : null);

/** Reads everything `stats` and the dashboard show; unknown stream and wrong type become a StreamKeyError. */
export async function readStreamStats(conn: Connection, stream: string, deadLetterStream?: string): Promise<StreamStats> {
  let info: Record<string, Value>;
  let lags: GroupLag[];
  try {
    info = pairsToObject(await conn.call('XINFO', 'STREAM', stream));
    lags = await groupLag(conn, stream);
  } catch (err) {
    throw streamKeyError(err, stream);
  }
  const groups: GroupStats[] = [];
  const paused = await pausedGroups(conn, stream);
  for (const g of lags) {
    const consumersRaw = (await conn.call('XINFO', 'CONSUMERS', stream, g.group)) as Value[];
    groups.push({
      name: g.group,
      paused: paused.has(g.group),
      pending: g.pending,
      lastDeliveredId: g.lastDeliveredId,
      entriesRead: g.entriesRead,
      lag: g.lag,
      consumers: consumersRaw.map((c) => {
        const o = pairsToObject(c);
        return { name: String(o['name']), pending: Number(o['pending']), idleMs: Number(o['idle']) };
      }),
    });
  }
  const dlq = deadLetterStream ?? defaultDeadLetterStream(stream);
  let dlqLength: number | null;
  try {
    dlqLength = Number(await conn.call('XLEN', dlq));
  } catch {
    dlqLength = null; // not a stream: reported as unknown rather than failing the whole view
  }
  return {
    stream,
    length: Number(info['length']),
    firstId: entryId(info['first-entry']),
    lastId: entryId(info['last-entry']),
    lastGeneratedId: String(info['last-generated-id']),
    entriesAdded: num(info['entries-added']),
    groups,
    deadLetters: { stream: dlq, length: dlqLength },
    delayed: await readDelayed(conn, stream),
    schedules: (await listSchedules(conn, stream)).map((sc) => ({ id: sc.id, every: describeEvery(sc.every), next: sc.next })),
    fair: await readFairBacklog(conn, stream),
  };
}

async function readDelayed(conn: Connection, stream: string): Promise<StreamStats['delayed']> {
  const [count, first] = (await conn.pipeline([['ZCARD', delayedKey(stream)], ['ZRANGE', delayedKey(stream), 0, 0, 'WITHSCORES']])) as [Value | Error, Value | Error];
  if (count instanceof Error || first instanceof Error) return { count: 0, nextDue: null }; // not a sorted set: nothing the broker wrote
  const head = first as string[];
  return { count: Number(count), nextDue: head.length === 2 ? Number(head[1]) : null };
}

function describeEvery(every: Every): string {
  return 'everyMs' in every ? `${every.everyMs} ms` : `cron ${every.cron}${every.tz ? ` (${every.tz})` : ''}`;
}
