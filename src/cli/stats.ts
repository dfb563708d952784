// `sluice stats STREAM`: what an operator asks first about a stream: its length and id range,
// each group's progress (lag, entries-read, pending), each consumer's idle time and pending
// count, and the dead-letter backlog (read by broker/stream-stats.ts). A table on a terminal,
// --json for scripts, --watch to follow.
import type { Command } from 'commander';
import { readStreamStats, type StreamStats } from '../broker/stream-stats.js';
import { DEFAULT_URL, keyError, CliError } from './errors.js';
import { connectOrFail } from './operator-connection.js';
import { renderPairs, renderTable, toJson, watch } from './output.js';

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
  if (s.fair.keys > 0) {
    parts.push(`fair keys: ${s.fair.keys}, ${s.fair.waiting} jobs waiting in their lanes`);
    parts.push(renderTable(['fair key', 'waiting'], s.fair.top.map((k) => [k.key, k.waiting])));
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
          const s = await readStreamStats(conn, stream, flags.deadLetterStream).catch((err: unknown) => {
            throw keyError(err, stream);
          });
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
