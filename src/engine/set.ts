// A Redis set of members (latin1 strings, one char per byte).
// Redis 7.0 keeps a set made only of integers (at most set-max-intset-entries of them) as a
// sorted intset, and SMEMBERS/SSCAN then reply in ascending numeric order; once a set leaves
// that encoding it never returns to it. We track the same flag so replies are in the same
// order as Redis's for integer sets, the common case in tests and the broker's receipts.
// Members are kept twice: a Map in insertion order (membership, and the live iteration SSCAN
// parks) and a dense array (a uniformly random member in O(1) for SPOP / SRANDMEMBER; a removal
// moves the last slot into the freed one).
import type { TypedValue } from './keyspace.js';

/** Redis's default set-max-intset-entries (CONFIG SET changes it: callers pass theirs). */
export const MAX_INTSET_ENTRIES = 512;

/** True for the members Redis's intset can hold: strict signed 64-bit decimals. */
export function isIntsetMember(member: string): boolean {
  if (member.length === 0 || member.length > 20) return false;
  if (!/^(0|-?[1-9][0-9]*)$/.test(member)) return false;
  const v = BigInt(member);
  return v <= 9223372036854775807n && v >= -9223372036854775808n;
}

export class SetValue implements TypedValue {
  readonly typeName = 'set' as const;
  /** Member → its slot in `slots`; iterated in insertion order. */
  private readonly index = new Map<string, number>();
  private readonly slots: string[] = [];
  /** Mirrors Redis's OBJ_ENCODING_INTSET: all members integers and few enough of them. */
  private intset = true;

  /** A set of `members` as Redis builds one member by member (setTypeCreate + setTypeAdd). */
  static of(members: Iterable<string>, maxIntset = MAX_INTSET_ENTRIES): SetValue {
    const set = new SetValue();
    for (const m of members) set.add(m, maxIntset);
    return set;
  }

  get size(): number {
    return this.slots.length;
  }

  /** The members in insertion order (a fresh live iterator each time). */
  get members(): IterableIterator<string> {
    return this.index.keys();
  }

  /** Adds a member; returns true when it was not there. Past `maxIntset` members it is a hashtable. */
  add(member: string, maxIntset = MAX_INTSET_ENTRIES): boolean {
    if (this.index.has(member)) return false;
    if (this.intset && (!isIntsetMember(member) || this.slots.length + 1 > maxIntset)) {
      this.intset = false;
    }
    this.index.set(member, this.slots.length);
    this.slots.push(member);
    return true;
  }

  delete(member: string): boolean {
    const at = this.index.get(member);
    if (at === undefined) return false;
    this.index.delete(member);
    const last = this.slots.pop()!;
    if (at < this.slots.length) {
      this.slots[at] = last;
      this.index.set(last, at);
    }
    return true;
  }

  has(member: string): boolean {
    return this.index.has(member);
  }

  get isIntset(): boolean {
    return this.intset;
  }

  /** A uniformly random member (the set must not be empty). */
  random(): string {
    return this.slots[Math.floor(Math.random() * this.slots.length)]!;
  }

  /**
   * `count` distinct random members (count < size), in the order drawn: a partial shuffle of a
   * copy when many are wanted, draws with rejection when few are.
   */
  randomDistinct(count: number): string[] {
    const size = this.slots.length;
    if (count * 3 > size) {
      const copy = this.slots.slice();
      for (let i = 0; i < count; i++) {
        const j = i + Math.floor(Math.random() * (size - i));
        const t = copy[i]!;
        copy[i] = copy[j]!;
        copy[j] = t;
      }
      copy.length = count;
      return copy;
    }
    const picked = new Set<string>();
    while (picked.size < count) picked.add(this.random());
    return [...picked];
  }

  /** Members in the order Redis replies with them where that order is deterministic. */
  list(): string[] {
    const all = [...this.index.keys()];
    if (this.intset) {
      all.sort((a, b) => {
        const x = BigInt(a);
        const y = BigInt(b);
        return x < y ? -1 : x > y ? 1 : 0;
      });
    }
    return all;
  }
}
