// A small sorted set as Redis keeps it in a listpack (zset-max-listpack-entries/-value): all its
// entries in one PackedStrings, in (score, member) order. An entry is one element, its score's
// code (sorted-set-score-code.ts) then the member's bytes, so the elements sort bytewise as the
// entries do: an insert position or a score bound is found by comparing bytes in place, and a
// member by skipping the code and comparing the rest. Lookups are linear, as a listpack's are;
// a set is packed only while it is small.
import { compareBytes, PackedStrings } from './packed-strings.js';
import type { ScoreEntry } from './sorted-set-order.js';
import { decodeScore, encodeScore, scoreCodeLength } from './sorted-set-score-code.js';

/** Where the entry the last `isEntryOf` test accepted is: its packed string and its bounds. */
let matchedData = '';
let matchedStart = 0;
let matchedEnd = 0;

/**
 * Whether the entry data[start, end) is the one of `member`; records where it is when it is.
 * Members of one length mostly differ in their last byte, which is compared first.
 */
function isEntryOf(member: string): (data: string, start: number, end: number) => boolean {
  const length = member.length;
  const last = length === 0 ? -1 : member.charCodeAt(length - 1);
  return (data, start, end) => {
    const at = end - length;
    if (at <= start || (length > 0 && data.charCodeAt(end - 1) !== last)) return false;
    if (start + scoreCodeLength(data, start) !== at || !data.startsWith(member, at)) return false;
    matchedData = data;
    matchedStart = start;
    matchedEnd = end;
    return true;
  };
}

function entryOf(element: string): ScoreEntry {
  return { member: element.slice(scoreCodeLength(element, 0)), score: decodeScore(element, 0) };
}

export class PackedSortedSet {
  private readonly packed = new PackedStrings();

  get size(): number {
    return this.packed.length;
  }

  score(member: string): number | undefined {
    return this.packed.findIndex(isEntryOf(member)) < 0 ? undefined : decodeScore(matchedData, matchedStart);
  }

  /** 0-based rank in ascending order, undefined when absent. */
  rank(member: string): number | undefined {
    const i = this.packed.findIndex(isEntryOf(member));
    return i < 0 ? undefined : i;
  }

  /** Adds a member or moves it to a new score; returns true when the member is new. -0 is stored as 0, as a listpack does. */
  set(member: string, score: number): boolean {
    return this.place(member, score, true) === 'added';
  }

  /** Moves a member to a new score, as set does; false (and nothing changes) when it is absent. */
  update(member: string, score: number): boolean {
    return this.place(member, score, false) === 'updated';
  }

  private place(member: string, score: number, mayAdd: boolean): 'added' | 'updated' | 'absent' {
    // Joined, not concatenated: a sequential string, which the byte comparisons read fastest.
    const element = [encodeScore(score), member].join('');
    const isMember = isEntryOf(member);
    // One walk finds both the member's entry and where the new one goes: the elements below it.
    let index = 0;
    let current = -1;
    let at = -1;
    this.packed.findIndex((data, start, end) => {
      if (at < 0 && compareBytes(data, start, end, element) >= 0) at = index;
      if (current < 0 && isMember(data, start, end)) current = index;
      index++;
      return at >= 0 && current >= 0;
    });
    if (at < 0) at = this.packed.length;
    if (current < 0) {
      if (!mayAdd) return 'absent';
      this.packed.splice(at, 0, element);
      return 'added';
    }
    // The same score (0 and -0 share a code) leaves the element as it is.
    if (compareBytes(matchedData, matchedStart, matchedEnd, element) === 0) return 'updated';
    // `at` counts the current entry when it is below the new one.
    if (at === current || at === current + 1) this.packed.set(current, element);
    else this.packed.move(current, at > current ? at - 1 : at, element);
    return 'updated';
  }

  delete(member: string): boolean {
    const i = this.packed.findIndex(isEntryOf(member));
    if (i < 0) return false;
    this.packed.splice(i, 1);
    return true;
  }

  /** Number of entries whose score is below `score` (or at most `score` when `orEqual`). */
  countBelowScore(score: number, orEqual: boolean): number {
    const code = encodeScore(score);
    if (!orEqual) return this.packed.sortedIndex(code);
    // The code's last byte with its `more` bit set sorts after every element of that score
    // (they continue with that byte clear) and before every higher code.
    const last = code.charCodeAt(code.length - 1);
    return this.packed.sortedIndex(code.slice(0, -1) + String.fromCharCode(last | 1));
  }

  /**
   * Number of entries whose member is below `member` (or at most `member` when `orEqual`),
   * assuming all scores are equal, as ZRANGEBYLEX does.
   */
  countBelowMember(member: string, orEqual: boolean): number {
    return this.packed.partitionPoint((data, start, end) => {
      const c = compareBytes(data, start + scoreCodeLength(data, start), end, member);
      return orEqual ? c <= 0 : c < 0;
    });
  }

  /** Entries with rank in [start, end), ascending. */
  slice(start: number, end: number): ScoreEntry[] {
    return this.packed.slice(start, end).map(entryOf);
  }

  /** Removes the entries with rank in [start, end); returns them in ascending order. */
  deleteRange(start: number, end: number): ScoreEntry[] {
    const removed = this.slice(start, end);
    if (removed.length > 0) this.packed.splice(start, removed.length);
    return removed;
  }

  /** Every entry in order, as the set is now (later changes are not seen). */
  *entries(): IterableIterator<ScoreEntry> {
    for (const element of this.packed) yield entryOf(element);
  }
}
