// A Redis hash: field -> value. Fields are latin1 strings (one char per byte, like keys) so
// they are cheap Map keys; values are the exact bytes. A Map keeps insertion order, which is
// the order Redis's listpack encoding replies in for small hashes (the differential tests
// rely on it); updating a field keeps its position, as a listpack update does.
import type { TypedValue } from './keyspace.js';

/** Redis's default hash-max-listpack-entries and hash-max-listpack-value (CONFIG SET changes them: callers pass theirs). */
export const LISTPACK_MAX_ENTRIES = 512;
export const LISTPACK_MAX_VALUE = 64;

export class HashValue implements TypedValue {
  readonly typeName = 'hash' as const;
  readonly fields = new Map<string, Buffer>();
  /** Mirrors Redis's OBJ_ENCODING_LISTPACK: once a hash leaves it, it never returns. */
  private listpack = true;

  get isListpack(): boolean {
    return this.listpack;
  }

  get size(): number {
    return this.fields.size;
  }

  get(field: string): Buffer | undefined {
    return this.fields.get(field);
  }

  /**
   * Sets a field; returns true when the field is new. A field or value longer than `maxValue`
   * bytes, or more than `maxEntries` fields, and the hash is a hashtable for good.
   */
  set(field: string, value: Buffer, maxEntries = LISTPACK_MAX_ENTRIES, maxValue = LISTPACK_MAX_VALUE): boolean {
    const isNew = !this.fields.has(field);
    this.fields.set(field, value);
    if (this.listpack && (field.length > maxValue || value.length > maxValue || this.fields.size > maxEntries)) {
      this.listpack = false;
    }
    return isNew;
  }

  delete(field: string): boolean {
    return this.fields.delete(field);
  }

  has(field: string): boolean {
    return this.fields.has(field);
  }
}
