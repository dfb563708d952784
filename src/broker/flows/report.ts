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
//       record state waiting, ZREM waiting-children, event waiting; a parent with a delay goes
//       to its stream's delayed set instead (due: the server's TIME, read then, + delay), one
//       with a priority to its prioritized set (and a wake entry for idle workers)
//   EXEC   (null: a sibling reported meanwhile; read again)
//
// A child no longer in the set (its report was applied, then the worker died before hearing so)
// or a parent no longer waiting (failed by a sibling) adds nothing to the child's own commands.
import type { Arg, BlockingConnection, Value } from '../../client/connection.js';
import { execWatched } from '../watched-multi.js';
import { jobKeys } from '../jobs/keys.js';
import { RecordField } from '../jobs/record.js';
import { eventCommand } from '../jobs/events.js';
import { delayedKey, encodeDelayedMember, serverTimeMs } from '../delayed.js';
import { PRIORITY_FIELD, PriorityOrder, prioritizedAdd, WAKE_FIELD } from '../jobs/priority.js';
import { type JobAddress, memberOf, type ParentLink, parentOf } from './link.js';

export type ChildOutcome = { ok: true; value: string } | { ok: false; reason: string };

/** One child's finish (`own`: its XACK and record, or its dead letter) and its outcome for its parent. */
export interface Report {
  child: JobAddress;
  parent: ParentLink;
  outcome: ChildOutcome;
  own: Arg[][];
}

const MAX_ROUNDS = 1000;

/** The order keys of the parents this process moves to a prioritized set. */
const priorityOrder = new PriorityOrder();

/**
 * Applies each report's `own` commands with the report of its outcome to its parent, all in one
 * transaction (the reports a worker's children made in one turn: siblings share one WATCH and
 * one EXEC). Rejects when a command fails (none of them then happened).
 */
export async function reportToParents(link: BlockingConnection, reports: Report[], eventsMaxLen: number | null): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const commands = await plan(link, reports, eventsMaxLen);
    const exec = await execWatched(link, commands.map((c) => c.map(String)));
    if (exec === null) continue;
    const failed = (exec as Array<Value | Error>).find((r) => r instanceof Error);
    if (failed) throw failed;
    return;
  }
  throw new Error(`flow: the reports to ${reports[0]?.parent.id} kept being overtaken (${MAX_ROUNDS} tries)`);
}

/** One report alone (tests; the worker batches through reportToParents). */
export function reportToParent(link: BlockingConnection, child: JobAddress, parent: ParentLink, outcome: ChildOutcome, own: Arg[][], eventsMaxLen: number | null): Promise<void> {
  return reportToParents(link, [{ child, parent, outcome, own }], eventsMaxLen);
}

/** What this transaction knows of a parent: read under WATCH, then as its commands change it. */
interface ParentState {
  left: number;
  state: string | undefined;
  flowEntry: string | undefined;
  grandparent: string | undefined;
  policy: string | undefined;
  /** The parent's own priority and delay (ms), applied when it leaves waiting-children. */
  priority: string | undefined;
  delay: string | undefined;
  /** Child member → still pending (as read, then as this transaction's SREMs leave it). */
  members: Map<string, boolean>;
}

/** WATCHes a parent's set and record and reads them, with these members' SISMEMBER (one round trip). */
async function load(link: BlockingConnection, p: JobAddress, members: string[]): Promise<ParentState> {
  const keys = jobKeys(p.stream);
  const deps = keys.dependencies(p.id);
  const record = keys.record(p.id);
  const [, left, fields, ...is] = await Promise.all([
    link.call('WATCH', deps, record),
    link.call('SCARD', deps),
    link.call('HMGET', record, RecordField.state, RecordField.flowEntry, RecordField.parent, RecordField.onFailure, RecordField.priority, RecordField.delay),
    ...members.map((m) => link.call('SISMEMBER', deps, m)),
  ]);
  const [state, flowEntry, grandparent, policy, priority, delay] = (fields as Array<string | null>).map((v) => (v === null ? undefined : String(v)));
  return { left: Number(left), state, flowEntry, grandparent, policy, priority, delay, members: new Map(members.map((m, i) => [m, Number(is[i]) === 1])) };
}

/** The transaction's commands: each report's own, then its effect on its parent (and up the tree when a failure climbs). */
async function plan(link: BlockingConnection, reports: Report[], eventsMaxLen: number | null): Promise<Arg[][]> {
  const now = Date.now();
  const parents = new Map<string, ParentState>();
  const keyOf = (p: JobAddress): string => memberOf(p);
  // The direct parents, all read in one round trip.
  const first = new Map<string, { p: JobAddress; members: string[] }>();
  for (const r of reports) {
    const k = keyOf(r.parent);
    const entry = first.get(k) ?? { p: r.parent, members: [] };
    entry.members.push(memberOf(r.child));
    first.set(k, entry);
  }
  const loaded = await Promise.all([...first.values()].map((e) => load(link, e.p, e.members)));
  [...first.keys()].forEach((k, i) => parents.set(k, loaded[i]!));

  const commands: Arg[][] = [];
  for (const r of reports) {
    for (const c of r.own) commands.push(c);
    let level: { child: JobAddress; parent: ParentLink; outcome: ChildOutcome } | null = { child: r.child, parent: r.parent, outcome: r.outcome };
    while (level !== null) {
      const c: JobAddress = level.child;
      const p: ParentLink = level.parent;
      const o: ChildOutcome = level.outcome;
      level = null;
      const member = memberOf(c);
      let ps = parents.get(keyOf(p));
      if (ps === undefined) {
        ps = await load(link, p, [member]);
        parents.set(keyOf(p), ps);
      }
      if (!ps.members.has(member)) {
        const deps = jobKeys(p.stream).dependencies(p.id);
        ps.members.set(member, Number(await link.call('SISMEMBER', deps, member)) === 1);
      }
      if (ps.members.get(member) !== true || ps.state !== 'waiting-children') break;
      ps.members.set(member, false);
      ps.left--;
      const keys = jobKeys(p.stream);
      const record = keys.record(p.id);
      const event = (name: 'waiting' | 'delayed' | 'deadLettered', extra: Arg[] = []): Arg[][] => (eventsMaxLen === null ? [] : [eventCommand(keys.events, eventsMaxLen, name, p.id, extra)]);
      commands.push(['SREM', keys.dependencies(p.id), member]);
      if (o.ok) commands.push(['HSET', keys.processed(p.id), member, o.value]);
      else if (p.onFailure === 'ignore') commands.push(['HSET', keys.ignored(p.id), member, o.reason]);
      if (!o.ok && p.onFailure === 'fail-parent') {
        const reason: string = `child ${c.stream} ${c.id} failed: ${o.reason}`;
        ps.state = 'failed';
        commands.push(
          ['HSET', record, RecordField.state, 'failed', RecordField.finished, now, RecordField.error, reason],
          ['ZREM', keys.waitingChildren, p.id],
          ['ZADD', keys.failed, now, p.id],
          ...event('deadLettered', ['failedReason', reason, 'attemptsMade', 0]),
        );
        const up = parentOf(ps.grandparent, ps.policy);
        if (up !== null) level = { child: { stream: p.stream, id: p.id }, parent: up, outcome: { ok: false, reason } };
        continue;
      }
      if (ps.left === 0 && ps.flowEntry !== undefined) {
        // The last child: the parent goes into its stream (or, with a delay or a priority, to
        // the set a worker moves it in from), an ordinary job from here on.
        const entry = JSON.parse(ps.flowEntry) as string[];
        const priorityFields = ps.priority === undefined ? [] : [PRIORITY_FIELD, ps.priority];
        commands.push(['ZREM', keys.waitingChildren, p.id]);
        if (ps.delay !== undefined) {
          ps.state = 'delayed';
          const delay = Number(ps.delay);
          const due = (await serverTimeMs(link)) + delay;
          commands.push(
            ['ZADD', delayedKey(p.stream), due, encodeDelayedMember(p.id, [...entry, ...priorityFields])],
            ['HSET', record, RecordField.state, 'delayed', RecordField.due, due],
            ...event('delayed', ['due', due, 'delay', delay]),
          );
        } else if (ps.priority !== undefined) {
          ps.state = 'prioritized';
          commands.push(
            prioritizedAdd(p.stream, Number(ps.priority), priorityOrder.next(now), p.id, [...entry, ...priorityFields]),
            ['HSET', record, RecordField.state, 'prioritized'],
            ['XADD', p.stream, '*', WAKE_FIELD, 'prioritized'], // idle workers look at the set
            ...event('waiting'),
          );
        } else {
          ps.state = 'waiting';
          commands.push(['XADD', p.stream, '*', ...entry], ['HSET', record, RecordField.state, 'waiting'], ...event('waiting'));
        }
      }
    }
  }
  return commands;
}
