// A sorted set past Redis's listpack limits (its skiplist encoding), ordered as
// sorted-set-order.ts says: the order is kept as a chunked sorted list (runs of at most CHUNK_MAX entries,
// parallel arrays of members and unboxed doubles), found by binary search over the chunks'
// last entries. A Fenwick tree over the chunk sizes gives the number of entries before any
// chunk in O(log n), so rank and select-by-rank are O(log n) too. A Map member -> its chunk
// makes ZSCORE a hash lookup plus a scan of one chunk, and is what ZSCAN's cursors walk; the
// Map holds a pointer, not the score, because a double that is not a small integer (a
// timestamp, 1.5) would be a 16-byte heap object per member. Compared with a skip list there
// are no node objects or level arrays: an entry is a pointer and an 8-byte double in its chunk
// plus its Map slot; the member string is shared by both. Small sets are packed instead
// (sorted-set-packed.ts).
import { compareEntries, type ScoreEntry } from './sorted-set-order.js';

/** Chunk size; a chunk grown past this by inserts is split in two. */
const CHUNK_MAX = 128;
/** A chunk that shrinks below this is merged into a neighbour when they fit together. */
const CHUNK_MIN = CHUNK_MAX / 4;
const HASHES_CAPACITY = CHUNK_MAX + 1;

interface Chunk {
  members: string[];
  scores: number[];
  /**
   * A 32-bit hash of each member: a lookup scans these (contiguous) and reads a member string,
   * a pointer away in the heap, only on a hash match. Fixed capacity CHUNK_MAX + 1 (a chunk
   * holds one more entry just before it splits).
   */
  hashes: Int32Array;
}

export class ChunkedSortedSet {
  /** member -> the chunk holding it (a pointer: no boxed double per member). */
  private readonly index = new Map<string, Chunk>();
  private count = 0;
  private chunks: Chunk[] = [];
  /** Fenwick tree over chunk sizes (1-based internally); null with at most one chunk. */
  private tree: number[] | null = null;

  /** A set of `entries`, given in order (a packed set converted, as Redis's zsetConvert). */
  static of(entries: Iterable<ScoreEntry>): ChunkedSortedSet {
    const set = new ChunkedSortedSet();
    for (const e of entries) set.set(e.member, e.score);
    return set;
  }

  get size(): number {
    return this.count;
  }

  score(member: string): number | undefined {
    const c = this.index.get(member);
    if (c === undefined) return undefined;
    const i = indexOfMember(c, member);
    return i < 0 ? undefined : c.scores[i];
  }

  has(member: string): boolean {
    return this.score(member) !== undefined;
  }

  /** Adds a member or moves it to a new score; returns true when the member is new. -0 stays -0, as in a skiplist. */
  set(member: string, score: number): boolean {
    const old = this.score(member);
    if (old !== undefined) {
      // Same score (-0 and 0 included, as Redis's `score != curscore` test): nothing moves.
      if (old === score) return false;
      this.removeAt(this.locate(old, member));
      this.insert(member, score);
      return false;
    }
    this.insert(member, score);
    this.count++;
    return true;
  }

  delete(member: string): boolean {
    const score = this.score(member);
    if (score === undefined) return false;
    this.removeAt(this.locate(score, member));
    this.index.delete(member);
    this.count--;
    return true;
  }

  /** Live iteration of the members in insertion order, for ZSCAN's cursors: it keeps its place across changes. */
  indexMembers(): IterableIterator<string> {
    return this.index.keys();
  }

  /** 0-based rank in ascending order, undefined when absent. */
  rank(member: string): number | undefined {
    const score = this.score(member);
    if (score === undefined) return undefined;
    const [ci, i] = this.locate(score, member);
    return this.countBefore(ci) + i;
  }

  /** Number of entries whose score is below `score` (or at most `score` when `orEqual`). */
  countBelowScore(score: number, orEqual: boolean): number {
    const below = orEqual ? (s: number) => s <= score : (s: number) => s < score;
    return this.partitionPoint((c, i) => below(c.scores[i]!));
  }

  /**
   * Number of entries whose member is below `member` (or at most `member` when `orEqual`),
   * assuming all scores are equal, as ZRANGEBYLEX does.
   */
  countBelowMember(member: string, orEqual: boolean): number {
    const below = orEqual ? (m: string) => m <= member : (m: string) => m < member;
    return this.partitionPoint((c, i) => below(c.members[i]!));
  }

  /** Entries with rank in [start, end), ascending. */
  slice(start: number, end: number): ScoreEntry[] {
    const out: ScoreEntry[] = [];
    if (start >= end) return out;
    let [ci, i] = this.select(start);
    for (let n = end - start; n > 0 && ci < this.chunks.length; ci++, i = 0) {
      const c = this.chunks[ci]!;
      for (; i < c.members.length && n > 0; i++, n--) out.push({ member: c.members[i]!, score: c.scores[i]! });
    }
    return out;
  }

  /** Removes the entries with rank in [start, end); returns them in ascending order. */
  deleteRange(start: number, end: number): ScoreEntry[] {
    const removed = this.slice(start, end);
    if (removed.length === 0) return removed;
    let [ci, i] = this.select(start);
    let left = removed.length;
    let emptied = false;
    while (left > 0) {
      const c = this.chunks[ci]!;
      const n = Math.min(left, c.members.length - i);
      c.members.splice(i, n);
      c.scores.splice(i, n);
      c.hashes.copyWithin(i, i + n, c.members.length + n);
      if (c.members.length === 0) emptied = true;
      else this.addToTree(ci, -n);
      left -= n;
      ci++;
      i = 0;
    }
    for (const e of removed) this.index.delete(e.member);
    this.count -= removed.length;
    // Popping one at a time empties a chunk only every CHUNK_MAX pops: rebuild only then.
    if (emptied) {
      this.chunks = this.chunks.filter((c) => c.members.length > 0);
      this.rebuildTree();
    }
    return removed;
  }

  /** Every entry in order. */
  *entries(): IterableIterator<ScoreEntry> {
    for (const c of this.chunks) {
      for (let i = 0; i < c.members.length; i++) yield { member: c.members[i]!, score: c.scores[i]! };
    }
  }

  // --- internals -----------------------------------------------------------------------------

  /** Points the member index at `c` for each of its members (after a split or a merge). */
  private pointIndexAt(c: Chunk): void {
    for (const m of c.members) this.index.set(m, c);
  }

  /** The first chunk whose last entry is not below (score, member), else the last chunk. */
  private chunkFor(score: number, member: string): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.chunks[mid]!;
      const last = c.members.length - 1;
      if (compareEntries(c.scores[last]!, c.members[last]!, score, member) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Chunk and index of an entry known to be present. */
  private locate(score: number, member: string): [number, number] {
    const ci = this.chunkFor(score, member);
    return [ci, lowerBound(this.chunks[ci]!, score, member)];
  }

  private insert(member: string, score: number): void {
    if (this.chunks.length === 0) {
      const first: Chunk = { members: [member], scores: [score], hashes: new Int32Array(HASHES_CAPACITY) };
      first.hashes[0] = memberHash(member);
      this.chunks.push(first);
      this.index.set(member, first);
      this.rebuildTree();
      return;
    }
    const lo = this.chunkFor(score, member);
    const c = this.chunks[lo]!;
    const i = lowerBound(c, score, member);
    c.members.splice(i, 0, member);
    c.scores.splice(i, 0, score);
    c.hashes.copyWithin(i + 1, i, c.members.length - 1);
    c.hashes[i] = memberHash(member);
    this.index.set(member, c);
    if (c.members.length > CHUNK_MAX) {
      // Ascending (or descending) runs, like due times, leave full chunks behind them instead
      // of half-empty ones: the new entry starts a chunk of its own.
      const at = i === c.members.length - 1 ? i : i === 0 ? 1 : c.members.length >>> 1;
      const hashes = new Int32Array(HASHES_CAPACITY);
      hashes.set(c.hashes.subarray(at, c.members.length));
      const right: Chunk = { members: c.members.splice(at), scores: c.scores.splice(at), hashes };
      this.chunks.splice(lo + 1, 0, right);
      this.pointIndexAt(right);
      this.rebuildTree();
    } else {
      this.addToTree(lo, 1);
    }
  }

  private removeAt([ci, i]: [number, number]): void {
    const c = this.chunks[ci]!;
    c.members.splice(i, 1);
    c.scores.splice(i, 1);
    c.hashes.copyWithin(i, i + 1, c.members.length + 1);
    if (c.members.length === 0) {
      this.chunks.splice(ci, 1);
      this.rebuildTree();
      return;
    }
    if (c.members.length < CHUNK_MIN) {
      // Keeps chunks from decaying into many tiny ones after many deletes.
      const next = this.chunks[ci + 1];
      if (next !== undefined && next.members.length + c.members.length <= CHUNK_MAX / 2) {
        c.hashes.set(next.hashes.subarray(0, next.members.length), c.members.length);
        c.members.push(...next.members);
        c.scores.push(...next.scores);
        this.chunks.splice(ci + 1, 1);
        this.pointIndexAt(c);
        this.rebuildTree();
        return;
      }
    }
    this.addToTree(ci, -1);
  }

  /** The first rank at which `below` is false; `below` must be true on a prefix of the order. */
  private partitionPoint(below: (c: Chunk, i: number) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.chunks[mid]!;
      if (below(c, c.members.length - 1)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.chunks.length) return this.count;
    const c = this.chunks[lo]!;
    let a = 0;
    let b = c.members.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (below(c, mid)) a = mid + 1;
      else b = mid;
    }
    return this.countBefore(lo) + a;
  }

  /** Chunk and index of the entry at `rank` (chunks.length when past the end). */
  private select(rank: number): [number, number] {
    const tree = this.tree;
    if (tree === null) {
      const n = this.chunks[0]?.members.length ?? 0;
      return rank < n ? [0, rank] : [this.chunks.length, rank - n];
    }
    // Fenwick descent: the largest prefix of chunks holding at most `rank` entries.
    let pos = 0;
    let rest = rank;
    let step = 1;
    while (step * 2 < tree.length) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = pos + step;
      if (next < tree.length && tree[next]! <= rest) {
        pos = next;
        rest -= tree[next]!;
      }
    }
    return [pos, rest];
  }

  /** Entries in the chunks before chunk `ci`. */
  private countBefore(ci: number): number {
    const tree = this.tree;
    if (tree === null) return ci === 0 ? 0 : this.count;
    let sum = 0;
    for (let k = ci; k > 0; k -= k & -k) sum += tree[k]!;
    return sum;
  }

  private addToTree(ci: number, delta: number): void {
    const tree = this.tree;
    if (tree === null) return;
    for (let k = ci + 1; k < tree.length; k += k & -k) tree[k]! += delta;
  }

  private rebuildTree(): void {
    const n = this.chunks.length;
    // A small set (one chunk) needs no tree: that saves an array per key.
    if (n <= 1) {
      this.tree = null;
      return;
    }
    const tree = new Array<number>(n + 1).fill(0);
    for (let k = 1; k <= n; k++) {
      tree[k]! += this.chunks[k - 1]!.members.length;
      const parent = k + (k & -k);
      if (parent <= n) tree[parent]! += tree[k]!;
    }
    this.tree = tree;
  }
}

/** Index of the first entry of a chunk that is not below (score, member). */
function lowerBound(c: Chunk, score: number, member: string): number {
  let lo = 0;
  let hi = c.members.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(c.scores[mid]!, c.members[mid]!, score, member) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** FNV-1a over the member's bytes (latin1: one char per byte), as a signed 32-bit integer. */
function memberHash(member: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < member.length; k++) h = Math.imul(h ^ member.charCodeAt(k), 0x01000193);
  return h | 0;
}

/** Position of a member in a chunk, or -1. */
function indexOfMember(c: Chunk, member: string): number {
  const n = c.members.length;
  const h = memberHash(member);
  const hashes = c.hashes;
  for (let k = 0; k < n; k++) if (hashes[k] === h && c.members[k] === member) return k;
  return -1;
}
