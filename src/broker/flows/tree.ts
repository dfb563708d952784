// A flow as its records say, from any job of it down (FlowProducer.getFlow, the dashboard's
// flow tree): each node's state, failure and children, read level by level (one pipeline each).
import type { Connection, Value } from '../../client/connection.js';
import { jobKeys } from '../jobs/keys.js';
import { readRecords } from '../jobs/archive.js';
import { type JobState, recordFromReply, RecordField } from '../jobs/record.js';
import { addressOf, type JobAddress } from './link.js';

/** A flow's node as read; `missing` when its record is gone (removed by retention). */
export interface FlowTree extends JobAddress {
  state: JobState | 'missing';
  /** The failure's message (failed jobs; a parent failed by a child names it). */
  failedReason: string | undefined;
  /** The parent (for the root asked about, when it has one). */
  parent: JobAddress | undefined;
  children: FlowTree[];
}

/** Most levels read: a flow deeper than this is shown cut. */
const MAX_DEPTH = 32;

/** The flow below (and including) this job; null when it has no record. */
export async function readFlow(conn: Connection, root: JobAddress): Promise<FlowTree | null> {
  const [top] = await readLevel(conn, [root]);
  if (top === undefined || top.state === 'missing') return null;
  let level = [top];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const wanted = level.flatMap((n) => n.children);
    const read = await readLevel(conn, wanted);
    wanted.forEach((w, i) => Object.assign(w, read[i]));
    level = wanted;
  }
  return top;
}

async function readLevel(conn: Connection, nodes: JobAddress[]): Promise<FlowTree[]> {
  if (nodes.length === 0) return [];
  const records = await readRecords(conn, nodes.map((n) => ({ keys: jobKeys(n.stream), id: n.id })));
  return nodes.map((n, i) => {
    const r = records[i]!;
    if (r === null) return { stream: n.stream, id: n.id, state: 'missing', failedReason: undefined, parent: undefined, children: [] };
    let children: FlowTree[] = [];
    try {
      const list = r[RecordField.children] === undefined ? [] : (JSON.parse(r[RecordField.children]) as Array<[string, string]>);
      children = list.map(([stream, id]) => ({ stream, id, state: 'missing', failedReason: undefined, parent: undefined, children: [] }));
    } catch {
      children = [];
    }
    return {
      stream: n.stream,
      id: n.id,
      state: (r[RecordField.state] as JobState | undefined) ?? 'waiting',
      failedReason: r[RecordField.error],
      parent: r[RecordField.parent] === undefined ? undefined : (addressOf(r[RecordField.parent]) ?? undefined),
      children,
    };
  });
}
