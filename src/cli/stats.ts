// `sluice stats STREAM`: what an operator asks first about a stream: its length and id range,
// each group's progress (lag, entries-read, pending), each consumer's idle time and pending
// count, and the dead-letter backlog. A table on a terminal, --json for scripts, --watch to follow.
import type { Command } from 'commander';
import type { Connection, Value } from '../client/connection.js';
import { defaultDeadLetterStream } from '../broker/partition.js';
import { pairsToObject } from '../broker/replies.js';
import { groupLag, type GroupLag } from '../broker/metrics.js';
import { pausedGroups } from '../broker/pause.js';
import { delayedKey } from '../broker/delayed.js';
import { type Every, listSchedules } from '../broker/schedules.js';
import { DEFAULT_URL, keyError, CliError } from './errors.js';
import { connectOrFail } from './operator-connection.js';
import { renderPairs, renderTable, toJson, watch } from './output.js';

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
}

const num = (v: Value | undefined): number | null => (v === null || v === undefined ? null : Number(v));
const entryId = (v: Value | undefined): string | null => (Array.isArray(v) && v.length > 0 ? String(v[0]) : null);

/** Reads everything `stats` shows; unknown stream and wrong type become one-line CLI errors. */
export async function readStreamStats(conn: Connection, stream: string, deadLetterStream?: string): Promise<StreamStats> {
  let info: Record<string, Value>;
  let lags: GroupLag[];
  try {
    info = pairsToObject(await conn.call('XINFO', 'STREAM', stream));
    lags = await groupLag(conn, stream);
  } catch (err) {
    throw keyError(err, stream);
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

/** The human view: a summary, a group table and a consumer table. */
export function renderStreamStats(s: StreamStats): string {
  const parts = [
    renderPairs([
      ['stream', s.stream],
      ['length', s.length],
      ['first id', s.firstId],
      ['last id', s.lastId],
      ['last generated id', s.lastGeneratedId],
      ['entries added', s.entriesAdded],
      [`dead letters (${s.deadLetters.stream})`, s.deadLetters.length],
      ['delayed', s.delayed.nextDue === null ? s.delayed.count : `${s.delayed.count}, next due ${new Date(s.delayed.nextDue).toISOString()}`],
    ]),
  ];
  if (s.groups.length === 0) {
    parts.push('no consumer groups');
  } else {
    parts.push(
      renderTable(
        ['group', 'state', 'consumers', 'pending', 'last-delivered-id', 'entries-read', 'lag'],
        s.groups.map((g) => [g.name, g.paused ? 'paused' : 'running', g.consumers.length, g.pending, g.lastDeliveredId, g.entriesRead, g.lag]),
      ),
    );
    const rows = s.groups.flatMap((g) => g.consumers.map((c) => [g.name, c.name, c.pending, c.idleMs]));
    parts.push(rows.length === 0 ? 'no consumers' : renderTable(['group', 'consumer', 'pending', 'idle-ms'], rows));
  }
  if (s.schedules.length > 0) {
    parts.push(renderTable(['schedule', 'every', 'next'], s.schedules.map((sc) => [sc.id, sc.every, new Date(sc.next).toISOString()])));
  }
  return parts.join('\n\n');
}

interface StatsFlags {
  url: string;
  json?: boolean;
  watch?: boolean;
  interval: string;
  count?: string;
  deadLetterStream?: string;
}

export function register(program: Command): void {
  program
    .command('stats')
    .description('Length, id range, groups (lag, pending), consumers (idle) and dead letters of a stream')
    .argument('<stream>', 'stream key')
    .option('--url <url>', 'server to ask', process.env['SLUICE_URL'] ?? DEFAULT_URL)
    .option('--json', 'print JSON instead of tables')
    .option('--watch', 'refresh in place until interrupted')
    .option('--interval <ms>', 'refresh interval of --watch', '1000')
    .option('--count <n>', 'with --watch: stop after n refreshes')
    .option('--dead-letter-stream <key>', 'dead-letter stream (default STREAM:dead)')
    .option('--debug', 'print stack traces of errors')
    .action(async (stream: string, flags: StatsFlags) => {
      const interval = Number(flags.interval);
      if (!Number.isInteger(interval) || interval <= 0) throw new CliError(`invalid --interval '${flags.interval}'`);
      const count = flags.count === undefined ? undefined : Number(flags.count);
      if (count !== undefined && (!Number.isInteger(count) || count <= 0)) throw new CliError(`invalid --count '${flags.count}'`);
      const conn = await connectOrFail(flags.url);
      try {
        const frame = async (): Promise<string> => {
          const s = await readStreamStats(conn, stream, flags.deadLetterStream);
          return flags.json ? toJson(s) : renderStreamStats(s);
        };
        if (!flags.watch) {
          process.stdout.write(`${await frame()}\n`);
          return;
        }
        const stop = new AbortController();
        process.once('SIGINT', () => stop.abort());
        await watch(frame, { intervalMs: interval, iterations: count, signal: stop.signal });
      } finally {
        await conn.close();
      }
    });
}
