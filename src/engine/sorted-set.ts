// A Redis sorted set: members (latin1 strings, one char per byte) ordered by (score, member),
// as sorted-set-order.ts says. Its form follows Redis's encodings: packed in one string while it
// is small (OBJ_ENCODING_LISTPACK, sorted-set-packed.ts), chunked and indexed once it is past
// zset-max-listpack-entries or a member is past zset-max-listpack-value (OBJ_ENCODING_SKIPLIST,
// sorted-set-chunks.ts). Like Redis's zsetConvert, the change is one way: a set never packs
// again (Redis only packs the *STORE commands' results, built afresh).
import type { TypedValue } from './keyspace.js';
import { ChunkedSortedSet } from './sorted-set-chunks.js';
import type { ScoreEntry } from './sorted-set-order.js';
import { PackedSortedSet } from './sorted-set-packed.js';

export { compareEntries, type ScoreEntry } from './sorted-set-order.js';

/** Redis's default zset-max-listpack-entries and zset-max-listpack-value. */
export const MAX_LISTPACK_ENTRIES = 128;
export const MAX_LISTPACK_VALUE = 64;

export class SortedSetValue implements TypedValue {
  /** On the prototype, not a field: one word less per key. */
  get typeName(): 'zset' {
    return 'zset';
  }

  private form: PackedSortedSet | ChunkedSortedSet = new PackedSortedSet();

  get size(): number {
    return this.form.size;
  }

  /** Whether the set is in Redis's OBJ_ENCODING_LISTPACK (OBJECT ENCODING, ZSCAN's reply shape, RDB). */
  get isListpack(): boolean {
    return this.form instanceof PackedSortedSet;
  }

  score(member: string): number | undefined {
    return this.form.score(member);
  }

  has(member: string): boolean {
    return this.form.score(member) !== undefined;
  }

  /**
   * Adds a member or moves it to a new score; returns true when the member is new. A new member
   * longer than `maxValue` bytes, or one past `maxEntries` members, turns a packed set into a
   * chunked one for good (zset-max-listpack-value / -entries). A packed set stores -0 as 0, as a
   * listpack does; a chunked one keeps it.
   */
  set(member: string, score: number, maxEntries = MAX_LISTPACK_ENTRIES, maxValue = MAX_LISTPACK_VALUE): boolean {
    const form = this.form;
    if (form instanceof PackedSortedSet && (member.length > maxValue || form.size + 1 > maxEntries)) {
      // Only a new member converts the set (zsetAdd checks the limits when it inserts).
      if (form.update(member, score)) return false;
      this.form = ChunkedSortedSet.of(form.entries());
    }
    return this.form.set(member, score);
  }

  delete(member: string): boolean {
    return this.form.delete(member);
  }

  /**
   * Live iteration of the members in insertion order, for ZSCAN's cursors: it keeps its place
   * across changes. Only for sets past the listpack encoding (a listpack is scanned whole).
   */
  indexMembers(): IterableIterator<string> {
    if (this.form instanceof PackedSortedSet) throw new Error('a listpack-encoded set has no member index');
    return this.form.indexMembers();
  }

  /** 0-based rank in ascending order, undefined when absent. */
  rank(member: string): number | undefined {
    return this.form.rank(member);
  }

  /** Number of entries whose score is below `score` (or at most `score` when `orEqual`). */
  countBelowScore(score: number, orEqual: boolean): number {
    return this.form.countBelowScore(score, orEqual);
  }

  /**
   * Number of entries whose member is below `member` (or at most `member` when `orEqual`),
   * assuming all scores are equal, as ZRANGEBYLEX does.
   */
  countBelowMember(member: string, orEqual: boolean): number {
    return this.form.countBelowMember(member, orEqual);
  }

  /** Entries with rank in [start, end), ascending. */
  slice(start: number, end: number): ScoreEntry[] {
    return this.form.slice(start, end);
  }

  /** Removes the entries with rank in [start, end); returns them in ascending order. */
  deleteRange(start: number, end: number): ScoreEntry[] {
    return this.form.deleteRange(start, end);
  }

  /** Every entry in order. */
  entries(): IterableIterator<ScoreEntry> {
    return this.form.entries();
  }
}
