// `sluice dlq list|show|retry|purge STREAM`: inspect and act on a stream's dead letters through
// the broker's DeadLetters (STREAM is the source stream; its dead letters live in STREAM:dead
// unless --dead-letter-stream says otherwise). Retry re-adds each entry to its source stream and
// deletes it from the dead-letter stream only after the re-add succeeded.
import type { Command } from 'commander';
import type { Connection } from '../client/connection.js';
import { DeadLetters, type DeadLetter } from '../broker/dead-letters.js';
import { CliError, DEFAULT_URL, describeError, keyError } from './errors.js';
import { connectOrFail } from './operator-connection.js';
import { renderPairs, renderTable, toJson } from './output.js';

interface DlqFlags {
  url: string;
  json?: boolean;
  all?: boolean;
  count?: string;
  deadLetterStream?: string;
}

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'server to use', process.env['SLUICE_URL'] ?? DEFAULT_URL)
    .option('--dead-letter-stream <key>', 'dead-letter stream (default STREAM:dead)')
    .option('--json', 'print JSON instead of tables')
    .option('--debug', 'print stack traces of errors');
}

/** Opens the connection, runs `fn`, closes. */
async function withDeadLetters<T>(stream: string, flags: DlqFlags, fn: (d: DeadLetters, conn: Connection) => Promise<T>): Promise<T> {
  const conn = await connectOrFail(flags.url);
  const letters = new DeadLetters(conn, { source: stream, deadLetterStream: flags.deadLetterStream });
  try {
    return await fn(letters, conn);
  } finally {
    await conn.close();
  }
}

/** A read of the dead-letter stream: its WRONGTYPE is reported as that key not being a stream. */
async function reading<T>(letters: DeadLetters, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw keyError(err, letters.stream);
  }
}

const isoTime = (ms: number): string => (ms > 0 ? new Date(ms).toISOString() : '-');

function summary(d: DeadLetter): Record<string, unknown> {
  return {
    id: d.id,
    sourceStream: d.sourceStream,
    sourceId: d.sourceId,
    group: d.group,
    consumer: d.consumer,
    deliveries: d.deliveries,
    error: d.error,
    failedAt: d.failedAt,
    fields: d.fields,
  };
}

/** Ids given, or --all; never both, never neither (a bare `retry` should not act on everything). */
function selection(ids: string[], flags: DlqFlags, verb: string): string[] | undefined {
  if (flags.all && ids.length > 0) throw new CliError(`${verb}: give ids or --all, not both`);
  if (!flags.all && ids.length === 0) throw new CliError(`${verb}: give the dead-letter ids to ${verb}, or --all`);
  return flags.all ? undefined : ids;
}

async function requireExisting(letters: DeadLetters, ids: string[]): Promise<void> {
  for (const id of ids) {
    if ((await letters.get(id)) === null) throw new CliError(`no dead letter ${id} in ${letters.stream}`);
  }
}

export function register(program: Command): void {
  const dlq = program.command('dlq').description('Dead letters of a stream: list, show, retry, purge');

  withCommonOptions(dlq.command('list').description('List dead letters, oldest first'))
    .argument('<stream>', 'source stream')
    .option('--count <n>', 'at most this many', '100')
    .action(async (stream: string, flags: DlqFlags) => {
      const count = Number(flags.count);
      if (!Number.isInteger(count) || count <= 0) throw new CliError(`invalid --count '${flags.count}'`);
      await withDeadLetters(stream, flags, async (letters) => {
        const list = await reading(letters, () => letters.list({ count }));
        if (flags.json) {
          process.stdout.write(`${toJson(list.map(summary))}\n`);
        } else if (list.length === 0) {
          process.stdout.write(`no dead letters in ${letters.stream}\n`);
        } else {
          const rows = list.map((d) => [d.id, d.sourceId, d.group, d.consumer, d.deliveries, isoTime(d.failedAt), d.error]);
          process.stdout.write(`${renderTable(['id', 'original-id', 'group', 'consumer', 'deliveries', 'failed-at', 'last-error'], rows)}\n`);
        }
      });
    });

  withCommonOptions(dlq.command('show').description('Show one dead letter with its original fields'))
    .argument('<stream>', 'source stream')
    .argument('<id>', 'id in the dead-letter stream')
    .action(async (stream: string, id: string, flags: DlqFlags) => {
      await withDeadLetters(stream, flags, async (letters) => {
        const d = await reading(letters, () => letters.get(id));
        if (d === null) throw new CliError(`no dead letter ${id} in ${letters.stream}`);
        if (flags.json) {
          process.stdout.write(`${toJson(summary(d))}\n`);
          return;
        }
        const meta: Array<[string, string | number]> = [
          ['id', d.id], ['source stream', d.sourceStream], ['original id', d.sourceId], ['group', d.group],
          ['consumer', d.consumer], ['deliveries', d.deliveries], ['failed at', isoTime(d.failedAt)], ['last error', d.error],
        ];
        const fields: Array<[string, string]> = [];
        for (let i = 0; i + 1 < d.pairs.length; i += 2) fields.push([d.pairs[i]!, d.pairs[i + 1]!]);
        process.stdout.write(`${renderPairs(meta)}\n\nfields:\n${renderPairs(fields.map(([k, v]) => [`  ${k}`, v]))}\n`);
      });
    });

  withCommonOptions(dlq.command('retry').description('Re-add dead letters to their source stream, then remove them'))
    .argument('<stream>', 'source stream')
    .argument('[ids...]', 'ids in the dead-letter stream')
    .option('--all', 'retry every dead letter')
    .action(async (stream: string, ids: string[], flags: DlqFlags) => {
      const chosen = selection(ids, flags, 'retry');
      await withDeadLetters(stream, flags, async (letters) => {
        const ids = chosen ?? (await reading(letters, () => allIds(letters)));
        await reading(letters, () => requireExisting(letters, ids));
        // One at a time, so a failure says exactly what was and was not retried.
        const done: Array<{ id: string; newId: string }> = [];
        for (const id of ids) {
          let added: string[];
          try {
            added = await letters.retry([id]);
          } catch (err) {
            const d = await letters.get(id).catch(() => null);
            throw new CliError(`retried ${done.length} of ${ids.length}; ${id} kept in ${letters.stream}: re-adding it to '${d?.sourceStream ?? '?'}' failed: ${describeError(err)}`);
          }
          for (const newId of added) done.push({ id, newId });
        }
        if (flags.json) process.stdout.write(`${toJson({ retried: done.length, entries: done })}\n`);
        else {
          for (const p of done) process.stdout.write(`${p.id} -> ${p.newId}\n`);
          process.stdout.write(`retried ${done.length}\n`);
        }
      });
    });

  withCommonOptions(dlq.command('purge').description('Delete dead letters without retrying them'))
    .argument('<stream>', 'source stream')
    .argument('[ids...]', 'ids in the dead-letter stream')
    .option('--all', 'delete every dead letter')
    .action(async (stream: string, ids: string[], flags: DlqFlags) => {
      const chosen = selection(ids, flags, 'purge');
      await withDeadLetters(stream, flags, async (letters) => {
        const n = await reading(letters, () => letters.purge(chosen));
        process.stdout.write(flags.json ? `${toJson({ purged: n })}\n` : `purged ${n}\n`);
      });
    });
}

/** Ids of every dead letter, oldest first: what retry --all will act on, in its order. */
async function allIds(letters: DeadLetters): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await letters.list({ count: 500, after });
    ids.push(...page.map((d) => d.id));
    if (page.length < 500) return ids;
    after = page[page.length - 1]!.id;
  }
}
