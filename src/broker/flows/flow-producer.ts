// FlowProducer: adds a tree of jobs (a parent, its children, their children; each node on any
// stream) in ONE MULTI/EXEC, so no crash leaves a parent without its children recorded:
//
//   per node      HSET PREFIX:job:ID (data, added, opts, key, parent, onFailure, children)
//   a parent      + flowEntry (its entry's fields), state waiting-children,
//                 SADD PREFIX:job:ID:dependencies CHILD…, ZADD PREFIX:waiting-children ADDED ID
//   a leaf        XADD STREAM * payload … job-id ID [opts] [flow-parent flow-on-failure], state waiting;
//                 with delayMs, a member of STREAM:delayed instead (state delayed; delayed.ts), with
//                 a priority (and no delay), of PREFIX:prioritized (state prioritized; jobs/priority.ts)
//   and an `added` event per node (`delayed` for a delayed leaf).
// A parent's own delayMs and priority are kept in its record and apply once its last child
// reports (report.ts): it then goes to the delayed or prioritized set instead of its stream.
// Due times are on the server's clock (TIME, read once per add that has a delay).
//
// Ids given (`jobId`) make the add idempotent: the records of those ids are WATCHed and checked
// on a link of the FlowProducer's own (jobs/watch-link.ts) before the MULTI. A root whose record
// exists means this flow was added already: nothing is written, add() resolves to the tree as
// its records say. Another given id that exists under a new root is refused (FlowJobIdError), so
// a flow never overwrites a job. Two adds racing on one root id make one flow (the second's EXEC
// is aborted by the first's writes, and it then finds the root).
//
// A parent reaches its stream when its last child reports (report.ts, in the child's worker).
// On Redis Cluster the MULTI and the reports must stay in one slot: every stream of a flow must
// share one hash tag (`{shop}orders`, `{shop}mails`); add() checks it and says which do not.
import { randomBytes } from 'node:crypto';
import { archivedEntries } from '../jobs/archive.js';
import type { Arg, Connection, Value } from '../../client/connection.js';
import { ClusterConnection } from '../../client/cluster-connection.js';
import { type Codec, encodeEntry, Fields, jsonCodec } from '../codec.js';
import { eventCommand, type EventsOption, eventsMaxLen } from '../jobs/events.js';
import { encodeJobOptions, type PerJobOptions } from '../jobs/job-options.js';
import { jobKeys } from '../jobs/keys.js';
import { RecordField } from '../jobs/record.js';
import { linkEntries } from '../jobs/entry-link.js';
import { keySlot, slotPrefix } from '../partition.js';
import { delayedKey, encodeDelayedMember, serverTimeMs } from '../delayed.js';
import { PRIORITY_FIELD, PriorityOrder, prioritizedAdd, prioritizedKey, priorityOf, wakeIfFirst } from '../jobs/priority.js';
import { FlowFields, type JobAddress, memberOf, ON_FAILURE, type OnFailure } from './link.js';
import { type FlowTree, readFlow } from './tree.js';
import { WatchLink } from '../jobs/watch-link.js';
import { execWatched } from '../watched-multi.js';

export type { OnFailure, FlowTree, JobAddress };

/** A job's options in a flow. */
export interface FlowJobOptions extends Pick<PerJobOptions, 'attempts' | 'backoff' | 'removeOnComplete' | 'removeOnFail'> {
  /**
   * The job's id (default: a random one). A root whose id exists already makes add() a no-op
   * resolving to the existing flow; another node whose id exists fails the add (FlowJobIdError).
   */
  jobId?: string;
  /** The partition / ordering key the entry carries (as Producer.add's `key`). */
  key?: string;
  /**
   * A child's failure for good (dead-lettered), for its parent: 'fail-parent' (the default: the
   * parent fails, its reason names the child), 'ignore' (counts as done, its value absent, the
   * failure kept: getIgnoredFailures), 'remove' (the dependency is dropped, the parent goes on).
   */
  onFailure?: OnFailure;
  /**
   * Wait this long before running: a leaf from the add on, a parent from when its last child
   * reports (as BullMQ's flows). Moved in by the Workers' DelayedMover.
   */
  delayMs?: number;
  /** 1 (the highest) .. 2^21, as Producer.add's: the job waits in its stream's prioritized set. */
  priority?: number;
}

/** A node of the tree to add. */
export interface FlowJob<T = unknown> {
  /** The stream its entry goes to (its workers' stream); children may be on other streams. */
  stream: string;
  data: T;
  opts?: FlowJobOptions;
  /** Jobs that must finish before this one runs. */
  children?: FlowJob[];
}

/** What add() made: each node's id and stream, as the tree given. */
export interface FlowNode {
  id: string;
  stream: string;
  children: FlowNode[];
}

export interface FlowProducerOptions {
  /** The codec of every node's payload (the Workers' codec; JSON by default). */
  codec?: Codec;
  /** The queues' events streams, as the Producer's `events`. */
  events?: EventsOption;
}

/** add() on Redis Cluster: the flow's streams are in different slots. */
export class FlowSlotError extends Error {
  constructor(readonly streams: string[]) {
    super(
      `a flow's streams must share one hash tag on Redis Cluster (the flow is written in one MULTI, and each child reports to its parent in another): ${streams.map((s) => `${s} (slot ${keySlot(slotPrefix(s))})`).join(', ')}; name them with a common tag, e.g. {flow}${bare(streams[0]!)} and {flow}${bare(streams[1] ?? streams[0]!)}`,
    );
    this.name = 'FlowSlotError';
  }
}

/** add(): a job id given to a node (not the root) is taken already; nothing was written. */
export class FlowJobIdError extends Error {
  constructor(
    readonly stream: string,
    readonly jobId: string,
  ) {
    super(`flow: job ${jobId} exists already on ${stream} (a flow never overwrites a job; the root's id alone makes an add a repeat of an earlier one)`);
    this.name = 'FlowJobIdError';
  }
}

function bare(stream: string): string {
  return stream.replace(/\{[^}]*\}/, '') || 'jobs';
}

export class FlowProducer {
  private readonly codec: Codec;
  private readonly eventsMaxLen: number | null;
  private readonly priorityOrder = new PriorityOrder();
  private readonly watch: WatchLink;

  constructor(
    private readonly conn: Connection,
    options: FlowProducerOptions = {},
  ) {
    this.codec = options.codec ?? jsonCodec;
    this.eventsMaxLen = eventsMaxLen(options.events);
    this.watch = new WatchLink(conn);
  }

  /** Closes the link idempotent adds check on (made on first use, closed after a second idle anyway). */
  close(): Promise<void> {
    return this.watch.close();
  }

  /** The flow below (and including) a job, as its records say now; null when it has no record. */
  getFlow(job: JobAddress): Promise<FlowTree | null> {
    return readFlow(this.conn, job);
  }

  /** Adds the tree in one transaction; resolves to its nodes' ids. */
  async add<T>(flow: FlowJob<T>): Promise<FlowNode> {
    const commands: Arg[][] = [];
    const leaves: Array<{ at: number; stream: string; id: string }> = [];
    /** The record keys of the ids given, the root's first when it has one. */
    const given: Array<{ key: string; stream: string; id: string; root: boolean }> = [];
    const streams = new Set<string>();
    /** Per stream, how many prioritized leaves this add puts in its set. */
    const prioritized = new Map<string, number>();
    const now = Date.now();
    const serverNow = hasDelay(flow) ? await serverTimeMs(this.conn) : now;
    const build = (node: FlowJob, parent: { stream: string; id: string; onFailure: OnFailure } | null): FlowNode => {
      if (typeof node?.stream !== 'string' || node.stream.length === 0) throw new RangeError('flow: every job needs a stream');
      const o = node.opts ?? {};
      const onFailure = o.onFailure ?? 'fail-parent';
      if (!ON_FAILURE.includes(onFailure)) throw new RangeError(`onFailure: one of ${ON_FAILURE.join(', ')}`);
      const id = o.jobId ?? `${now.toString(36)}${randomBytes(9).toString('base64url')}`;
      if (id.length === 0) throw new RangeError('jobId must not be empty');
      if (o.jobId !== undefined) given.push({ key: jobKeys(node.stream).record(id), stream: node.stream, id, root: parent === null });
      const priority = priorityOf(o.priority);
      const delayMs = o.delayMs === undefined || o.delayMs === 0 ? undefined : o.delayMs;
      if (delayMs !== undefined && !(Number.isFinite(delayMs) && delayMs > 0)) throw new RangeError('delayMs must be a finite number >= 0');
      streams.add(node.stream);
      const keys = jobKeys(node.stream);
      const opts = encodeJobOptions({ attempts: o.attempts, backoff: o.backoff, removeOnComplete: o.removeOnComplete, removeOnFail: o.removeOnFail });
      const entry: string[] = [...encodeEntry(this.codec, node.data, o.key), Fields.jobId, id];
      if (opts !== undefined) entry.push(Fields.opts, opts);
      const record: Arg[] = ['HSET', keys.record(id), RecordField.data, this.codec.encode(node.data), RecordField.added, now];
      if (opts !== undefined) record.push(RecordField.opts, opts);
      if (o.key !== undefined) record.push(RecordField.key, o.key);
      if (parent !== null) {
        entry.push(FlowFields.parent, memberOf(parent), FlowFields.onFailure, parent.onFailure);
        record.push(RecordField.parent, memberOf(parent), RecordField.onFailure, parent.onFailure);
      }
      if (priority !== undefined) record.push(RecordField.priority, priority);
      const children = node.children ?? [];
      const made: FlowNode = { id, stream: node.stream, children: [] };
      commands.push(record);
      const priorityFields = priority === undefined ? [] : [PRIORITY_FIELD, String(priority)];
      let event: { name: 'added' | 'delayed'; fields: Arg[] } = { name: 'added', fields: [] };
      if (children.length === 0 && delayMs !== undefined) {
        // With a priority too, the mover puts it into the prioritized set when it is due.
        const due = Math.floor(serverNow + delayMs);
        record.push(RecordField.due, due);
        commands.push(['ZADD', delayedKey(node.stream), due, encodeDelayedMember(id, [...entry, ...priorityFields])]);
        commands.push(['HSET', keys.record(id), RecordField.state, 'delayed']);
        event = { name: 'delayed', fields: ['due', due, 'delay', delayMs] };
      } else if (children.length === 0 && priority !== undefined) {
        commands.push(prioritizedAdd(node.stream, priority, this.priorityOrder.next(serverNow), id, [...entry, ...priorityFields]));
        commands.push(['HSET', keys.record(id), RecordField.state, 'prioritized']);
        prioritized.set(node.stream, (prioritized.get(node.stream) ?? 0) + 1);
        event = { name: 'added', fields: ['priority', priority] };
      } else if (children.length === 0) {
        leaves.push({ at: commands.length, stream: node.stream, id });
        commands.push(['XADD', node.stream, '*', ...entry]);
        commands.push(['HSET', keys.record(id), RecordField.state, 'waiting']);
      } else {
        if (delayMs !== undefined) record.push(RecordField.delay, delayMs);
        const at = commands.length;
        commands.push([]); // the SADD, once the children's ids are known
        made.children = children.map((c) => build(c, { stream: node.stream, id, onFailure: c.opts?.onFailure ?? 'fail-parent' }));
        const members = made.children.map(memberOf);
        if (new Set(members).size !== members.length) throw new RangeError(`flow: job ${id} has two children with one id`);
        commands[at] = ['SADD', keys.dependencies(id), ...members];
        commands.push(
          ['HSET', keys.record(id), RecordField.state, 'waiting-children', RecordField.flowEntry, JSON.stringify(entry), RecordField.children, JSON.stringify(made.children.map((c) => [c.stream, c.id]))],
          ['ZADD', keys.waitingChildren, now, id],
        );
      }
      if (this.eventsMaxLen !== null) commands.push(eventCommand(keys.events, this.eventsMaxLen, event.name, id, event.fields));
      return made;
    };
    const root = build(flow, null);
    if (this.conn instanceof ClusterConnection) {
      const slots = new Map<number, string>();
      for (const s of streams) slots.set(keySlot(slotPrefix(s)), s);
      if (slots.size > 1) throw new FlowSlotError([...slots.values()]);
    }
    // Each stream's prioritized set's size last: whether idle workers need a wake (priority.ts).
    const cards = [...prioritized.keys()];
    for (const stream of cards) commands.push(['ZCARD', prioritizedKey(stream)]);
    const replies = given.length === 0 ? await this.conn.multi(commands) : await this.addOnce(given, commands);
    if (replies === null) {
      // Added before: its tree as its records say (just the root when they were removed since).
      const tree = await readFlow(this.conn, { stream: flow.stream, id: root.id });
      return tree === null ? { id: root.id, stream: root.stream, children: [] } : toNode(tree);
    }
    const firstCard = replies.length - cards.length;
    await Promise.all(cards.map((stream, i) => wakeIfFirst(this.conn, stream, replies[firstCard + i]!, prioritized.get(stream)!)));
    // Waiting leaves' records learn their entries' ids (as a Producer's adds: jobs/entry-link.ts).
    const byStream = new Map<string, Array<{ jobId: string; entryId: string }>>();
    for (const l of leaves) {
      const list = byStream.get(l.stream) ?? [];
      list.push({ jobId: l.id, entryId: String(replies[l.at]) });
      byStream.set(l.stream, list);
    }
    for (const [stream, links] of byStream) linkEntries(this.conn, stream, links, () => {});
    return root;
  }

  /**
   * The MULTI, under WATCH of the given ids' records, when none exists; null when the root's
   * does (the flow is there already). An aborted EXEC (one of them was written meanwhile) checks again.
   */
  private addOnce(given: Array<{ key: string; stream: string; id: string; root: boolean }>, commands: Arg[][]): Promise<Value[] | null> {
    return this.watch.run(async (link) => {
      for (;;) {
        await link.call('WATCH', ...given.map((g) => g.key));
        const exists = await Promise.all(given.map((g) => link.call('EXISTS', g.key)));
        // A completed job's record may be in its stream's archive (jobs/archive.ts): taken too.
        const absent = given.filter((_, i) => Number(exists[i]) !== 1);
        const archived = new Set<string>();
        for (const stream of new Set(absent.map((g) => g.stream))) {
          const ids = absent.filter((g) => g.stream === stream).map((g) => g.id);
          for (const id of (await archivedEntries(link, jobKeys(stream), ids)).keys()) archived.add(`${stream}\n${id}`);
        }
        const taken = given.filter((g, i) => Number(exists[i]) === 1 || archived.has(`${g.stream}\n${g.id}`));
        if (taken.some((g) => g.root)) return null;
        if (taken.length > 0) throw new FlowJobIdError(taken[0]!.stream, taken[0]!.id);
        const exec = await execWatched(link, commands.map((c) => c.map(String)));
        if (exec === null) continue;
        const failed = exec.find((r) => (r as unknown) instanceof Error);
        if (failed !== undefined) throw failed;
        return exec;
      }
    });
  }
}

/** A tree as its records say, in add()'s shape. */
function toNode(tree: FlowTree): FlowNode {
  return { id: tree.id, stream: tree.stream, children: tree.children.map(toNode) };
}

/** Whether any node of the tree has a delay (the add then reads the server's clock). */
function hasDelay(node: FlowJob): boolean {
  return (node.opts?.delayMs ?? 0) !== 0 || (node.children ?? []).some(hasDelay);
}
