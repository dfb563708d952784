// A worker's side of flows: a child's finish goes with its report to the parent (report.ts),
// on a WATCH link of the worker's own, instead of the batched XACK; and a parent reads its
// children's return values (job.getChildrenValues).
import type { Arg, Connection, Value } from '../../client/connection.js';
import type { Codec } from '../codec.js';
import { jobKeys } from '../jobs/keys.js';
import { WatchLink } from '../jobs/watch-link.js';
import { addressOf, FlowFields, type JobAddress, type ParentLink, parentOf } from './link.js';
import { type ChildOutcome, type Report, reportToParents } from './report.js';

export class FlowReporter {
  private readonly watch: WatchLink;
  /** Reports waiting for the next transaction (those made while one is in flight go together). */
  private pending: Array<Report & { done: (err: unknown) => void }> = [];
  private scheduled = false;
  private running = false;

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

  /**
   * Applies the child's own finish (`own`) and its report to the parent, together: with the
   * other reports made in this turn, or while the last transaction was in flight, in one
   * transaction. Rejects when it failed (the child is then still pending).
   */
  report(child: JobAddress, parent: ParentLink, outcome: ChildOutcome, own: Arg[][]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ child, parent, outcome, own, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.scheduled && !this.running) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.running || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.running = true;
    void this.watch
      .run((link) => reportToParents(link, batch, this.eventsMaxLen))
      .then(
        () => batch.forEach((r) => r.done(undefined)),
        (err: unknown) => batch.forEach((r) => r.done(err)),
      )
      .finally(() => {
        this.running = false;
        this.flush();
      });
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
