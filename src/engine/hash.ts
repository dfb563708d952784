// A Redis hash: field -> value. Fields are latin1 strings (one char per byte, like keys) so
// they are cheap Map keys; values are the exact bytes. A Map keeps insertion order, which is
// the order Redis's listpack encoding replies in for small hashes (the differential tests
// rely on it); updating a field keeps its position, as a listpack update does.
import type { TypedValue } from './keyspace.js';

export class HashValue implements TypedValue {
  readonly typeName = 'hash' as const;
  readonly fields = new Map<string, Buffer>();

  get size(): number {
    return this.fields.size;
  }

  get(field: string): Buffer | undefined {
    return this.fields.get(field);
  }

  /** Sets a field; returns true when the field is new. */
  set(field: string, value: Buffer): boolean {
    const isNew = !this.fields.has(field);
    this.fields.set(field, value);
    return isNew;
  }

  delete(field: string): boolean {
    return this.fields.delete(field);
  }

  has(field: string): boolean {
    return this.fields.has(field);
  }
}
