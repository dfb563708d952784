// A short sequence of byte strings packed into one latin1 string (one char per byte), each
// element a varint length then its bytes: what Redis's listpack is to a small hash, sorted set
// or list node. In V8 a string of n one-byte chars costs about 16 + n bytes, while an array of n
// short strings costs a pointer plus a 24-32 byte string object per element (and a Buffer ~100
// more): packing is what brings a 128-member collection near Redis's memory.
//
// The packed string is immutable: every change builds a new one (O(bytes), as a listpack's
// memmove is), so an iterator keeps walking the sequence it started on whatever happens after.
// Lookups are linear scans, which is why collections pack only while they are small (Redis's
// *-max-listpack-* thresholds) and convert to indexed structures past them.

import { Buffer } from 'node:buffer';
import type { ByteRanges } from './byte-ranges.js';

function encodeElement(s: string): string {
  let length = s.length;
  let prefix = '';
  while (length >= 0x80) {
    prefix += String.fromCharCode(0x80 | (length & 0x7f));
    length = Math.floor(length / 0x80);
  }
  return prefix + String.fromCharCode(length) + s;
}

/** charCodeAt flattens a concatenation (a rope of pieces) into one sequential string. */
function flatten(s: string): string {
  s.charCodeAt(0);
  return s;
}

/**
 * before + the items encoded + after, as one sequential string: join copies its parts into a new
 * string, where `+` would leave a concatenation that V8 flattens in place but still reads through
 * (twice as slow to scan until a garbage collection shortcuts it). Empty parts are skipped, so
 * cutting elements off either end keeps a slice of the same string, without a copy.
 */
function joined(before: string, items: string[], after: string): string {
  const parts = [before];
  for (const item of items) parts.push(encodeElement(item));
  parts.push(after);
  return flatten(parts.join(''));
}

export class PackedStrings {
  private data = '';
  private count = 0;

  static of(items: Iterable<string>): PackedStrings {
    const packed = new PackedStrings();
    const parts: string[] = [];
    for (const item of items) parts.push(encodeElement(item));
    packed.data = flatten(parts.join(''));
    packed.count = parts.length;
    return packed;
  }

  get length(): number {
    return this.count;
  }

  /** The packed bytes, prefixes included: the memory the elements take. */
  get byteLength(): number {
    return this.data.length;
  }

  at(index: number): string {
    if (index < 0 || index >= this.count) throw new RangeError(`index ${index} out of 0..${this.count - 1}`);
    const offset = this.offsetOf(index);
    return this.readAt(offset);
  }

  /**
   * The index of the first element equal to `s` among elements first, first + stride, … (a
   * stride of 2 searches the fields of field/value pairs); -1 when none is.
   */
  indexOf(s: string, first = 0, stride = 1): number {
    return this.find(s, first, stride);
  }

  /** Removes `deleteCount` elements at `index` and inserts `items` there, as Array.splice. */
  splice(index: number, deleteCount: number, ...items: string[]): void {
    if (index < 0 || index > this.count) throw new RangeError(`index ${index} out of 0..${this.count}`);
    deleteCount = Math.max(0, Math.min(deleteCount, this.count - index));
    const start = this.offsetOf(index);
    let end = start;
    for (let i = 0; i < deleteCount; i++) {
      const length = readLength(this.data, end);
      end = elementStart + length;
    }
    this.data = joined(this.data.slice(0, start), items, this.data.slice(end));
    this.count += items.length - deleteCount;
  }

  /**
   * Removes the elements equal to `s`: the first `limit` of them, or with `fromTail` the last
   * `limit` (Infinity: all). One scan and one copy of the rest (LREM); returns how many.
   */
  removeEqual(s: string, limit: number, fromTail: boolean): number {
    const data = this.data;
    const n = s.length;
    const last = s.charCodeAt(n - 1);
    // Where each match's encoding (its length prefix included) starts and ends.
    const cuts: number[] = [];
    let offset = 0;
    for (let i = 0; i < this.count && (fromTail || cuts.length < 2 * limit); i++) {
      let length = data.charCodeAt(offset);
      let start = offset + 1;
      if (length >= 0x80) {
        length = readLength(data, offset);
        start = elementStart;
      }
      const end = start + length;
      if (length === n && (n === 0 || data.charCodeAt(end - 1) === last) && equalAt(data, start, s)) cuts.push(offset, end);
      offset = end;
    }
    const from = fromTail && cuts.length > 2 * limit ? cuts.length - 2 * limit : 0;
    const removed = (cuts.length - from) / 2;
    if (removed === 0) return 0;
    const parts: string[] = [];
    let kept = 0;
    for (let c = from; c < cuts.length; c += 2) {
      if (cuts[c]! > kept) parts.push(data.slice(kept, cuts[c]!));
      kept = cuts[c + 1]!;
    }
    if (kept < data.length) parts.push(data.slice(kept));
    this.data = flatten(parts.join(''));
    this.count -= removed;
    return removed;
  }

  set(index: number, s: string): void {
    if (index < 0 || index >= this.count) throw new RangeError(`index ${index} out of 0..${this.count - 1}`);
    this.splice(index, 1, s);
  }

  push(...items: string[]): void {
    this.data = joined(this.data, items, '');
    this.count += items.length;
  }

  unshift(...items: string[]): void {
    this.splice(0, 0, ...items);
  }

  /** The elements from `start` up to (not including) `end`, as Array.slice with non-negative bounds. */
  slice(start = 0, end = this.count): string[] {
    const out: string[] = [];
    start = Math.max(0, start);
    end = Math.min(end, this.count);
    let offset = this.offsetOf(Math.min(start, this.count));
    for (let i = start; i < end; i++) {
      const length = readLength(this.data, offset);
      const at = elementStart;
      out.push(this.data.slice(at, at + length));
      offset = at + length;
    }
    return out;
  }

  /** The elements in order, over the sequence as it is now (later changes are not seen). */
  *values(): IterableIterator<string> {
    const data = this.data;
    const count = this.count;
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const length = readLength(data, offset);
      const at = elementStart;
      offset = at + length;
      yield data.slice(at, offset);
    }
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.values();
  }

  private offsetOf(index: number): number {
    const data = this.data;
    let offset = 0;
    for (let i = 0; i < index; i++) {
      // Elements under 128 bytes (the most) have a one-char prefix: skipped without a call.
      const c = data.charCodeAt(offset);
      if (c < 0x80) {
        offset += 1 + c;
      } else {
        const length = readLength(data, offset);
        offset = elementStart + length;
      }
    }
    return offset;
  }

  private readAt(offset: number): string {
    const length = readLength(this.data, offset);
    return this.data.slice(elementStart, elementStart + length);
  }

  /**
   * For a sequence of field/value pairs (fields at even indexes): sets each pair of `pairs`
   * (flat: field, value, field, value ...) in order, a field already there in place, a new one
   * at the end (a later pair with the same field winning); returns how many fields were new. One scan and one new string, from slices
   * of the old one around the values replaced: rebuilding every element as strings
   * (slice() then of()) was most of what a job record's HSET allocated.
   */
  setPairs(pairs: ReadonlyArray<string>): number {
    const data = this.data;
    const matched = new Array<boolean>(pairs.length).fill(false);
    const parts: string[] = [];
    let copiedTo = 0;
    for (let i = 0, offset = 0; i + 1 < this.count; i += 2) {
      const fieldLength = readLength(data, offset);
      const fieldStart = elementStart;
      const valueAt = fieldStart + fieldLength;
      const valueLength = readLength(data, valueAt);
      const valueEnd = elementStart + valueLength;
      // The last pair naming this field sets it.
      for (let p = pairs.length - 2; p >= 0; p -= 2) {
        const field = pairs[p]!;
        if (field.length !== fieldLength || !data.startsWith(field, fieldStart)) continue;
        for (let q = 0; q <= p; q += 2) if (pairs[q] === field) matched[q] = true;
        parts.push(data.slice(copiedTo, valueAt), encodeElement(pairs[p + 1]!));
        copiedTo = valueEnd;
        break;
      }
      offset = valueEnd;
    }
    parts.push(data.slice(copiedTo));
    // New fields in the order they first appear, each with its last value.
    let created = 0;
    for (let p = 0; p + 1 < pairs.length; p += 2) {
      if (matched[p]) continue;
      const field = pairs[p]!;
      let value = pairs[p + 1]!;
      for (let q = p + 2; q + 1 < pairs.length; q += 2) {
        if (pairs[q] === field) {
          value = pairs[q + 1]!;
          matched[q] = true;
        }
      }
      parts.push(encodeElement(field), encodeElement(value));
      created++;
    }
    this.data = flatten(parts.join(''));
    this.count += 2 * created;
    return created;
  }

  // --- searches reading the elements' bytes in place (no element sliced) ----------------------
  // Each test gets the packed string and the bounds of one element, data[start, end). Linear,
  // as a listpack's walk is.

  /** The index of the first element `matches`; -1 when none does. */
  findIndex(matches: (data: string, start: number, end: number) => boolean): number {
    const data = this.data;
    let offset = 0;
    for (let i = 0; i < this.count; i++) {
      const length = readLength(data, offset);
      offset = elementStart + length;
      if (matches(data, elementStart, offset)) return i;
    }
    return -1;
  }

  /**
   * The index of the first element that is not `isBelow`, the elements ordered so that those
   * below come first (a partition point); the length when all are below.
   */
  partitionPoint(isBelow: (data: string, start: number, end: number) => boolean): number {
    const data = this.data;
    let offset = 0;
    for (let i = 0; i < this.count; i++) {
      const length = readLength(data, offset);
      offset = elementStart + length;
      if (!isBelow(data, elementStart, offset)) return i;
    }
    return this.count;
  }

  /** In a sequence sorted bytewise, the index of the first element not below `probe`: where it goes. */
  sortedIndex(probe: string): number {
    return this.partitionPoint((data, start, end) => compareBytes(data, start, end, probe) < 0);
  }

  /**
   * Removes the element at `from` and inserts `item` at `to`, an index of the sequence without
   * it: splice(from, 1) then splice(to, 0, item) in one rebuild (an element moved in a sorted one).
   */
  move(from: number, to: number, item: string): void {
    if (from < 0 || from >= this.count) throw new RangeError(`index ${from} out of 0..${this.count - 1}`);
    if (to < 0 || to >= this.count) throw new RangeError(`index ${to} out of 0..${this.count - 1}`);
    const data = this.data;
    const fromStart = this.offsetOf(from);
    const fromLength = readLength(data, fromStart);
    const fromEnd = elementStart + fromLength;
    if (to <= from) {
      const at = this.offsetOf(to);
      this.data = flatten(data.slice(0, at) + encodeElement(item) + data.slice(at, fromStart) + data.slice(fromEnd));
      return;
    }
    let at = fromEnd;
    for (let i = from; i < to; i++) {
      const length = readLength(data, at);
      at = elementStart + length;
    }
    this.data = flatten(data.slice(0, fromStart) + data.slice(fromEnd, at) + encodeElement(item) + data.slice(at));
  }

  /**
   * Removes the last `n` elements and returns them in order: slice and splice in one scan. What
   * is left is a slice of the same string (no copy), which a list chunk's pops from the tail rely on.
   */
  removeLast(n: number): string[] {
    n = Math.max(0, Math.min(n, this.count));
    const first = this.count - n;
    const start = this.offsetOf(first);
    const out: string[] = [];
    for (let i = 0, offset = start; i < n; i++) {
      const length = readLength(this.data, offset);
      offset = elementStart + length;
      out.push(this.data.slice(elementStart, offset));
    }
    this.data = this.data.slice(0, start);
    this.count = first;
    return out;
  }

  /** The indexes of every element equal to `s`, in order: one scan, no element copied out. */
  indexesOf(s: string): number[] {
    const out: number[] = [];
    const data = this.data;
    for (let i = 0, offset = 0; i < this.count; i++) {
      const length = readLength(data, offset);
      if (length === s.length && data.startsWith(s, elementStart)) out.push(i);
      offset = elementStart + length;
    }
    return out;
  }

  /**
   * The element after the first one equal to `s` among elements first, first + stride, … (with
   * a stride of 2, a field's value in one scan); undefined when none is, or it is the last.
   */
  elementAfter(s: string, first = 0, stride = 1): string | undefined {
    const i = this.find(s, first, stride);
    if (i === -1 || i === this.count - 1) return undefined;
    return this.readAt(matchEnd);
  }

  /**
   * Replaces the element after the first one equal to `s` (as elementAfter finds it) with
   * `replacement`, in one scan: a field's value. False, and nothing changed, when there is none.
   */
  setAfter(s: string, replacement: string, first = 0, stride = 1): boolean {
    const i = this.find(s, first, stride);
    if (i === -1 || i === this.count - 1) return false;
    const start = matchEnd;
    const length = readLength(this.data, start);
    const end = elementStart + length;
    this.data = flatten(this.data.slice(0, start) + encodeElement(replacement) + this.data.slice(end));
    return true;
  }

  /**
   * Elements first, first + stride, … as ranges of one Buffer of the packed bytes (the length
   * prefixes lie between them): a reply writes them from it without a Buffer per element.
   */
  byteRanges(first = 0, stride = 1): ByteRanges {
    const data = this.data;
    const starts: number[] = [];
    const ends: number[] = [];
    let offset = 0;
    let wanted = first;
    for (let i = 0; i < this.count; i++) {
      const length = readLength(data, offset);
      offset = elementStart + length;
      if (i === wanted) {
        wanted += stride;
        starts.push(elementStart);
        ends.push(offset);
      }
    }
    return { bytes: Buffer.from(data, 'latin1'), starts, ends };
  }

  /**
   * indexOf's scan; after a match `matchEnd` is the offset just past the matched element. This
   * loop is every lookup in a small hash or sorted set: only elements of the right length and
   * last char are compared, and the elements between candidates (a field's value) are skipped
   * with a stride of 2 spelled out (~20% faster than counting candidates).
   */
  private find(s: string, first: number, stride: number): number {
    const data = this.data;
    const count = this.count;
    const n = s.length;
    const last = s.charCodeAt(n - 1);
    let offset = 0;
    for (let i = 0; i < first && i < count; i++) offset = elementEnd(data, offset);
    for (let i = first; i < count; i += stride) {
      let length = data.charCodeAt(offset);
      let start = offset + 1;
      if (length >= 0x80) {
        length = readLength(data, offset);
        start = elementStart;
      }
      offset = start + length;
      if (length === n && (n === 0 || data.charCodeAt(offset - 1) === last) && equalAt(data, start, s)) {
        matchEnd = offset;
        return i;
      }
      if (stride === 2) {
        if (i + 1 < count) offset = elementEnd(data, offset);
      } else {
        for (let k = 1; k < stride && i + k < count; k++) offset = elementEnd(data, offset);
      }
    }
    return -1;
  }
}

/** Compares the bytes data[start, end) with `probe` as memcmp then length do (sdscmp's order). */
export function compareBytes(data: string, start: number, end: number, probe: string): number {
  const length = end - start;
  const common = Math.min(length, probe.length);
  for (let k = 0; k < common; k++) {
    const d = data.charCodeAt(start + k) - probe.charCodeAt(k);
    if (d !== 0) return d;
  }
  return length - probe.length;
}

/** Where the element find() last matched ends (no tuple per call in lookups). */
let matchEnd = 0;

/** Where the bytes of the element whose header readLength last read start (no tuple per call in scans). */
let elementStart = 0;

/** The length of the element at `offset`; its bytes start at `elementStart` after the call. */
function readLength(data: string, offset: number): number {
  let length = 0;
  let scale = 1;
  for (;;) {
    const c = data.charCodeAt(offset++);
    length += (c & 0x7f) * scale;
    if (c < 0x80) {
      elementStart = offset;
      return length;
    }
    scale *= 0x80;
  }
}

/**
 * Whether `s` is at `start` in `data`, compared from its last char: the fields and members of a
 * collection mostly share a prefix (field:1, field:2, …) and differ at the end. A loop of
 * charCodeAt is also ~8x faster than data.startsWith(s, start) for short strings.
 */
function equalAt(data: string, start: number, s: string): boolean {
  for (let j = s.length - 1; j >= 0; j--) if (data.charCodeAt(start + j) !== s.charCodeAt(j)) return false;
  return true;
}

/** The offset just past the element at `offset`. */
function elementEnd(data: string, offset: number): number {
  const c = data.charCodeAt(offset);
  if (c < 0x80) return offset + 1 + c;
  const length = readLength(data, offset);
  return elementStart + length;
}
