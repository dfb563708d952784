// A Redis set of members (latin1 strings, one char per byte).
// Redis 7.0 keeps a set made only of integers (at most set-max-intset-entries of them) as a
// sorted intset, and SMEMBERS/SSCAN then reply in ascending numeric order; once a set leaves
// that encoding it never returns to it. We do the same: an intset is one string of fixed-width
// integers (engine/intset-string.ts, a few bytes a member), converted to a hashtable
// (engine/set-hashtable.ts) by the first non-integer member or the member past the limit.
import {
  EMPTY_INTSET,
  intsetAdd,
  intsetAt,
  intsetDelete,
  intsetHas,
  intsetSize,
  type IntsetString,
  intsetValues,
  type IntsetWidth,
  intsetWidth,
  parseIntsetMember,
} from './intset-string.js';
import type { TypedValue } from './keyspace.js';
import { SetHashtable } from './set-hashtable.js';

/** Redis's default set-max-intset-entries (CONFIG SET changes it: callers pass theirs). */
export const MAX_INTSET_ENTRIES = 512;

export class SetValue implements TypedValue {
  /** On the prototype, not a field: one word less per key. */
  get typeName(): 'set' {
    return 'set';
  }

  /** The intset string while Redis's set would be OBJ_ENCODING_INTSET, else the hashtable. */
  private form: IntsetString | SetHashtable = EMPTY_INTSET;

  /** A set of `members` as Redis builds one member by member (setTypeCreate + setTypeAdd). */
  static of(members: Iterable<string>, maxIntset = MAX_INTSET_ENTRIES): SetValue {
    const set = new SetValue();
    for (const m of members) set.add(m, maxIntset);
    return set;
  }

  get size(): number {
    const form = this.form;
    return typeof form === 'string' ? intsetSize(form) : form.size;
  }

  /**
   * The members: an intset's ascending (over the set as it is now), a hashtable's in insertion
   * order (a live iterator). A fresh iterator each time.
   */
  get members(): IterableIterator<string> {
    const form = this.form;
    return typeof form === 'string' ? intsetValues(form) : form.members;
  }

  /** Adds a member; returns true when it was not there. Past `maxIntset` members it is a hashtable. */
  add(member: string, maxIntset = MAX_INTSET_ENTRIES): boolean {
    const form = this.form;
    if (typeof form !== 'string') return form.add(member);
    const value = parseIntsetMember(member);
    if (value === undefined) {
      // As setTypeAdd: convert (members in ascending order), then add to the hashtable.
      const table = SetHashtable.of(intsetValues(form));
      table.add(member);
      this.form = table;
      return true;
    }
    const grown = intsetAdd(form, value);
    if (grown === form) return false;
    // As setTypeAdd: add to the intset, then convert when it has grown past the limit.
    this.form = intsetSize(grown) > maxIntset ? SetHashtable.of(intsetValues(grown)) : grown;
    return true;
  }

  delete(member: string): boolean {
    const form = this.form;
    if (typeof form !== 'string') return form.delete(member);
    const value = parseIntsetMember(member);
    if (value === undefined) return false;
    const shrunk = intsetDelete(form, value);
    this.form = shrunk;
    return shrunk !== form;
  }

  has(member: string): boolean {
    const form = this.form;
    if (typeof form !== 'string') return form.has(member);
    const value = parseIntsetMember(member);
    return value !== undefined && intsetHas(form, value);
  }

  get isIntset(): boolean {
    return typeof this.form === 'string';
  }

  /** An intset's member width in code units (1, 2, 4: Redis's int16, int32, int64); undefined for a hashtable. */
  get intsetWidth(): IntsetWidth | undefined {
    const form = this.form;
    return typeof form === 'string' ? intsetWidth(form) : undefined;
  }

  /** The member at `index` (0 <= index < size): an intset's ascending, a hashtable's slots in no order. */
  private memberAt(index: number): string {
    const form = this.form;
    return typeof form === 'string' ? intsetAt(form, index) : form.at(index);
  }

  /** A uniformly random member (the set must not be empty). */
  random(): string {
    return this.memberAt(Math.floor(Math.random() * this.size));
  }

  /**
   * `count` distinct random members (count < size), in the order drawn: a partial shuffle of
   * the indexes when many are wanted, draws with rejection when few are.
   */
  randomDistinct(count: number): string[] {
    const size = this.size;
    if (count * 3 > size) {
      const indexes = Array.from({ length: size }, (_, i) => i);
      const out: string[] = [];
      for (let i = 0; i < count; i++) {
        const j = i + Math.floor(Math.random() * (size - i));
        const picked = indexes[j]!;
        indexes[j] = indexes[i]!;
        out.push(this.memberAt(picked));
      }
      return out;
    }
    const picked = new Set<number>();
    while (picked.size < count) picked.add(Math.floor(Math.random() * size));
    return [...picked].map((i) => this.memberAt(i));
  }

  /** Members in the order Redis replies with them where that order is deterministic. */
  list(): string[] {
    return [...this.members];
  }
}
