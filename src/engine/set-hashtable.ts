// A set's members once it is no longer an intset (Redis's OBJ_ENCODING_HT): a Map in insertion
// order (membership, and the live iteration SSCAN parks) and a dense array (a uniformly random
// member in O(1) for SPOP / SRANDMEMBER; a removal moves the last slot into the freed one).

export class SetHashtable {
  /** Member → its slot in `slots`; iterated in insertion order. */
  private readonly index = new Map<string, number>();
  private readonly slots: string[] = [];

  static of(members: Iterable<string>): SetHashtable {
    const table = new SetHashtable();
    for (const m of members) table.add(m);
    return table;
  }

  get size(): number {
    return this.slots.length;
  }

  /** The members in insertion order (a live iterator). */
  get members(): IterableIterator<string> {
    return this.index.keys();
  }

  /** Adds a member; returns true when it was not there. */
  add(member: string): boolean {
    if (this.index.has(member)) return false;
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

  /** The member in slot `index` (0 <= index < size): slots are in no meaningful order. */
  at(index: number): string {
    return this.slots[index]!;
  }
}
