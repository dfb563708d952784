// The stream value: entries in packed nodes (stream-node.ts) found through an ordered index,
// plus the metadata Redis keeps (last_id, max_deleted_entry_id, entries_added, groups).
//
// For the consumer-group and XINFO code:
// - `length` counts live entries; deleted ones remain as tombstones inside their node until
//   the node is freed (XDEL of a node's last live entry frees it, as Redis does).
// - `lastId` is Redis's last_id: the top id ever added or set by XSETID, not necessarily the
//   id of lastLiveId(). `maxDeletedId` is max_deleted_entry_id (updated by delete() only,
//   never by trimming, as in Redis). `entriesAdded` is entries_added.
// - Redis's first_id is `firstLiveId() ?? MIN_ID`; firstEntry()/lastEntry() also decode fields.
// - range() bounds are inclusive; count 0 means no limit. Returned field Buffers are views
//   into immutable node memory: safe to keep, never to modify. rangeRefs() finds the same
//   entries without decoding them (entry-refs.ts), for replies written from the node bytes.
// - append() does not check the id: callers use nextId() (stream-id.ts) first. Pass the
//   CONFIG node limits (nodeLimits(ctx) in commands/stream/common.ts) so node boundaries, and
//   therefore what "~" trims, are Redis's.
// - firstIdWithTombstones() is the first id still stored (Redis's streamGetEdgeID without
//   skipping tombstones); nodeCount() / estimatedBytes() are for XINFO and MEMORY USAGE.
// - A node loaded from an RDB may stay in the file's form (a PackedNode: Redis's listpack, as a
//   replica's full sync or a restart reads it) until an operation needs its entries: node(i)
//   unpacks it then, in place. Loading 1M entries was mostly building nodes nobody read yet;
//   counting, trimming whole nodes, measuring and saving them again need no unpacking.
import type { ConsumerGroup } from './consumer-group.js';
import type { IdmpState } from './idmp.js';
import type { TypedValue } from './keyspace.js';
import {
  compareIds,
  incrementId,
  MAX_ID,
  MIN_ID,
  type StreamId,
  type U64,
  u64,
  u64Add1,
  u64Lt,
  u64ToBigInt,
} from './stream-id.js';
import { EntryFields } from './entry-fields.js';
import { EntryRefs } from './entry-refs.js';
import { NodeCursor, StreamNode } from './stream-node.js';

/**
 * A node still in another form than StreamNode's (rdb/stream-codec.ts: the listpack an RDB
 * held), with what the index and whole-node operations read, and unpack() for the rest.
 */
export interface PackedNode {
  readonly masterMs: U64;
  readonly masterSeq: U64;
  /** Live and deleted-but-present entries, as the packed form's header says. */
  readonly live: number;
  readonly deleted: number;
  lpBytes(): number;
  capacity(): number;
  /** The node as a StreamNode; throws (RdbFormatError) when the packed form is not valid. */
  unpack(): StreamNode;
}

type AnyNode = StreamNode | PackedNode;

/** An entry as the engine stores it (the broker parses replies into its own StreamEntry). */
export interface StoredEntry {
  id: StreamId;
  /** Flat f1, v1, f2, v2 ... */
  fields: Buffer[];
}

/** stream-node-max-bytes / stream-node-max-entries (0 = no limit, as in Redis). */
export interface NodeLimits {
  maxBytes: number;
  maxEntries: number;
}

export const DEFAULT_NODE_LIMITS: NodeLimits = { maxBytes: 4096, maxEntries: 100 };

/** Redis's STREAM_LISTPACK_MAX_SIZE: the byte limit when stream-node-max-bytes is 0 or huge. */
const LISTPACK_MAX_SIZE = 1 << 30;

/** append()'s Buffers as ranges; an append runs to completion, so one object serves every stream. */
const wrapped = new EntryFields();

/** Rough per-node bookkeeping cost beyond the buffer (node object, ids, Buffer object). */
const NODE_OVERHEAD_BYTES = 240;

/** The id (ms, seq) < the id (bMs, bSeq), without an id object. */
function partsLessThan(ms: U64, seq: U64, bMs: U64, bSeq: U64): boolean {
  return u64Lt(ms, bMs) || (ms === bMs && u64Lt(seq, bSeq));
}

function lessThan(ms: U64, seq: U64, id: StreamId): boolean {
  return partsLessThan(ms, seq, id.ms, id.seq);
}

/** Where a range scan puts the entries it finds: decoded (StoredEntries) or located (EntryRefs). */
interface EntrySink {
  readonly length: number;
  /** Takes the cursor's current entry. */
  add(c: NodeCursor): void;
}

/** Entries decoded as they are found, for range(). */
class StoredEntries implements EntrySink {
  readonly entries: StoredEntry[] = [];

  get length(): number {
    return this.entries.length;
  }

  add(c: NodeCursor): void {
    this.entries.push({ id: { ms: c.ms, seq: c.seq }, fields: c.fields() });
  }
}

/**
 * Adds the live entries of one node within [start, end] to `out`, in the cursor's direction.
 * True when the scan is over: `count` entries collected, or the cursor went past the range.
 */
function collect(c: NodeCursor, start: StreamId, end: StreamId, count: number, out: EntrySink): boolean {
  const reverse = c.reverse;
  const node = c.node;
  if (!lessThan(node.masterMs, node.masterSeq, start) && !partsLessThan(end.ms, end.seq, node.lastMs, node.lastSeq)) {
    // The whole node is in the range (XRANGE - +, most nodes of a long range): no id checks.
    while (c.next()) {
      if (c.isDeleted) continue;
      out.add(c);
      if (count > 0 && out.length >= count) return true;
    }
    return false;
  }
  while (c.next()) {
    if (c.isDeleted) continue;
    const beforeStart = lessThan(c.ms, c.seq, start);
    const afterEnd = lessThan(end.ms, end.seq, c);
    if (reverse ? afterEnd : beforeStart) continue; // not in the range yet
    if (reverse ? beforeStart : afterEnd) return true; // past it
    out.add(c);
    if (count > 0 && out.length >= count) return true;
  }
  return false;
}

export class Stream implements TypedValue {
  readonly typeName = 'stream' as const;
  /** Live entries. */
  length = 0;
  lastId: StreamId = MIN_ID;
  maxDeletedId: StreamId = MIN_ID;
  readonly groups = new Map<string, ConsumerGroup>();
  /** Redis 8.6 idempotent-production state; created by XCFGSET or the first XADD IDMP. */
  idmp: IdmpState | undefined = undefined;

  /** entries_added as a U64: XADD counts it up without BigInt work (a BigInt += 1n is ~15 ns). */
  private added: U64 = 0;

  /** Redis's entries_added; a bigint to its readers (XINFO, XSETID, RDB, lag), as before. */
  get entriesAdded(): bigint {
    return u64ToBigInt(this.added);
  }

  set entriesAdded(n: bigint) {
    this.added = u64(n);
  }

  /** Nodes ordered by master id; the live ones are nodes[head ..]. */
  private nodes: AnyNode[] = [];
  private head = 0;

  /** Node i, unpacked in place when it was still packed. */
  private node(i: number): StreamNode {
    const n = this.nodes[i]!;
    if (n instanceof StreamNode) return n;
    const unpacked = n.unpack();
    this.nodes[i] = unpacked;
    return unpacked;
  }

  // --- index -----------------------------------------------------------------------------------

  /** Index of the last node whose master id is <= id, or head - 1 when there is none. */
  private findNode(id: StreamId): number {
    let lo = this.head;
    let hi = this.nodes.length - 1;
    let found = this.head - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const n = this.nodes[mid]!;
      if (partsLessThan(id.ms, id.seq, n.masterMs, n.masterSeq)) hi = mid - 1;
      else {
        found = mid;
        lo = mid + 1;
      }
    }
    return found;
  }

  private removeNode(i: number): void {
    if (i === this.head) {
      this.nodes[i] = undefined as unknown as AnyNode; // let it be collected now
      this.head++;
      if (this.head === this.nodes.length) {
        this.nodes = [];
        this.head = 0;
      } else if (this.head >= 64 && this.head * 2 >= this.nodes.length) {
        this.nodes = this.nodes.slice(this.head);
        this.head = 0;
      }
    } else {
      this.nodes.splice(i, 1);
    }
  }

  private tail(): StreamNode | undefined {
    return this.nodes.length > this.head ? this.node(this.nodes.length - 1) : undefined;
  }

  /** The nodes in id order, for RDB saving (read only; packed ones are saved as they are). */
  storedNodes(): readonly AnyNode[] {
    return this.nodes.slice(this.head);
  }

  /**
   * RDB loading: adds a node built elsewhere, with ids above every stored id, keeping its
   * entries (tombstones included) exactly as the file had them. Metadata is set by the caller.
   */
  appendStoredNode(node: AnyNode): void {
    const previous = this.nodes.length > this.head ? this.nodes[this.nodes.length - 1] : undefined;
    if (previous instanceof StreamNode) previous.seal();
    this.nodes.push(node);
    this.length += node.live;
  }

  nodeCount(): number {
    return this.nodes.length - this.head;
  }

  /** What Redis's listpack of each node would measure (lpBytes), oldest node first. */
  listpackBytes(): number[] {
    const out: number[] = [];
    for (let i = this.head; i < this.nodes.length; i++) out.push(this.nodes[i]!.lpBytes());
    return out;
  }

  /** lpBytes() of the node at `index` in id order (0 is the oldest), as listpackBytes()[index]. */
  nodeListpackBytes(index: number): number {
    return this.nodes[this.head + index]!.lpBytes();
  }

  /** Approximate bytes held by the entries (buffers plus per-node bookkeeping). */
  estimatedBytes(): number {
    let bytes = 128;
    for (let i = this.head; i < this.nodes.length; i++) bytes += this.nodes[i]!.capacity() + NODE_OVERHEAD_BYTES;
    return bytes;
  }

  // --- writing ---------------------------------------------------------------------------------

  /**
   * Appends an entry with an id above lastId (not checked). A new node starts, as in Redis's
   * streamAppendItem, when the tail's listpack size plus the new field and value bytes would
   * reach maxBytes, or the tail holds maxEntries entries (deleted ones included).
   */
  append(id: StreamId, fields: Buffer[], limits: NodeLimits = DEFAULT_NODE_LIMITS): void {
    try {
      this.appendFields(id, wrapped.setBuffers(fields), limits);
    } finally {
      wrapped.clear();
    }
  }

  /** append() from byte ranges (a request read in place, the AOF loader): see entry-fields.ts. */
  appendFields(id: StreamId, fields: EntryFields, limits: NodeLimits = DEFAULT_NODE_LIMITS): void {
    let node = this.tail();
    if (node !== undefined) {
      let maxBytes = limits.maxBytes;
      if (maxBytes <= 0 || maxBytes > LISTPACK_MAX_SIZE) maxBytes = LISTPACK_MAX_SIZE;
      let elementBytes = 0;
      for (let i = 0; i < fields.count; i++) elementBytes += fields.byteLength(i);
      if (node.lpBytes() + elementBytes >= maxBytes) node = undefined;
      else if (limits.maxEntries > 0 && node.live + node.deleted >= limits.maxEntries) node = undefined;
    }
    if (node === undefined) {
      const previous = this.tail();
      previous?.seal();
      // Sized like the node it follows (plus a little): no doubling, and seal() rarely copies.
      node = new StreamNode(id, fields, previous === undefined ? 0 : previous.used + 16);
      this.nodes.push(node);
    }
    node.append(id, fields);
    this.length++;
    this.lastId = id;
    this.added = u64Add1(this.added);
  }

  /**
   * XDEL of one id: marks the entry deleted, frees its node when no live entry is left, and
   * raises maxDeletedId. Returns false when there is no such live entry.
   */
  delete(id: StreamId): boolean {
    const i = this.findNode(id);
    if (i < this.head) return false;
    const node = this.node(i);
    if (lessThan(node.lastMs, node.lastSeq, id)) return false;
    const c = new NodeCursor(node);
    while (c.next()) {
      if (c.ms === id.ms && c.seq === id.seq) {
        if (!c.markDeleted()) return false;
        this.length--;
        if (compareIds(id, this.maxDeletedId) > 0) this.maxDeletedId = id;
        if (node.live === 0) this.removeNode(i);
        return true;
      }
      if (!lessThan(c.ms, c.seq, id)) return false;
    }
    return false;
  }

  /** Trims to at most maxLen entries; see trim(). Returns the number of entries removed. */
  trimByMaxLen(maxLen: number, approx: boolean, limit: number): number {
    return this.trim(maxLen, undefined, approx, limit);
  }

  /** Removes entries with ids below minId; see trim(). */
  trimByMinId(minId: StreamId, approx: boolean, limit: number): number {
    return this.trim(0, minId, approx, limit);
  }

  /**
   * Trimming with the ACKED policy (Redis 8.2): walks entries from the head while the stream
   * is above maxLen (or below minId) and deletes those `referenced` rejects, skipping the
   * rest. Exact in all cases ("~" has no node-level shortcut here, since a kept entry pins its
   * node). Like trimming, it leaves maxDeletedId alone. Returns the number removed.
   */
  trimUnreferenced(maxLen: number, minId: StreamId | undefined, referenced: (id: StreamId) => boolean): number {
    const savedMaxDeleted = this.maxDeletedId;
    let deleted = 0;
    let from = MIN_ID;
    outer: while (true) {
      const batch = this.range(from, MAX_ID, 128, false);
      if (batch.length === 0) break;
      for (const e of batch) {
        if (minId === undefined ? this.length <= maxLen : !lessThan(e.id.ms, e.id.seq, minId)) break outer;
        if (!referenced(e.id) && this.delete(e.id)) deleted++;
      }
      const next = incrementId(batch[batch.length - 1]!.id);
      if (next === undefined) break;
      from = next;
    }
    this.maxDeletedId = savedMaxDeleted;
    return deleted;
  }

  /**
   * Redis's streamTrim: whole nodes are freed from the head while they are entirely surplus;
   * with `approx` it stops at the first node it cannot free whole, otherwise it marks the
   * surplus entries of that node deleted. `limit` (0 = none) caps the entries freed with whole
   * nodes: a node that would take the count above it is left alone.
   */
  private trim(maxLen: number, minId: StreamId | undefined, approx: boolean, limit: number): number {
    let deleted = 0;
    while (this.head < this.nodes.length) {
      if (minId === undefined && this.length <= maxLen) break;
      const entries = this.nodes[this.head]!.live;
      if (limit > 0 && deleted + entries > limit) break;
      const removeNode = minId === undefined ? this.length - entries >= maxLen : this.allBelow(this.head, minId);
      if (removeNode) {
        this.removeNode(this.head);
        this.length -= entries;
        deleted += entries;
        continue;
      }
      if (approx) break;
      const c = new NodeCursor(this.node(this.head));
      while (c.next()) {
        if (minId === undefined ? this.length <= maxLen : !lessThan(c.ms, c.seq, minId)) break;
        if (c.markDeleted()) {
          this.length--;
          deleted++;
        }
      }
      break;
    }
    return deleted;
  }

  /**
   * Every entry of node i is below `id`: known from the next node's master id when it is <= id
   * (ids only grow from node to node), so a packed node is not unpacked to be trimmed away.
   */
  private allBelow(i: number, id: StreamId): boolean {
    const next = this.nodes[i + 1];
    if (next !== undefined && !partsLessThan(id.ms, id.seq, next.masterMs, next.masterSeq)) return true;
    const node = this.node(i);
    return lessThan(node.lastMs, node.lastSeq, id);
  }

  // --- reading ---------------------------------------------------------------------------------

  /** Fields of a live entry. */
  get(id: StreamId): Buffer[] | undefined {
    const found = this.range(id, id, 1, false);
    return found.length > 0 ? found[0]!.fields : undefined;
  }

  firstEntry(): StoredEntry | undefined {
    return this.length > 0 ? this.range(MIN_ID, MAX_ID, 1, false)[0] : undefined;
  }

  lastEntry(): StoredEntry | undefined {
    return this.length > 0 ? this.range(MIN_ID, MAX_ID, 1, true)[0] : undefined;
  }

  /** The id of the first live entry (Redis's first_id), as lastLiveId(). */
  firstLiveId(): StreamId | undefined {
    for (let i = this.head; i < this.nodes.length; i++) {
      const node = this.nodes[i]!;
      if (node.live === 0) continue;
      // A node's first entry is its master entry, live when nothing in the node is deleted.
      if (node.deleted === 0) return { ms: node.masterMs, seq: node.masterSeq };
      const c = new NodeCursor(this.node(i));
      while (c.next()) if (!c.isDeleted) return { ms: c.ms, seq: c.seq };
    }
    return undefined;
  }

  /**
   * The id of the last live entry (Redis's streamLastValidID) without reading its fields or
   * walking its node: a node with no deleted entry ends with a live one. Every XREADGROUP ">"
   * asks, so the common case is one object, not a backward cursor over the tail node.
   */
  lastLiveId(): StreamId | undefined {
    for (let i = this.nodes.length - 1; i >= this.head; i--) {
      if (this.nodes[i]!.live === 0) continue;
      const node = this.node(i);
      if (node.deleted === 0) return node.lastId;
      const c = new NodeCursor(node, true);
      while (c.next()) if (!c.isDeleted) return { ms: c.ms, seq: c.seq };
    }
    return undefined;
  }

  /**
   * The first id still stored, tombstones included (Redis's streamGetEdgeID with
   * skip_tombstones 0), or MAX_ID when no node is left. XADD/XTRIM propagate "MINID ~" as it.
   */
  firstIdWithTombstones(): StreamId {
    const node = this.nodes[this.head];
    return node === undefined ? MAX_ID : { ms: node.masterMs, seq: node.masterSeq };
  }

  /** Live entries with start <= id <= end, ascending (or descending), at most count (0 = all). */
  range(start: StreamId, end: StreamId, count: number, reverse: boolean): StoredEntry[] {
    const out = new StoredEntries();
    this.scan(start, end, count, reverse, out);
    return out.entries;
  }

  /** As range(), the entries located in their nodes rather than decoded (replies use them). */
  rangeRefs(start: StreamId, end: StreamId, count: number, reverse: boolean): EntryRefs {
    // Slots for COUNT entries up to 128 (a few for no COUNT: XRANGE s id id is one entry);
    // growing from empty reallocated each array four times on the way to 100.
    const out = new EntryRefs(Math.min(count > 0 ? count : 16, this.length, 128));
    this.scan(start, end, count, reverse, out);
    return out;
  }

  private scan(start: StreamId, end: StreamId, count: number, reverse: boolean, out: EntrySink): void {
    if (compareIds(start, end) > 0 || this.length === 0) return;
    if (!reverse) {
      for (let i = Math.max(this.findNode(start), this.head); i < this.nodes.length; i++) {
        const packed = this.nodes[i]!;
        if (partsLessThan(end.ms, end.seq, packed.masterMs, packed.masterSeq)) break;
        if (packed.live === 0) continue;
        const node = this.node(i);
        if (lessThan(node.lastMs, node.lastSeq, start)) continue;
        const c = new NodeCursor(node);
        c.skipBelow(start);
        if (collect(c, start, end, count, out)) return;
      }
      return;
    }
    for (let i = this.findNode(end); i >= this.head; i--) {
      const node = this.node(i);
      if (lessThan(node.lastMs, node.lastSeq, start)) break;
      if (node.live === 0) continue;
      if (collect(new NodeCursor(node, true), start, end, count, out)) return;
    }
  }
}
