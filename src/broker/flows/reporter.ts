// A worker's side of flows: a child's finish goes with its report to the parent (report.ts),
// on a WATCH link of the worker's own, instead of the batched XACK; and a parent reads its
// children's return values (job.getChildrenValues).
import type { Arg, Connection, Value } from '../../client/connection.js';
import type { Codec } from '../codec.js';
import { jobKeys } from '../jobs/keys.js';
import { WatchLink } from '../jobs/watch-link.js';
import { addressOf, FlowFields, type JobAddress, type ParentLink, parentOf } from './link.js';
import { type ChildOutcome, reportToParent } from './report.js';

export class FlowReporter {
  private readonly watch: WatchLink;

  constructor(
    conn: Connection,
    private readonly codec: Codec,
    private readonly eventsMaxLen: number | null,
  ) {
    this.watch = new WatchLink(conn);
  }

  /** The parent an entry's job reports to, or null (not a flow child). */
  parentOf(fields: Record<string, string> | null | undefined): ParentLink | null {
    if (fields == null) return null;
    return parentOf(fields[FlowFields.parent], fields[FlowFields.onFailure]);
  }

  /** The codec text of a child's return value, as its parent reads it. */
  encode(result: unknown): string {
    try {
      return result === undefined ? '' : this.codec.encode(result);
    } catch {
      return '';
    }
  }

  /** Applies the child's own finish (`own`) and its report to the parent, together. */
  report(child: JobAddress, parent: ParentLink, outcome: ChildOutcome, own: Arg[][]): Promise<Value[]> {
    return this.watch.run((link) => reportToParent(link, child, parent, outcome, own, this.eventsMaxLen));
  }

  close(): Promise<void> {
    return this.watch.close();
  }
}

/** A parent's children's return values, by child job id (undefined where a child returned nothing). */
export async function childrenValues(conn: Connection, codec: Codec, stream: string, id: string): Promise<Record<string, unknown>> {
  const reply = (await conn.call('HGETALL', jobKeys(stream).processed(id))) as Value[];
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const child = addressOf(String(reply[i]));
    if (child === null) continue;
    const text = String(reply[i + 1]);
    try {
      out[child.id] = text === '' ? undefined : codec.decode(text);
    } catch {
      out[child.id] = undefined;
    }
  }
  return out;
}

/** A parent's children whose failure was ignored (onFailure 'ignore'): child job id → reason. */
export async function ignoredFailures(conn: Connection, stream: string, id: string): Promise<Record<string, string>> {
  const reply = (await conn.call('HGETALL', jobKeys(stream).ignored(id))) as Value[];
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const child = addressOf(String(reply[i]));
    if (child !== null) out[child.id] = String(reply[i + 1]);
  }
  return out;
}
