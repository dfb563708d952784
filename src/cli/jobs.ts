// `sluice jobs get|list|counts|remove|promote|retry|clean|drain|obliterate STREAM`: a queue's
// jobs from the command line, through the broker's Queue (jobs/manage.ts for the changes), so
// the CLI, the library and the dashboard act alike. --partitions for a partitioned queue,
// --group when the stream has several consumer groups, --json for machine-readable output.
import type { Command } from 'commander';
import type { Connection } from '../client/connection.js';
import { type CleanState, type JobInfo, JobActiveError, JobStateError, Queue } from '../broker/queue.js';
import { JOB_STATES, type JobState } from '../broker/jobs/record.js';
import { CliError, DEFAULT_URL } from './errors.js';
import { connectOrFail } from './operator-connection.js';
import { renderPairs, renderTable, toJson } from './output.js';

interface JobsFlags {
  url: string;
  json?: boolean;
  partitions?: string;
  group?: string;
  count?: string;
  limit?: string;
  grace?: string;
  force?: boolean;
}

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'server to use', process.env['SLUICE_URL'] ?? DEFAULT_URL)
    .option('--partitions <n>', 'the stream is partitioned over N streams (as Producer/Worker partitions)')
    .option('--group <group>', 'the consumer group whose view waiting/active take (when the stream has several)')
    .option('--json', 'print JSON instead of tables')
    .option('--debug', 'print stack traces of errors');
}

/** Opens the connection and a Queue, runs `fn`, closes both. */
async function withQueue<T>(stream: string, flags: JobsFlags, fn: (q: Queue, conn: Connection) => Promise<T>): Promise<T> {
  const partitions = flags.partitions === undefined ? undefined : Number(flags.partitions);
  if (partitions !== undefined && !(Number.isInteger(partitions) && partitions >= 1)) throw new CliError('--partitions must be a positive integer');
  const conn = await connectOrFail(flags.url);
  const queue = new Queue(conn, { stream, partitions, group: flags.group });
  try {
    return await fn(queue, conn);
  } catch (err) {
    // the broker's job errors are the answer, not a crash: one line, exit 1
    if (err instanceof JobActiveError || err instanceof JobStateError || err instanceof RangeError) throw new CliError(err.message);
    throw err;
  } finally {
    await queue.close();
    await conn.close();
  }
}

const isoTime = (ms: number | undefined): string => (ms !== undefined && ms > 0 ? new Date(ms).toISOString() : '-');

function summary(j: JobInfo): Record<string, unknown> {
  const { id, stream, state, data, opts, key, attemptsMade, addedAt, dueAt, startedAt, finishedAt, returnValue, failedReason, stacktrace, progress, entryId, consumer } = j;
  return { id, stream, state, data, opts, key, attemptsMade, addedAt, dueAt, startedAt, finishedAt, returnValue, failedReason, stacktrace, progress, entryId, consumer };
}

function count(text: string | undefined, name: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new CliError(`invalid ${name} '${text}'`);
  return n;
}

export function register(program: Command): void {
  const jobs = program.command('jobs').description("A queue's jobs: get, list, counts, remove, promote, retry, clean, drain, obliterate");

  withCommonOptions(jobs.command('get').description('Show one job: state, data, options, attempts, result or error, progress'))
    .argument('<stream>', 'the queue (its stream)')
    .argument('<id>', 'job id')
    .action(async (stream: string, id: string, flags: JobsFlags) => {
      await withQueue(stream, flags, async (q) => {
        const j = await q.getJob(id);
        if (j === null) throw new CliError(`no job ${id} in ${stream}`);
        if (flags.json) {
          process.stdout.write(`${toJson(summary(j))}\n`);
          return;
        }
        const pairs: Array<[string, string | number]> = [
          ['id', j.id], ['stream', j.stream], ['state', j.state], ['attempts', j.attemptsMade], ['added', isoTime(j.addedAt)],
          ['due', isoTime(j.dueAt)], ['started', isoTime(j.startedAt)], ['finished', isoTime(j.finishedAt)],
          ['data', JSON.stringify(j.data) ?? '-'], ['options', JSON.stringify(j.opts)], ['key', j.key ?? '-'], ['entry', j.entryId ?? '-'],
          ['consumer', j.consumer ?? '-'], ['progress', JSON.stringify(j.progress) ?? '-'],
        ];
        if (j.state === 'completed') pairs.push(['return value', JSON.stringify(j.returnValue) ?? '-']);
        if (j.failedReason !== undefined) pairs.push(['error', j.failedReason]);
        process.stdout.write(`${renderPairs(pairs)}\n`);
        if (j.stacktrace) process.stdout.write(`\nstack:\n${j.stacktrace}\n`);
      });
    });

  withCommonOptions(jobs.command('list').description('List jobs in a state'))
    .argument('<stream>', 'the queue (its stream)')
    .argument('<state>', JOB_STATES.join(' | '))
    .option('--count <n>', 'at most this many', '100')
    .action(async (stream: string, state: string, flags: JobsFlags) => {
      if (!JOB_STATES.includes(state as JobState)) throw new CliError(`state: one of ${JOB_STATES.join(', ')}`);
      const n = count(flags.count, '--count', 1);
      await withQueue(stream, flags, async (q) => {
        const list = await q.getJobs(state as JobState, 0, n - 1);
        if (flags.json) process.stdout.write(`${toJson(list.map(summary))}\n`);
        else if (list.length === 0) process.stdout.write(`no ${state} jobs in ${stream}\n`);
        else {
          const rows = list.map((j) => [j.id, j.state, j.attemptsMade, isoTime(j.addedAt), isoTime(j.state === 'delayed' ? j.dueAt : j.finishedAt), j.failedReason ?? '']);
          process.stdout.write(`${renderTable(['id', 'state', 'attempts', 'added', state === 'delayed' ? 'due' : 'finished', 'error'], rows)}\n`);
        }
      });
    });

  withCommonOptions(jobs.command('counts').description('How many jobs are in each state'))
    .argument('<stream>', 'the queue (its stream)')
    .action(async (stream: string, flags: JobsFlags) => {
      await withQueue(stream, flags, async (q) => {
        const counts = await q.getJobCounts();
        process.stdout.write(flags.json ? `${toJson(counts)}\n` : `${renderPairs(Object.entries(counts))}\n`);
      });
    });

  withCommonOptions(jobs.command('remove').description('Remove waiting, delayed or finished jobs (not active ones)'))
    .argument('<stream>', 'the queue (its stream)')
    .argument('<ids...>', 'job ids')
    .action(async (stream: string, ids: string[], flags: JobsFlags) => {
      await withQueue(stream, flags, async (q) => {
        const removed: string[] = [];
        for (const id of ids) {
          if (!(await q.remove(id))) throw new CliError(`removed ${removed.length} of ${ids.length}; no job ${id} in ${stream}`);
          removed.push(id);
        }
        process.stdout.write(flags.json ? `${toJson({ removed })}\n` : `removed ${removed.length}\n`);
      });
    });

  for (const [name, describe, verb] of [
    ['promote', 'Move delayed jobs into the stream now', 'promoted'],
    ['retry', 'Run failed (dead-lettered) jobs again, attempts from 0', 'retried'],
  ] as const) {
    withCommonOptions(jobs.command(name).description(describe))
      .argument('<stream>', 'the queue (its stream)')
      .argument('<ids...>', 'job ids')
      .action(async (stream: string, ids: string[], flags: JobsFlags) => {
        await withQueue(stream, flags, async (q) => {
          const done: string[] = [];
          for (const id of ids) {
            try {
              await (name === 'promote' ? q.promote(id) : q.retryJob(id));
            } catch (err) {
              if (err instanceof JobStateError) throw new CliError(`${verb} ${done.length} of ${ids.length}; ${err.message}`);
              throw err;
            }
            done.push(id);
          }
          process.stdout.write(flags.json ? `${toJson({ [verb]: done })}\n` : `${verb} ${done.length}\n`);
        });
      });
  }

  withCommonOptions(jobs.command('clean').description('Remove jobs in a state older than --grace'))
    .argument('<stream>', 'the queue (its stream)')
    .argument('<state>', 'completed | failed | delayed | waiting')
    .option('--grace <ms>', 'only jobs older than this (ms)', '0')
    .option('--limit <n>', 'at most this many (0: all)', '0')
    .action(async (stream: string, state: string, flags: JobsFlags) => {
      if (!['completed', 'failed', 'delayed', 'waiting'].includes(state)) throw new CliError('state: completed, failed, delayed or waiting');
      const grace = count(flags.grace, '--grace', 0);
      const limit = count(flags.limit, '--limit', 0);
      await withQueue(stream, flags, async (q) => {
        const ids = await q.clean(grace, limit, state as CleanState);
        process.stdout.write(flags.json ? `${toJson({ removed: ids })}\n` : `removed ${ids.length} ${state} jobs\n`);
      });
    });

  withCommonOptions(jobs.command('drain').description('Remove every waiting, delayed and prioritized job (active ones run on)'))
    .argument('<stream>', 'the queue (its stream)')
    .action(async (stream: string, flags: JobsFlags) => {
      await withQueue(stream, flags, async (q) => {
        const n = await q.drain();
        process.stdout.write(flags.json ? `${toJson({ removed: n })}\n` : `removed ${n} jobs\n`);
      });
    });

  withCommonOptions(jobs.command('obliterate').description('Delete the queue: its stream(s), jobs, events, delayed jobs, schedules (not its dead letters)'))
    .argument('<stream>', 'the queue (its stream)')
    .option('--force', 'even while workers hold jobs')
    .action(async (stream: string, flags: JobsFlags) => {
      await withQueue(stream, flags, async (q) => {
        await q.obliterate({ force: flags.force === true });
        process.stdout.write(flags.json ? `${toJson({ obliterated: stream })}\n` : `obliterated ${stream}\n`);
      });
    });
}
