// The bytes a database's keys and values take, kept as they change, so INFO's used_memory and
// the maxmemory check follow the data: a key set adds its bytes, a key deleted, expired or
// flushed takes them away at once (V8's heap figure only falls when the collector runs, which a
// server refusing writes may never do).
//
// What a byte costs is the MemoryModel's business (Redis's layouts, commands/used-memory.ts);
// this file only keeps the sum right. A string's bytes follow from the Buffer, so adding and
// removing it is exact. A typed value (stream, hash, ...) changes in place: its last count is
// kept, any value stored or handed out by Database.get is marked stale, and stale values are
// measured again when the total is read. The total is therefore always the sum of each present value's
// latest count; a deleted value takes away exactly what it had added.
import { Buffer } from 'node:buffer';
import type { StoredValue, TypedValue } from './keyspace.js';

export interface MemoryModel {
  /** A key's own bytes (its name and its slot in the key table). */
  keyBytes(keyLength: number): number;
  /** A value's bytes; called again for a typed value after it may have changed. */
  valueBytes(value: StoredValue): number;
}

export class DatasetMemory {
  private bytes = 0;
  /** The bytes last counted for each typed value present. */
  private readonly counted = new Map<TypedValue, number>();
  /** Typed values handed out since they were last measured. */
  private readonly stale = new Set<TypedValue>();

  constructor(readonly model: MemoryModel | null) {}

  /** A key and its value entered the database. */
  added(key: string, value: StoredValue): void {
    const model = this.model;
    if (model === null) return;
    this.bytes += model.keyBytes(key.length);
    if (Buffer.isBuffer(value)) {
      this.bytes += model.valueBytes(value);
    } else {
      // Measured when next read: the command storing it may still be filling it (MKSTREAM).
      this.counted.set(value, 0);
      this.stale.add(value);
    }
  }

  /** A key and its value left the database. */
  removed(key: string, value: StoredValue): void {
    const model = this.model;
    if (model === null) return;
    let bytes: number;
    if (Buffer.isBuffer(value)) {
      bytes = model.valueBytes(value);
    } else {
      bytes = this.counted.get(value) ?? 0;
      this.counted.delete(value);
      this.stale.delete(value);
    }
    this.bytes -= model.keyBytes(key.length) + bytes;
  }

  /** A typed value was handed out and may be changed in place: measure it again when read. */
  touched(value: TypedValue): void {
    if (this.model !== null) this.stale.add(value);
  }

  /** Every key is gone (FLUSHDB, FLUSHALL). */
  cleared(): void {
    this.bytes = 0;
    this.counted.clear();
    this.stale.clear();
  }

  /** Counts a whole database afresh (its values came from elsewhere: an RDB load). */
  recount(values: Map<string, StoredValue>): void {
    this.cleared();
    for (const [key, value] of values) this.added(key, value);
  }

  /** The database's bytes, stale values measured again first. */
  total(): number {
    const model = this.model;
    if (model === null) return 0;
    if (this.stale.size > 0) {
      for (const value of this.stale) {
        const bytes = model.valueBytes(value);
        this.bytes += bytes - (this.counted.get(value) ?? 0);
        this.counted.set(value, bytes);
      }
      this.stale.clear();
    }
    return this.bytes;
  }
}
