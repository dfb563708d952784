// One node of a list (engine/list.ts), as a quicklist node is one listpack: its elements packed
// in one latin1 string (PackedStrings, ~1 byte of overhead per short element instead of a 24-32
// byte string object and a pointer), plus a few unpacked ("loose") elements at each end.
//
// Rebuilding the packed string costs O(its bytes), as a listpack's memmove does, and so does
// finding its last elements (the varint prefixes are read from the start), so the ends do not
// pay either per element: a push lands among the loose elements at its end, which are folded
// into the packed string a batch at a time; a pop takes a loose element, unpacking a batch when
// its end has none. A batch is a 64th of the chunk (at least 4 elements), so a scan or rebuild
// costs O(1) per push or pop; an end folds at twice that, so pushes and pops alternating at one
// end do not rebuild the string every time. Every rebuild takes in the loose elements of both
// ends: elements unpacked from the packed string are slices of it, and folding them back means
// no loose element outlives (and pins) an old packed string.
//
// `bytes` is what Redis's listpack would take for the same elements (header, entries with their
// integer encodings, back-lengths): what list-max-listpack-size limits, as quicklist counts it.
import { PackedStrings } from './packed-strings.js';
import { lpBacklenSize, lpIntSize } from './stream-node.js';

/** The fewest elements unpacked at once: an end of a small chunk holds up to twice as many loose. */
export const UNPACK_MIN = 4;
/** An empty listpack: the 6-byte header and the end byte. */
export const LISTPACK_EMPTY_BYTES = 7;

/**
 * What an end without loose elements holds: one shared empty array (an array costs ~32 bytes).
 * Frozen, so a push onto it would throw rather than leak into every chunk.
 */
const NONE: string[] = Object.freeze([]) as unknown as string[];

const CANONICAL_INT = /^(0|-?[1-9][0-9]*)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Bytes of one listpack entry holding `s` (latin1): an integer when Redis's string2ll takes it. */
export function listpackEntryBytes(s: string): number {
  const len = s.length;
  if (len > 0 && len <= 20) {
    const c = s.charCodeAt(0);
    if ((c === 45 || (c >= 48 && c <= 57)) && CANONICAL_INT.test(s)) {
      if (len <= 15) return lpIntSize(Number(s));
      const v = BigInt(s);
      // Past 15 digits every int64 takes the 8-byte encoding, which lpIntSize picks for any such value.
      if (v >= INT64_MIN && v <= INT64_MAX) return lpIntSize(v);
    }
  }
  const encoded = len < 64 ? 1 + len : len < 4096 ? 2 + len : 5 + len;
  return encoded + lpBacklenSize(encoded);
}

export class Chunk {
  /** Loose elements before the packed ones, the chunk's first element last (pushed and popped at the array's end). */
  private front = NONE;
  private packed = new PackedStrings();
  /** Loose elements after the packed ones, in order. */
  private back = NONE;
  /** Redis's lpBytes for these elements. */
  bytes = LISTPACK_EMPTY_BYTES;

  /** A chunk of `items`, all packed. */
  static of(items: string[]): Chunk {
    const chunk = new Chunk();
    chunk.packed = PackedStrings.of(items);
    for (const item of items) chunk.bytes += listpackEntryBytes(item);
    return chunk;
  }

  get length(): number {
    return this.front.length + this.packed.length + this.back.length;
  }

  /** How many elements are loose rather than packed (memory tests). */
  get looseCount(): number {
    return this.front.length + this.back.length;
  }

  /** Adds `s` first; `size` is its listpackEntryBytes. */
  pushFront(s: string, size: number): void {
    if (this.front === NONE) this.front = [s];
    else this.front.push(s);
    this.bytes += size;
    if (this.front.length >= this.looseMax) this.pack();
  }

  /** Adds `s` last; `size` is its listpackEntryBytes. */
  pushBack(s: string, size: number): void {
    if (this.back === NONE) this.back = [s];
    else this.back.push(s);
    this.bytes += size;
    if (this.back.length >= this.looseMax) this.pack();
  }

  /** Removes and returns the first element; the chunk must not be empty. */
  popFront(): string {
    if (this.front.length === 0) this.unpackFront();
    const s = this.front.pop()!;
    this.bytes -= listpackEntryBytes(s);
    return s;
  }

  /** Removes and returns the last element; the chunk must not be empty. */
  popBack(): string {
    if (this.back.length === 0) this.unpackBack();
    const s = this.back.pop()!;
    this.bytes -= listpackEntryBytes(s);
    return s;
  }

  /** The element at `index` (0..length-1). */
  at(index: number): string {
    const f = this.front.length;
    if (index < f) return this.front[f - 1 - index]!;
    index -= f;
    const p = this.packed.length;
    return index < p ? this.packed.at(index) : this.back[index - p]!;
  }

  /** Replaces the element at `index` (0..length-1) with `s`. */
  set(index: number, s: string): void {
    this.bytes += listpackEntryBytes(s) - listpackEntryBytes(this.at(index));
    const f = this.front.length;
    const p = this.packed.length;
    if (index < f) {
      this.front[f - 1 - index] = s;
    } else if (index - f >= p) {
      this.back[index - f - p] = s;
    } else {
      this.pack();
      this.packed.set(index, s);
    }
  }

  /** Inserts `s` so that it ends up at `index` (0..length); `size` is its listpackEntryBytes. */
  insert(index: number, s: string, size: number): void {
    if (index === 0) return this.pushFront(s, size);
    if (index === this.length) return this.pushBack(s, size);
    this.pack();
    this.packed.splice(index, 0, s);
    this.bytes += size;
  }

  /** Removes `count` elements from `start` on (within the chunk). */
  remove(start: number, count: number): void {
    if (count <= 0) return;
    if (start === 0 && count <= this.front.length) {
      for (let i = 0; i < count; i++) this.bytes -= listpackEntryBytes(this.front.pop()!);
      return;
    }
    if (start + count === this.length && count <= this.back.length) {
      for (let i = 0; i < count; i++) this.bytes -= listpackEntryBytes(this.back.pop()!);
      return;
    }
    this.pack();
    for (const s of this.packed.slice(start, start + count)) this.bytes -= listpackEntryBytes(s);
    this.packed.splice(start, count);
  }

  /** The elements from `start` up to (not including) `end`, within 0..length. */
  slice(start: number, end: number): string[] {
    const out: string[] = [];
    const front = this.front;
    const f = front.length;
    for (let i = start; i < end && i < f; i++) out.push(front[f - 1 - i]!);
    const p = this.packed.length;
    const packedStart = Math.max(start - f, 0);
    const packedEnd = Math.min(end - f, p);
    if (packedStart < packedEnd) for (const s of this.packed.slice(packedStart, packedEnd)) out.push(s);
    for (let i = Math.max(start - f - p, 0); i < end - f - p; i++) out.push(this.back[i]!);
    return out;
  }

  /** The elements from `start` on, each read when it is taken (a sample of a few costs a few). */
  *values(start = 0): Generator<string, void, undefined> {
    const front = this.front;
    for (let i = start; i < front.length; i++) yield front[front.length - 1 - i]!;
    let index = front.length;
    for (const s of this.packed) if (index++ >= start) yield s;
    const back = this.back;
    for (let i = Math.max(start - index, 0); i < back.length; i++) yield back[i]!;
  }

  /** The positions (0..length-1) of the elements equal to `s`, in order, no element copied out. */
  indexesOf(s: string): number[] {
    const out: number[] = [];
    const f = this.front.length;
    for (let i = 0; i < f; i++) if (this.front[f - 1 - i] === s) out.push(i);
    for (const i of this.packed.indexesOf(s)) out.push(f + i);
    const p = f + this.packed.length;
    for (let i = 0; i < this.back.length; i++) if (this.back[i] === s) out.push(p + i);
    return out;
  }

  /** Every element, in order. */
  toArray(): string[] {
    return this.slice(0, this.length);
  }

  /**
   * Removes elements equal to `s`, at most `limit` of them (0 = all), scanning from the first
   * or, with `fromTail`, from the last. Returns how many were removed.
   */
  removeEqual(s: string, limit: number, fromTail: boolean): number {
    if (this.front.length > 0 || this.back.length > 0) {
      // Folded in first: elements a pop unpacked are cut from the packed string, and must not
      // outlive (and pin) it once it is replaced. Not where nothing matches: LREM visits every
      // chunk of a list.
      if (this.packed.indexOf(s) === -1 && !this.front.includes(s) && !this.back.includes(s)) return 0;
      this.pack();
    }
    // One scan and one copy of the packed string. Decoding the chunk into an array and packing
    // it again cost a 100-element list ~8 us per LREM (BullMQ's, of its active list, per job).
    const removed = this.packed.removeEqual(s, limit === 0 ? Infinity : limit, fromTail);
    this.bytes -= removed * listpackEntryBytes(s);
    return removed;
  }

  /** Moves the elements from `index` on into a new chunk, which it returns. */
  splitAt(index: number): Chunk {
    const right = Chunk.of(this.slice(index, this.length));
    this.remove(index, this.length - index);
    return right;
  }

  /** Appends `other`'s elements after this chunk's (other is left as it was). */
  append(other: Chunk): void {
    const items = this.toArray();
    for (const s of other.toArray()) items.push(s);
    this.front = NONE;
    this.back = NONE;
    this.packed = PackedStrings.of(items);
    this.bytes += other.bytes - LISTPACK_EMPTY_BYTES;
  }

  /** Elements unpacked at once when a pop finds its end without loose ones (see the header). */
  private get unpackBatch(): number {
    return Math.max(UNPACK_MIN, this.packed.length >> 6);
  }

  /** Loose elements an end gathers before they are folded in (see the header). */
  private get looseMax(): number {
    return 2 * this.unpackBatch;
  }

  /** Folds the loose elements of both ends into the packed string. */
  pack(): void {
    if (this.front.length > 0) {
      this.packed.unshift(...this.front.reverse());
      this.front = NONE;
    }
    if (this.back.length > 0) {
      this.packed.push(...this.back);
      this.back = NONE;
    }
  }

  /** Gives the front loose elements to pop: from the packed string, else the back's. */
  private unpackFront(): void {
    const p = this.packed.length;
    if (p > 0) {
      const k = Math.min(this.unpackBatch, p);
      const items = this.packed.slice(0, k);
      this.packed.splice(0, k);
      this.front = items.reverse();
    } else {
      this.front = this.back.reverse();
      this.back = NONE;
    }
  }

  /** Gives the back loose elements to pop: from the packed string, else the front's. */
  private unpackBack(): void {
    if (this.packed.length > 0) {
      this.back = this.packed.removeLast(this.unpackBatch);
    } else {
      this.back = this.front.reverse();
      this.front = NONE;
    }
  }
}
