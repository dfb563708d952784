// A group's pending entries ordered by delivery time (oldest first, ties by id), so that
// XREADGROUP ... CLAIM finds the entries idle long enough in O(k log P) instead of sorting
// the whole PEL on every read.
//
// It is a binary min-heap with lazy deletion: every change of an entry's delivery time
// pushes a new node stamped with the entry's new version; acknowledged, deleted or re-timed
// entries leave stale nodes behind, which are skipped when they reach the top and swept
// out by a rebuild once they outnumber the live ones. That keeps XACK and XCLAIM free of
// index upkeep (the common path) at the cost of at most ~2 nodes per pending entry.
import { compareIds, type StreamId } from './stream-id.js';

/** What the index needs of a pending entry; `version` changes with every re-timing. */
export interface TimedEntry {
  readonly id: StreamId;
  deliveryTime: number;
  version: number;
}

interface Node<E extends TimedEntry> {
  entry: E;
  time: number;
  version: number;
}

/** Below this many nodes a sweep is not worth it. */
const MIN_SWEEP = 1024;

export class IdleIndex<E extends TimedEntry> {
  private heap: Node<E>[] = [];

  /**
   * @param isPending true while the entry is still in the group's PEL.
   * @param pending every entry currently pending, for a rebuild.
   */
  constructor(
    private readonly isPending: (entry: E) => boolean,
    private readonly pending: () => Iterable<E>,
  ) {}

  /** Records the entry's current delivery time; call after every change of it. */
  touch(entry: E, livePending: number): void {
    entry.version++;
    this.push({ entry, time: entry.deliveryTime, version: entry.version });
    if (this.heap.length > MIN_SWEEP && this.heap.length > 2 * livePending) this.rebuild();
  }

  /** The longest-idle pending entry, or undefined when nothing is pending. */
  oldest(): E | undefined {
    this.dropStale();
    return this.heap[0]?.entry;
  }

  /**
   * Removes and returns the longest-idle pending entry if it was delivered at or before
   * `maxTime`. The caller must then re-time it (touch) or drop it from the PEL: a popped entry
   * that stays pending untouched would no longer be found here.
   */
  popDue(maxTime: number): E | undefined {
    this.dropStale();
    const top = this.heap[0];
    if (top === undefined || top.time > maxTime) return undefined;
    this.pop();
    return top.entry;
  }

  /** Number of heap nodes, stale ones included (for tests). */
  get nodes(): number {
    return this.heap.length;
  }

  clear(): void {
    this.heap = [];
  }

  private isLive(node: Node<E>): boolean {
    return node.version === node.entry.version && this.isPending(node.entry);
  }

  private dropStale(): void {
    while (this.heap.length > 0 && !this.isLive(this.heap[0]!)) this.pop();
  }

  private rebuild(): void {
    const nodes: Node<E>[] = [];
    for (const entry of this.pending()) nodes.push({ entry, time: entry.deliveryTime, version: entry.version });
    this.heap = nodes;
    for (let i = (nodes.length >>> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private static less<E extends TimedEntry>(a: Node<E>, b: Node<E>): boolean {
    return a.time !== b.time ? a.time < b.time : compareIds(a.entry.id, b.entry.id) < 0;
  }

  private push(node: Node<E>): void {
    const h = this.heap;
    h.push(node);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!IdleIndex.less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    this.siftDown(0);
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < h.length && IdleIndex.less(h[l]!, h[min]!)) min = l;
      if (r < h.length && IdleIndex.less(h[r]!, h[min]!)) min = r;
      if (min === i) return;
      [h[i], h[min]] = [h[min]!, h[i]!];
      i = min;
    }
  }
}
