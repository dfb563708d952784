// A Redis list, stored like Redis's quicklist: a deque of nodes (engine/list-chunk.ts), each its
// elements packed in one latin1 string as a listpack packs them, with a few loose elements at its
// ends so pushes and pops there stay O(1) amortized. An element is held as a latin1 string (one
// char per byte, exact bytes, as keys are), and the API converts at its edges (Buffers in and
// out). A node holds what list-max-listpack-size lets a quicklist node hold (by default 8 KiB of
// listpack bytes, counted as Redis counts them), so long lists are many nodes. The nodes sit in a
// ring (a circular array): adding or removing one at either end is O(1). Index lookups walk node
// lengths from the nearer end, then scan within the node, as quicklist does. Nodes are never
// empty; after removals in the middle, neighbours that fit in one node are merged.
import { Buffer } from 'node:buffer';
import type { TypedValue } from './keyspace.js';
import { Chunk, listpackEntryBytes } from './list-chunk.js';

/** Redis's default list-max-listpack-size: nodes of up to 8 KiB. */
export const DEFAULT_FILL = -2;
/** quicklist's FILL_MAX: a larger count is taken as this one. */
const FILL_MAX = (1 << 15) - 1;
/** Node byte limits of fills -1..-5 (quicklist's optimization_level); fills below -5 are -5. */
const SIZE_LEVELS = [4096, 8192, 16384, 32768, 65536];
/** A node limited by count (fill > 0) still stays within 8 KiB (quicklist's SIZE_SAFETY_LIMIT). */
const SIZE_SAFETY_LIMIT = 8192;
/** quicklist's SIZE_ESTIMATE_OVERHEAD: what an insert is assumed to add beyond the entry. */
const SIZE_ESTIMATE_OVERHEAD = 8;
/** quicklist's allowance for the listpack header and end a merge saves. */
const MERGE_SAVING = 11;

/** Whether a node of `bytes` listpack bytes and `count` elements is within the fill (quicklist's rules). */
function fits(fill: number, bytes: number, count: number): boolean {
  if (fill < 0) return bytes <= SIZE_LEVELS[-fill - 1]!;
  return bytes <= SIZE_SAFETY_LIMIT && count <= fill;
}

/** A growable circular array: O(1) at both ends, O(size) to insert or remove in the middle. */
class Ring<T> {
  // One slot to start with: most lists are one chunk.
  private slots: Array<T | undefined> = new Array(1);
  private head = 0;
  size = 0;

  get(i: number): T {
    return this.slots[(this.head + i) & (this.slots.length - 1)]!;
  }

  pushBack(item: T): void {
    if (this.size === this.slots.length) this.grow();
    this.slots[(this.head + this.size) & (this.slots.length - 1)] = item;
    this.size++;
  }

  pushFront(item: T): void {
    if (this.size === this.slots.length) this.grow();
    this.head = (this.head - 1) & (this.slots.length - 1);
    this.slots[this.head] = item;
    this.size++;
  }

  popBack(): void {
    this.size--;
    this.slots[(this.head + this.size) & (this.slots.length - 1)] = undefined;
  }

  popFront(): void {
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & (this.slots.length - 1);
    this.size--;
  }

  insert(i: number, item: T): void {
    if (i === 0) return this.pushFront(item);
    this.pushBack(item);
    for (let j = this.size - 1; j > i; j--) this.setSlot(j, this.get(j - 1));
    this.setSlot(i, item);
  }

  removeAt(i: number): void {
    if (i === 0) return this.popFront();
    for (let j = i; j < this.size - 1; j++) this.setSlot(j, this.get(j + 1));
    this.popBack();
  }

  private setSlot(i: number, item: T): void {
    this.slots[(this.head + i) & (this.slots.length - 1)] = item;
  }

  private grow(): void {
    const next: Array<T | undefined> = new Array(this.slots.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.get(i);
    this.slots = next;
    this.head = 0;
  }
}

export class ListValue implements TypedValue {
  // On the prototype, not per instance: small lists are many.
  get typeName(): 'list' {
    return 'list';
  }

  private readonly chunks = new Ring<Chunk>();
  private count = 0;
  /** list-max-listpack-size when the list was created, clamped as quicklistSetFill clamps it. */
  private readonly fill: number;

  constructor(fill = DEFAULT_FILL) {
    this.fill = Math.max(-SIZE_LEVELS.length, Math.min(FILL_MAX, fill));
  }

  get length(): number {
    return this.count;
  }

  /** How many chunks hold the elements (what the memory layout costs, for tests). */
  get chunkCount(): number {
    return this.chunks.size;
  }

  /** Each chunk's listpack bytes, element count and loose elements, head first (tests of the layout). */
  chunkSizes(): Array<{ bytes: number; length: number; loose: number }> {
    const out: Array<{ bytes: number; length: number; loose: number }> = [];
    for (let c = 0; c < this.chunks.size; c++) {
      const chunk = this.chunks.get(c);
      out.push({ bytes: chunk.bytes, length: chunk.length, loose: chunk.looseCount });
    }
    return out;
  }

  pushHead(bytes: Buffer): void {
    const value = bytes.toString('latin1');
    const size = listpackEntryBytes(value);
    const first = this.chunks.size > 0 ? this.chunks.get(0) : undefined;
    if (first !== undefined && this.allowsInsert(first, size)) {
      first.pushFront(value, size);
    } else {
      // A full chunk no longer takes pushes: its loose elements would only cost memory.
      first?.pack();
      const chunk = new Chunk();
      chunk.pushFront(value, size);
      this.chunks.pushFront(chunk);
    }
    this.count++;
  }

  pushTail(bytes: Buffer): void {
    const value = bytes.toString('latin1');
    const size = listpackEntryBytes(value);
    const last = this.chunks.size > 0 ? this.chunks.get(this.chunks.size - 1) : undefined;
    if (last !== undefined && this.allowsInsert(last, size)) {
      last.pushBack(value, size);
    } else {
      last?.pack();
      const chunk = new Chunk();
      chunk.pushBack(value, size);
      this.chunks.pushBack(chunk);
    }
    this.count++;
  }

  /**
   * Folds the loose elements of the end chunks into their packed strings. For after a push of
   * many elements (RPUSH k1 … kn, a load): a list built at once is then packed whole, and one
   * rebuild serves the whole batch.
   */
  packEnds(): void {
    if (this.chunks.size === 0) return;
    this.chunks.get(0).pack();
    this.chunks.get(this.chunks.size - 1).pack();
  }

  popHead(): Buffer | undefined {
    if (this.count === 0) return undefined;
    const first = this.chunks.get(0);
    const value = first.popFront();
    if (first.length === 0) this.chunks.popFront();
    this.count--;
    return Buffer.from(value, 'latin1');
  }

  popTail(): Buffer | undefined {
    if (this.count === 0) return undefined;
    const last = this.chunks.get(this.chunks.size - 1);
    const value = last.popBack();
    if (last.length === 0) this.chunks.popBack();
    this.count--;
    return Buffer.from(value, 'latin1');
  }

  /** The element at `index` (negative counts from the tail), undefined when out of range. */
  at(index: number): Buffer | undefined {
    const pos = this.locate(index);
    return pos === undefined ? undefined : Buffer.from(this.chunks.get(pos.chunk).at(pos.offset), 'latin1');
  }

  /** Replaces the element at `index`; false when out of range. */
  set(index: number, value: Buffer): boolean {
    const pos = this.locate(index);
    if (pos === undefined) return false;
    // As quicklistReplaceEntry, in place whatever the node's size becomes.
    this.chunks.get(pos.chunk).set(pos.offset, value.toString('latin1'));
    return true;
  }

  /** Inserts so that the new element ends up at `index` (0..length). */
  insertAt(index: number, value: Buffer): void {
    if (index <= 0) return this.pushHead(value);
    if (index >= this.count) return this.pushTail(value);
    const pos = this.locate(index)!;
    const chunk = this.chunks.get(pos.chunk);
    const s = value.toString('latin1');
    chunk.insert(pos.offset, s, listpackEntryBytes(s));
    this.count++;
    // A node past its limit is split in two halves, as quicklist splits a full node.
    if (chunk.length > 1 && !fits(this.fill, chunk.bytes, chunk.length)) {
      this.chunks.insert(pos.chunk + 1, chunk.splitAt(chunk.length >> 1));
    }
  }

  /**
   * Elements from index `start` to `end` inclusive (already clamped to the list by the caller),
   * from start to end, or from end to start when `reverse`.
   */
  range(start: number, end: number, reverse = false): Buffer[] {
    const out: Buffer[] = [];
    if (start > end) return out;
    const pos = this.locate(start)!;
    let remaining = end - start + 1;
    for (let c = pos.chunk, o = pos.offset; remaining > 0; c++, o = 0) {
      const chunk = this.chunks.get(c);
      const taken = Math.min(remaining, chunk.length - o);
      for (const item of chunk.slice(o, o + taken)) out.push(Buffer.from(item, 'latin1'));
      remaining -= taken;
    }
    return reverse ? out.reverse() : out;
  }

  /** Every element from `index` towards the tail. */
  *forward(index = 0): Generator<Buffer, void, undefined> {
    for (const item of this.stringsForward(index)) yield Buffer.from(item, 'latin1');
  }

  /** Every element from `index` towards the head. */
  *backward(index = -1): Generator<Buffer, void, undefined> {
    for (const item of this.stringsBackward(index)) yield Buffer.from(item, 'latin1');
  }

  /**
   * Positions of the elements equal to `value`, in scan order: from the head, or from the tail
   * with `fromTail` (LPOS, LINSERT's pivot), looking at no more than `maxScan` elements
   * (0 = all: LPOS's MAXLEN).
   */
  *matches(value: Buffer, fromTail: boolean, maxScan = 0): Generator<number, void, undefined> {
    const wanted = value.toString('latin1');
    let scanned = 0; // elements of the chunks already searched, in scan order
    for (let step = 0; step < this.chunks.size; step++) {
      const chunk = this.chunks.get(fromTail ? this.chunks.size - 1 - step : step);
      const hits = chunk.indexesOf(wanted);
      if (fromTail) hits.reverse();
      for (const i of hits) {
        const order = scanned + (fromTail ? chunk.length - 1 - i : i);
        if (maxScan !== 0 && order >= maxScan) return;
        yield fromTail ? this.count - 1 - order : order;
      }
      scanned += chunk.length;
      if (maxScan !== 0 && scanned >= maxScan) return;
    }
  }

  /** The elements from `index` on, each read when it is taken. */
  private *stringsForward(index: number): Generator<string, void, undefined> {
    const pos = this.locate(index);
    if (pos === undefined) return;
    for (let c = pos.chunk, o = pos.offset; c < this.chunks.size; c++, o = 0) yield* this.chunks.get(c).values(o);
  }

  private *stringsBackward(index: number): Generator<string, void, undefined> {
    const pos = this.locate(index);
    if (pos === undefined) return;
    for (let c = pos.chunk, o = pos.offset; c >= 0; c--) {
      const items = this.chunks.get(c).slice(0, o + 1);
      for (let i = items.length - 1; i >= 0; i--) yield items[i]!;
      if (c > 0) o = this.chunks.get(c - 1).length - 1;
    }
  }

  /** Removes `n` elements from the head. */
  trimHead(n: number): void {
    n = Math.min(n, this.count);
    this.count -= n;
    while (n > 0) {
      const first = this.chunks.get(0);
      if (first.length <= n) {
        n -= first.length;
        this.chunks.popFront();
      } else {
        first.remove(0, n);
        n = 0;
      }
    }
  }

  /** Removes `n` elements from the tail. */
  trimTail(n: number): void {
    n = Math.min(n, this.count);
    this.count -= n;
    while (n > 0) {
      const last = this.chunks.get(this.chunks.size - 1);
      if (last.length <= n) {
        n -= last.length;
        this.chunks.popBack();
      } else {
        last.remove(last.length - n, n);
        n = 0;
      }
    }
  }

  /**
   * Removes elements equal to `value`, at most `limit` of them (0 = all), scanning from the head
   * or, with `fromTail`, from the tail (LREM). Returns how many were removed.
   */
  removeMatching(bytes: Buffer, limit: number, fromTail: boolean): number {
    const value = bytes.toString('latin1');
    let removed = 0;
    const chunks = this.chunks.size;
    for (let step = 0; step < chunks && (limit === 0 || removed < limit); step++) {
      const chunk = this.chunks.get(fromTail ? chunks - 1 - step : step);
      removed += chunk.removeEqual(value, limit === 0 ? 0 : limit - removed, fromTail);
    }
    if (removed > 0) {
      this.count -= removed;
      this.compact();
    }
    return removed;
  }

  /** Whether `chunk` may take one more element of `size` bytes (quicklist's _quicklistNodeAllowInsert). */
  private allowsInsert(chunk: Chunk, size: number): boolean {
    return fits(this.fill, chunk.bytes + size + SIZE_ESTIMATE_OVERHEAD, chunk.length + 1);
  }

  /** Drops empty chunks and merges neighbours that fit in one chunk (quicklist's _quicklistNodeAllowMerge). */
  private compact(): void {
    for (let i = 0; i < this.chunks.size; ) {
      const chunk = this.chunks.get(i);
      if (chunk.length === 0) {
        this.chunks.removeAt(i);
        continue;
      }
      const next = i + 1 < this.chunks.size ? this.chunks.get(i + 1) : undefined;
      if (next !== undefined && fits(this.fill, chunk.bytes + next.bytes - MERGE_SAVING, chunk.length + next.length)) {
        chunk.append(next);
        this.chunks.removeAt(i + 1);
        continue;
      }
      i++;
    }
  }

  /** Chunk and offset of `index` (negative from the tail), walking from the nearer end. */
  private locate(index: number): { chunk: number; offset: number } | undefined {
    if (index < 0) index += this.count;
    if (index < 0 || index >= this.count) return undefined;
    if (index < this.count / 2) {
      for (let c = 0; ; c++) {
        const len = this.chunks.get(c).length;
        if (index < len) return { chunk: c, offset: index };
        index -= len;
      }
    }
    let fromTail = this.count - 1 - index;
    for (let c = this.chunks.size - 1; ; c--) {
      const len = this.chunks.get(c).length;
      if (fromTail < len) return { chunk: c, offset: len - 1 - fromTail };
      fromTail -= len;
    }
  }
}
