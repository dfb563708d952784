// Every entry a worker holds, in one map, with the state of its life here:
//
//   queued ──▶ running ──▶ acking ──▶ (gone: acknowledged)
//                 │
//                 └──▶ retry-wait ──▶ queued (re-taken with XCLAIM after the backoff)
//                 └──▶ (gone: dead-lettered, released, or taken over by another consumer)
//
// Queued and running entries hold a handler slot; acking and retry-wait ones do not.
import type { StreamEntry } from '../replies.js';
import type { JobAbort } from './job-abort.js';
import type { PerJobOptions } from '../jobs/job-options.js';

const NO_OPTIONS: PerJobOptions = Object.freeze({});

/** How many acknowledged ids are remembered: far more than one read's COUNT can bring back. */
const FINISHED_KEPT = 4096;

export type EntryState = 'queued' | 'running' | 'acking' | 'retry-wait';

export interface HeldEntry {
  readonly entry: StreamEntry;
  deliveries: number;
  state: EntryState;
  /** When it was delivered to this worker, its handler started or its lease was renewed (ms). */
  since: number;
  /** Aborts the running handler (timeout, lost lease, forced close). */
  abort: JobAbort | null;
  /** The last failure's message, for the dead letter if it dies elsewhere. */
  lastError: string | null;
  /** The job's own options (attempts, backoff, retention), read when its handler is prepared. */
  opts: PerJobOptions;
  /** Taken over from another consumer (a claim) rather than delivered to us first. */
  claimed: boolean;
}

export class EntryTable {
  private readonly held = new Map<string, HeldEntry>();
  /** Ids in the order they became queued, from queueHead on (those before it were taken). */
  private queue: string[] = [];
  private queueHead = 0;
  private readonly counts: Record<EntryState, number> = { queued: 0, running: 0, acking: 0, 'retry-wait': 0 };
  private readonly finished = new Set<string>();
  private readonly finishedOrder: Array<string | undefined> = new Array(FINISHED_KEPT);
  private finishedAt = 0;
  /** Reads in flight that may bring back entries delivered before (PEL history, claims). */
  private guardedReads = 0;

  get(id: string): HeldEntry | undefined {
    return this.held.get(id);
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  count(state: EntryState): number {
    return this.counts[state];
  }

  get size(): number {
    return this.held.size;
  }

  /** Adds a newly delivered entry as queued; undefined when it is already held. */
  add(entry: StreamEntry, deliveries: number, claimed = false): HeldEntry | undefined {
    if (this.held.has(entry.id)) return undefined;
    const h: HeldEntry = { entry, deliveries, state: 'queued', since: Date.now(), abort: null, lastError: null, opts: NO_OPTIONS, claimed };
    this.held.set(entry.id, h);
    this.counts.queued++;
    this.queue.push(entry.id);
    return h;
  }

  setState(h: HeldEntry, state: EntryState): void {
    if (h.state === state) return;
    this.counts[h.state]--;
    this.counts[state]++;
    h.state = state;
    if (state === 'queued') this.queue.push(h.entry.id);
  }

  /** Takes up to n queued entries, oldest first, leaving them in state 'running'. */
  takeQueued(n: number): HeldEntry[] {
    const out: HeldEntry[] = [];
    let i = this.queueHead;
    for (; i < this.queue.length && out.length < n; i++) {
      const h = this.held.get(this.queue[i]!);
      if (h === undefined || h.state !== 'queued') continue; // left the queue meanwhile
      this.setState(h, 'running');
      h.since = Date.now();
      out.push(h);
    }
    // Taking one job at a time from a long queue would copy it every time: the taken part is
    // dropped only once it is most of the array.
    this.queueHead = i;
    if (i === this.queue.length) {
      this.queue.length = 0;
      this.queueHead = 0;
    } else if (i > 1024 && i * 2 > this.queue.length) {
      this.queue = this.queue.slice(i);
      this.queueHead = 0;
    }
    return out;
  }

  delete(h: HeldEntry): void {
    if (this.held.get(h.entry.id) !== h) return;
    this.held.delete(h.entry.id);
    this.counts[h.state]--;
  }

  /**
   * A read that may bring back entries delivered before (our PEL's history, a claim) is being
   * sent: until endGuardedRead, finish() remembers what it acknowledges. A read of new entries
   * (`>`) never brings back one delivered before, and an acknowledgement confirmed before such a
   * read was sent was applied by the server before it: only the ids finished meanwhile matter.
   */
  beginGuardedRead(): void {
    this.guardedReads++;
  }

  /** The guarded read's entries were taken (isFinished asked of each): they are forgotten once none is left. */
  endGuardedRead(): void {
    if (--this.guardedReads > 0) return;
    this.finished.clear();
    this.finishedOrder.fill(undefined);
    this.finishedAt = 0;
  }

  /**
   * Deletes an entry whose acknowledgement the server confirmed. While a guarded read is in
   * flight, its id is remembered: that read may still bring it back, and an acknowledged entry
   * never legitimately comes back. (Remembering every id cost a busy worker two set operations
   * a job, hashing ids that only a read of new entries would ever ask about.)
   */
  finish(h: HeldEntry): void {
    this.delete(h);
    if (this.guardedReads === 0) return;
    const id = h.entry.id;
    if (this.finished.has(id)) return;
    const old = this.finishedOrder[this.finishedAt];
    if (old !== undefined) this.finished.delete(old);
    this.finishedOrder[this.finishedAt] = id;
    this.finishedAt = (this.finishedAt + 1) % FINISHED_KEPT;
    this.finished.add(id);
  }

  /** Whether this worker acknowledged the entry while a guarded read was in flight (see finish). */
  isFinished(id: string): boolean {
    return this.finished.size > 0 && this.finished.has(id);
  }

  /** Entries in one of the states, in insertion order. */
  inState(...states: EntryState[]): HeldEntry[] {
    return [...this.held.values()].filter((h) => states.includes(h.state));
  }
}
