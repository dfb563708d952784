// A flow child's outcome, reported to its parent in the same transaction as the child's own
// finish (its XACK, record, event; or its dead letter): no Lua, WATCH … MULTI … EXEC on a link
// of the worker's own (jobs/watch-link.ts), so a crash leaves either both done or neither
// (the child's entry is then still pending, claimed again, and reports again):
//
//   WATCH PARENT:job:P:dependencies PARENT:job:P       (and up the tree when a failure climbs)
//   SISMEMBER dependencies CHILD, SCARD dependencies, HMGET record state flowEntry parent onFailure
//   MULTI
//     the child's own commands (XACK + completion, or XADD dead letter + XACK + failure)
//     SREM dependencies CHILD
//     completed: HSET processed CHILD value      failed + 'ignore': HSET ignored CHILD reason
//     failed + 'fail-parent': the parent fails (record, PREFIX:failed, event deadLettered), and
//       that failure is reported to its own parent the same way, in this MULTI
//     the last child (SCARD was 1), parent not failed: XADD the parent's entry (flowEntry),
//       record state waiting, ZREM waiting-children, event waiting
//   EXEC   (null: a sibling reported meanwhile; read again)
//
// A child no longer in the set (its report was applied, then the worker died before hearing so)
// or a parent no longer waiting (failed by a sibling) adds nothing to the child's own commands.
import type { Arg, BlockingConnection, Value } from '../../client/connection.js';
import { execWatched } from '../watched-multi.js';
import { jobKeys } from '../jobs/keys.js';
import { RecordField } from '../jobs/record.js';
import { eventCommand } from '../jobs/events.js';
import { type JobAddress, memberOf, type ParentLink, parentOf } from './link.js';

export type ChildOutcome = { ok: true; value: string } | { ok: false; reason: string };

const MAX_ROUNDS = 1000;

/**
 * Applies `own` (the child's finish) with the report of its outcome to `parent`, in one
 * transaction; resolves to the EXEC's replies of `own`. Rejects when a command fails.
 */
export async function reportToParent(
  link: BlockingConnection,
  child: JobAddress,
  parent: ParentLink,
  outcome: ChildOutcome,
  own: Arg[][],
  eventsMaxLen: number | null,
): Promise<Value[]> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const commands = [...own, ...(await reportCommands(link, child, parent, outcome, eventsMaxLen))];
    const exec = await execWatched(link, commands.map((c) => c.map(String)));
    if (exec === null) continue;
    const failed = (exec as Array<Value | Error>).find((r) => r instanceof Error);
    if (failed) throw failed;
    return exec.slice(0, own.length);
  }
  throw new Error(`flow: the report of ${child.stream} ${child.id} to its parent kept being overtaken (${MAX_ROUNDS} tries)`);
}

/** WATCHes what the report depends on and returns its commands (each level up the tree that a failure reaches). */
async function reportCommands(link: BlockingConnection, child: JobAddress, parent: ParentLink, outcome: ChildOutcome, eventsMaxLen: number | null): Promise<Arg[][]> {
  const commands: Arg[][] = [];
  const now = Date.now();
  type Level = { child: JobAddress; parent: ParentLink; outcome: ChildOutcome };
  let level: Level | null = { child, parent, outcome };
  while (level !== null) {
    const c: JobAddress = level.child;
    const p: ParentLink = level.parent;
    const o: ChildOutcome = level.outcome;
    level = null;
    const keys = jobKeys(p.stream);
    const deps = keys.dependencies(p.id);
    const record = keys.record(p.id);
    const member = memberOf(c);
    await link.call('WATCH', deps, record);
    const [isMember, left, fields] = await Promise.all([
      link.call('SISMEMBER', deps, member),
      link.call('SCARD', deps),
      link.call('HMGET', record, RecordField.state, RecordField.flowEntry, RecordField.parent, RecordField.onFailure),
    ]);
    const [state, flowEntry, grandparent, policy] = (fields as Array<string | null>).map((v) => (v === null ? undefined : String(v)));
    if (Number(isMember) !== 1 || state !== 'waiting-children') break;
    const event = (name: 'waiting' | 'deadLettered', extra: Arg[] = []): Arg[][] => (eventsMaxLen === null ? [] : [eventCommand(keys.events, eventsMaxLen, name, p.id, extra)]);
    commands.push(['SREM', deps, member]);
    if (o.ok) commands.push(['HSET', keys.processed(p.id), member, o.value]);
    else if (p.onFailure === 'ignore') commands.push(['HSET', keys.ignored(p.id), member, o.reason]);
    if (!o.ok && p.onFailure === 'fail-parent') {
      const reason: string = `child ${c.stream} ${c.id} failed: ${o.reason}`;
      commands.push(
        ['HSET', record, RecordField.state, 'failed', RecordField.finished, now, RecordField.error, reason],
        ['ZREM', keys.waitingChildren, p.id],
        ['ZADD', keys.failed, now, p.id],
        ...event('deadLettered', ['failedReason', reason, 'attemptsMade', 0]),
      );
      const up = parentOf(grandparent, policy);
      if (up !== null) level = { child: { stream: p.stream, id: p.id }, parent: up, outcome: { ok: false, reason } };
      continue;
    }
    if (Number(left) === 1 && flowEntry !== undefined) {
      // The last child: the parent goes into its stream, an ordinary job from here on.
      commands.push(
        ['XADD', p.stream, '*', ...(JSON.parse(flowEntry) as string[])],
        ['HSET', record, RecordField.state, 'waiting'],
        ['ZREM', keys.waitingChildren, p.id],
        ...event('waiting'),
      );
    }
  }
  return commands;
}
