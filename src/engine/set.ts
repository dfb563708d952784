// A Redis set of members (latin1 strings, one char per byte).
// Redis 7.0 keeps a set made only of integers (at most set-max-intset-entries of them) as a
// sorted intset, and SMEMBERS/SSCAN then reply in ascending numeric order; once a set leaves
// that encoding it never returns to it. We track the same flag so replies are in the same
// order as Redis's for integer sets, the common case in tests and the broker's receipts.
import type { TypedValue } from './keyspace.js';

/** Redis's default set-max-intset-entries. */
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
  readonly members = new Set<string>();
  /** Mirrors Redis's OBJ_ENCODING_INTSET: all members integers and few enough of them. */
  private intset = true;

  get size(): number {
    return this.members.size;
  }

  /** Adds a member; returns true when it was not there. */
  add(member: string): boolean {
    if (this.members.has(member)) return false;
    if (this.intset && (!isIntsetMember(member) || this.members.size + 1 > MAX_INTSET_ENTRIES)) {
      this.intset = false;
    }
    this.members.add(member);
    return true;
  }

  delete(member: string): boolean {
    return this.members.delete(member);
  }

  has(member: string): boolean {
    return this.members.has(member);
  }

  get isIntset(): boolean {
    return this.intset;
  }

  /** Members in the order Redis replies with them where that order is deterministic. */
  list(): string[] {
    const all = [...this.members];
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
