// A Redis hash: field -> value, both byte strings held as latin1 strings (one char per byte,
// like keys): a Buffer per value would cost ~100 bytes of its own.
//
// While small (hash-max-listpack-entries and -value) the pairs alternate in one PackedStrings,
// field, value, field, value, as Redis's listpack keeps them: ~1 byte of overhead per element
// instead of a string object and a Map entry, at the price of linear lookups, which stay short
// under the thresholds. Past them the hash is a Map, for good, as Redis's hashtable encoding is.
// Both keep insertion order, the order Redis's listpack replies in for small hashes (the
// differential tests rely on it); updating a field keeps its position, as a listpack update does.
import type { TypedValue } from './keyspace.js';
import { type ByteRanges, byteRangesOf } from './byte-ranges.js';
import { PackedStrings } from './packed-strings.js';

/** Redis's default hash-max-listpack-entries and hash-max-listpack-value (CONFIG SET changes them: callers pass theirs). */
export const LISTPACK_MAX_ENTRIES = 512;
export const LISTPACK_MAX_VALUE = 64;

const latin1 = (bytes: Buffer | string): string => (typeof bytes === 'string' ? bytes : bytes.toString('latin1'));

export class HashValue implements TypedValue {
  readonly typeName = 'hash' as const;
  /** The listpack encoding (OBJ_ENCODING_LISTPACK): fields at even indexes, each value after its field. */
  private packed: PackedStrings | null = new PackedStrings();
  /** The hashtable encoding, once the hash outgrew the listpack (it never returns). */
  private table: Map<string, string> | null = null;

  /**
   * A hash of these pairs (distinct fields), encoded as set() one by one would leave it, built
   * in one pass: a load need not rebuild the packed pairs once per field.
   */
  static of(pairs: Array<[field: string, value: Buffer | string]>, maxEntries = LISTPACK_MAX_ENTRIES, maxValue = LISTPACK_MAX_VALUE): HashValue {
    const hash = new HashValue();
    const texts = pairs.map(([field, value]): [string, string] => [field, latin1(value)]);
    if (texts.length <= maxEntries && texts.every(([field, value]) => field.length <= maxValue && value.length <= maxValue)) {
      hash.packed = PackedStrings.of(texts.flat());
    } else {
      hash.packed = null;
      hash.table = new Map(texts);
    }
    return hash;
  }

  get isListpack(): boolean {
    return this.packed !== null;
  }

  get size(): number {
    return this.packed !== null ? this.packed.length / 2 : this.table!.size;
  }

  /** The value of `field` as latin1 text (one char per byte). */
  getString(field: string): string | undefined {
    if (this.packed !== null) return this.packed.elementAfter(field, 0, 2);
    return this.table!.get(field);
  }

  get(field: string): Buffer | undefined {
    const value = this.getString(field);
    return value === undefined ? undefined : Buffer.from(value, 'latin1');
  }

  has(field: string): boolean {
    if (this.packed !== null) return this.packed.indexOf(field, 0, 2) !== -1;
    return this.table!.has(field);
  }

  /**
   * Sets a field (a Buffer or latin1 text); returns true when the field is new. A field or value
   * longer than `maxValue` bytes, or more than `maxEntries` fields, and the hash is a hashtable for good.
   */
  set(field: string, value: Buffer | string, maxEntries = LISTPACK_MAX_ENTRIES, maxValue = LISTPACK_MAX_VALUE): boolean {
    const text = latin1(value);
    const packed = this.packed;
    if (packed !== null && field.length <= maxValue && text.length <= maxValue) {
      if (packed.setAfter(field, text, 0, 2)) {
        // As hashTypeSet: a limit lowered by CONFIG SET converts at the next write, an update too.
        if (packed.length / 2 > maxEntries) this.convertToTable();
        return false;
      }
      if (packed.length / 2 < maxEntries) {
        packed.push(field, text);
        return true;
      }
    }
    const table = this.packed !== null ? this.convertToTable() : this.table!;
    const isNew = !table.has(field);
    table.set(field, text);
    return isNew;
  }

  /**
   * Sets several fields at once (HSET's pairs, flat: field, value, field, value ..., in order,
   * a later pair winning over an earlier one with the same field); returns how many fields are
   * new. Same result as set() pair by pair, but a small hash is rebuilt once instead of once
   * per pair: a broker's job record writes 4-10 fields at a time.
   */
  setPairs(pairs: ReadonlyArray<string>, maxEntries = LISTPACK_MAX_ENTRIES, maxValue = LISTPACK_MAX_VALUE): number {
    const packed = this.packed;
    let fits = packed !== null && pairs.length >= 4;
    for (let i = 0; fits && i < pairs.length; i++) fits = pairs[i]!.length <= maxValue;
    if (!fits) {
      let created = 0;
      for (let i = 0; i + 1 < pairs.length; i += 2) if (this.set(pairs[i]!, pairs[i + 1]!, maxEntries, maxValue)) created++;
      return created;
    }
    const created = packed!.setPairs(pairs);
    // Past the entry limit, as set() would have converted it (once in a hash's life).
    if (packed!.length / 2 > maxEntries) this.convertToTable();
    return created;
  }

  delete(field: string): boolean {
    const packed = this.packed;
    if (packed === null) return this.table!.delete(field);
    const at = packed.indexOf(field, 0, 2);
    if (at === -1) return false;
    packed.splice(at, 2);
    return true;
  }

  /** Field and value pairs as latin1 text, in the hash's order. */
  *stringEntries(): IterableIterator<[field: string, value: string]> {
    if (this.packed === null) {
      yield* this.table!;
      return;
    }
    // values() walks the sequence as it was when it started, whatever is changed meanwhile.
    const elements = this.packed.values();
    for (let field = elements.next(); field.done !== true; field = elements.next()) {
      yield [field.value, elements.next().value as string];
    }
  }

  /** Field and value pairs, fields as latin1 text and values as bytes. */
  *entries(): IterableIterator<[field: string, value: Buffer]> {
    for (const [field, value] of this.stringEntries()) yield [field, Buffer.from(value, 'latin1')];
  }

  *fieldNames(): IterableIterator<string> {
    if (this.packed === null) {
      yield* this.table!.keys();
      return;
    }
    let isField = true;
    for (const element of this.packed.values()) {
      if (isField) yield element;
      isField = !isField;
    }
  }

  *values(): IterableIterator<Buffer> {
    for (const [, value] of this.stringEntries()) yield Buffer.from(value, 'latin1');
  }

  /** Fields, values, or both alternating, in the hash's order, as ranges of one Buffer (for replies). */
  byteRanges(part: 'pairs' | 'fields' | 'values'): ByteRanges {
    if (this.packed !== null) return part === 'pairs' ? this.packed.byteRanges() : this.packed.byteRanges(part === 'fields' ? 0 : 1, 2);
    const texts: string[] = [];
    for (const [field, value] of this.table!) {
      if (part !== 'values') texts.push(field);
      if (part !== 'fields') texts.push(value);
    }
    return byteRangesOf(texts);
  }

  private convertToTable(): Map<string, string> {
    const table = new Map<string, string>(this.stringEntries());
    this.packed = null;
    this.table = table;
    return table;
  }
}
