// A Redis list, stored like Redis's quicklist: a deque of small chunks, each a plain array of
// at most CHUNK_MAX elements. An element is held as a latin1 string (one char per byte, exact
// bytes, as keys are): a short V8 string costs about a third of a Buffer object, and the API
// converts at its edges (Buffers in and out). The chunks sit in a ring (a circular array), so adding or
// removing a chunk at either end is O(1) and pushes/pops at both ends are O(1) (a chunk's own
// array shifts at most CHUNK_MAX slots). Index lookups walk chunk lengths from the nearer end,
// O(n / CHUNK_MAX). Chunks are never empty; after removals in the middle neighbours that fit in
// one chunk are merged, so a list stays close to n / CHUNK_MAX chunks.
import { Buffer } from 'node:buffer';
import type { TypedValue } from './keyspace.js';

export const CHUNK_MAX = 128;

/** A growable circular array: O(1) at both ends, O(size) to insert or remove in the middle. */
class Ring<T> {
  private slots: Array<T | undefined> = new Array(4);
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

  private readonly chunks = new Ring<string[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** How many chunks hold the elements (what the memory layout costs, for tests). */
  get chunkCount(): number {
    return this.chunks.size;
  }

  pushHead(bytes: Buffer): void {
    const value = bytes.toString('latin1');
    const first = this.chunks.size > 0 ? this.chunks.get(0) : undefined;
    if (first !== undefined && first.length < CHUNK_MAX) first.unshift(value);
    else this.chunks.pushFront([value]);
    this.count++;
  }

  pushTail(bytes: Buffer): void {
    const value = bytes.toString('latin1');
    const last = this.chunks.size > 0 ? this.chunks.get(this.chunks.size - 1) : undefined;
    if (last !== undefined && last.length < CHUNK_MAX) last.push(value);
    else this.chunks.pushBack([value]);
    this.count++;
  }

  popHead(): Buffer | undefined {
    if (this.count === 0) return undefined;
    const first = this.chunks.get(0);
    const value = first.shift()!;
    if (first.length === 0) this.chunks.popFront();
    this.count--;
    return Buffer.from(value, 'latin1');
  }

  popTail(): Buffer | undefined {
    if (this.count === 0) return undefined;
    const last = this.chunks.get(this.chunks.size - 1);
    const value = last.pop()!;
    if (last.length === 0) this.chunks.popBack();
    this.count--;
    return Buffer.from(value, 'latin1');
  }

  /** The element at `index` (negative counts from the tail), undefined when out of range. */
  at(index: number): Buffer | undefined {
    const pos = this.locate(index);
    return pos === undefined ? undefined : Buffer.from(this.chunks.get(pos.chunk)[pos.offset]!, 'latin1');
  }

  /** Replaces the element at `index`; false when out of range. */
  set(index: number, value: Buffer): boolean {
    const pos = this.locate(index);
    if (pos === undefined) return false;
    this.chunks.get(pos.chunk)[pos.offset] = value.toString('latin1');
    return true;
  }

  /** Inserts so that the new element ends up at `index` (0..length). */
  insertAt(index: number, value: Buffer): void {
    if (index <= 0) return this.pushHead(value);
    if (index >= this.count) return this.pushTail(value);
    const pos = this.locate(index)!;
    const chunk = this.chunks.get(pos.chunk);
    chunk.splice(pos.offset, 0, value.toString('latin1'));
    this.count++;
    if (chunk.length > CHUNK_MAX) {
      // Split a full chunk in two halves, as quicklist splits a full node.
      const half = chunk.splice(chunk.length >> 1);
      this.chunks.insert(pos.chunk + 1, half);
    }
  }

  /**
   * Elements from index `start` to `end` inclusive (already clamped to the list by the caller),
   * from start to end, or from end to start when `reverse`.
   */
  range(start: number, end: number, reverse = false): Buffer[] {
    const out: Buffer[] = [];
    if (start > end) return out;
    const it = reverse ? this.stringsBackward(end) : this.stringsForward(start);
    for (let n = end - start + 1; n > 0; n--) out.push(Buffer.from(it.next().value as string, 'latin1'));
    return out;
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
    let scanned = 0;
    for (const item of fromTail ? this.stringsBackward(-1) : this.stringsForward(0)) {
      if (maxScan !== 0 && scanned >= maxScan) return;
      if (item === wanted) yield fromTail ? this.count - 1 - scanned : scanned;
      scanned++;
    }
  }

  private *stringsForward(index: number): Generator<string, void, undefined> {
    const pos = this.locate(index);
    if (pos === undefined) return;
    for (let c = pos.chunk, o = pos.offset; c < this.chunks.size; c++, o = 0) {
      const chunk = this.chunks.get(c);
      for (; o < chunk.length; o++) yield chunk[o]!;
    }
  }

  private *stringsBackward(index: number): Generator<string, void, undefined> {
    const pos = this.locate(index);
    if (pos === undefined) return;
    for (let c = pos.chunk, o = pos.offset; c >= 0; c--) {
      const chunk = this.chunks.get(c);
      for (; o >= 0; o--) yield chunk[o]!;
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
        first.splice(0, n);
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
        last.length -= n;
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
      if (fromTail) {
        for (let o = chunk.length - 1; o >= 0 && (limit === 0 || removed < limit); o--) {
          if (chunk[o] === value) {
            chunk.splice(o, 1);
            removed++;
          }
        }
      } else {
        for (let o = 0; o < chunk.length && (limit === 0 || removed < limit); ) {
          if (chunk[o] === value) {
            chunk.splice(o, 1);
            removed++;
          } else {
            o++;
          }
        }
      }
    }
    if (removed > 0) {
      this.count -= removed;
      this.compact();
    }
    return removed;
  }

  /** Drops empty chunks and merges neighbours that fit in one chunk together. */
  private compact(): void {
    for (let i = 0; i < this.chunks.size; ) {
      const chunk = this.chunks.get(i);
      if (chunk.length === 0) {
        this.chunks.removeAt(i);
        continue;
      }
      const next = i + 1 < this.chunks.size ? this.chunks.get(i + 1) : undefined;
      if (next !== undefined && chunk.length + next.length <= CHUNK_MAX) {
        for (const item of next) chunk.push(item);
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
