// Streams in RDB (rdb.c's RDB_TYPE_STREAM_LISTPACKS*): every node as Redis's stream listpack
// keyed by its master id, then the stream's metadata and its consumer groups with their PELs
// and consumers. sluice writes type 19 (STREAM_LISTPACKS_2), as Redis 7.0 does, and reads 15,
// 19 and Redis 7.2's 21 (which adds each consumer's active time).
//
// A node's listpack (t_stream.c): the master entry
//   count, deleted, num-master-fields, field_1 .. field_N, 0
// then per entry
//   flags, ms-diff, seq-diff, [num-fields, field_1, value_1 ..] | value_1 .. value_N, lp-count
// with the diffs relative to the master id and SAMEFIELDS when the names equal the master's.
// Tombstones (DELETED) are kept, so node boundaries and "~" trimming survive a reload.
import {
  ConsumerGroup,
  estimateDistanceFromFirstEverEntry,
  type PendingEntry,
} from '../engine/consumer-group.js';
import { EntryFields } from '../engine/entry-fields.js';
import { type PackedNode, Stream } from '../engine/stream.js';
import { MIN_ID, type StreamId, u64, type U64, u64Lt, u64ToBigInt } from '../engine/stream-id.js';
import { FLAG_DELETED, FLAG_SAME_FIELDS, Reader, StreamNode } from '../engine/stream-node.js';
import { RdbFormatError, TYPE_STREAM_LISTPACKS, TYPE_STREAM_LISTPACKS_2, TYPE_STREAM_LISTPACKS_3 } from './constants.js';
import { ListpackBuilder, ListpackCursor, lpBytes, lpInt } from './listpack.js';
import type { RdbReader } from './rdb-reader.js';
import type { RdbWriter } from './rdb-writer.js';

/**
 * The consumer that holds, in an RDB file, the pending entries XNACK released (owned by no one
 * in sluice, which Redis 7.0's format cannot say). A name no client would pick.
 */
export const RELEASED_CONSUMER = 'sluice:xnack-released';

/** The 128-bit big-endian id Redis uses as rax key (node keys, PEL ids), written into the writer. */
function writeId(w: RdbWriter, id: StreamId): RdbWriter {
  w.reserve(16);
  const { buf, pos } = w;
  if (typeof id.ms === 'number' && typeof id.seq === 'number') {
    buf.writeUInt32BE(Math.floor(id.ms / 0x100000000), pos);
    buf.writeUInt32BE(id.ms >>> 0, pos + 4);
    buf.writeUInt32BE(Math.floor(id.seq / 0x100000000), pos + 8);
    buf.writeUInt32BE(id.seq >>> 0, pos + 12);
  } else {
    buf.writeBigUInt64BE(u64ToBigInt(id.ms), pos);
    buf.writeBigUInt64BE(u64ToBigInt(id.seq), pos + 8);
  }
  w.pos = pos + 16;
  return w;
}

function idFromBytes(b: Buffer): StreamId {
  if (b.length !== 16) throw new RdbFormatError('Stream node key entry is not the size of a stream ID');
  return { ms: u64(b.readBigUInt64BE(0)), seq: u64(b.readBigUInt64BE(8)) };
}

function byteOrder(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Copies one value of a node's body into the listpack: the node's integers stay integers. */
function nodeValue(r: Reader, lp: ListpackBuilder): void {
  const h = r.varint();
  if (h % 2 === 1) {
    lp.int((h - 1) / 2);
    return;
  }
  const start = r.pos;
  r.pos += h / 2;
  lp.string(r.buf, start, r.pos);
}

/** id - master as Redis's int64 difference (wrapping), a number when exact. */
function idDiff(v: U64, master: U64): number | bigint {
  if (typeof v === 'number' && typeof master === 'number') return v - master;
  return BigInt.asIntN(64, u64ToBigInt(v) - u64ToBigInt(master));
}

/**
 * One node as Redis's listpack, written straight from the node's bytes into `lp` (no entry
 * objects, no array of elements): the bytes are `lp`'s until its next reset().
 */
export function nodeListpack(node: StreamNode, lp: ListpackBuilder = new ListpackBuilder()): Buffer {
  // Its size is known (node.lpBytes(), Redis's rule): in an RdbWriter the length goes first.
  lp.reset(node.lpBytes());
  const r = new Reader(node.buf);
  const names = r.varint();
  lp.int(node.live).int(node.deleted).int(names);
  for (let i = 0; i < names; i++) nodeValue(r, lp);
  lp.int(0);
  r.pos = node.entriesStart;
  const masterSeq = node.masterSeq;
  const buf = node.buf;
  while (r.pos < node.used) {
    const flags = buf[r.pos++]!;
    const msDelta = r.u64Varint();
    const seqPart = r.u64Varint();
    lp.int(flags);
    // The node keeps ms - master ms, and seq - master seq when the ms is the master's, else the seq.
    lp.int(typeof msDelta === 'number' ? msDelta : BigInt.asIntN(64, u64ToBigInt(msDelta)));
    lp.int(msDelta === 0 ? (typeof seqPart === 'number' ? seqPart : BigInt.asIntN(64, u64ToBigInt(seqPart))) : idDiff(seqPart, masterSeq));
    if (flags & FLAG_SAME_FIELDS) {
      for (let i = 0; i < names; i++) nodeValue(r, lp);
      lp.int(names + 3);
    } else {
      const pairs = r.varint();
      lp.int(pairs);
      for (let i = 0; i < pairs * 2; i++) nodeValue(r, lp);
      lp.int(pairs * 2 + 4);
    }
  }
  return lp.finish();
}

export function writeStream(w: RdbWriter, s: Stream): void {
  const nodes = s.storedNodes();
  w.len(nodes.length);
  // Each node's listpack is built in place in the writer, after its length.
  const lp = new ListpackBuilder(w);
  for (const node of nodes) {
    w.byte(16);
    writeId(w, { ms: node.masterMs, seq: node.masterSeq });
    // A node still as an RDB had it is that listpack already.
    if (node instanceof ListpackNode) w.blob(node.lp);
    else nodeListpack(node as StreamNode, lp);
  }
  const first = s.firstLiveId() ?? MIN_ID;
  w.len(s.length).len(s.lastId.ms).len(s.lastId.seq);
  w.len(first.ms).len(first.seq);
  w.len(s.maxDeletedId.ms).len(s.maxDeletedId.seq);
  w.len(s.entriesAdded);
  const groups = [...s.groups.values()].sort(byteOrder);
  w.len(groups.length);
  for (const g of groups) {
    w.blob(g.name).len(g.lastId.ms).len(g.lastId.seq).len(BigInt.asUintN(64, g.entriesRead));
    // Entries released by XNACK (Redis 8.8) have no owner, which Redis 7.0's format cannot hold
    // (7.0 would load a PEL entry with no consumer). They are written as owned by the reserved
    // consumer RELEASED_CONSUMER: Redis 7 then sees them pending and claimable (their delivery
    // time is 0), so nothing is lost, and sluice reads them back as unowned.
    const pel = [...g.pel.entries()];
    w.len(pel.length);
    for (const [id, nack] of pel) writeId(w, id).millis(nack.deliveryTime).len(nack.deliveryCount);
    const released = pel.filter(([, nack]) => nack.consumer === g.unowned).map(([id]) => id);
    const consumers = [...g.consumers.values()].filter((c) => c.name.toString('latin1') !== RELEASED_CONSUMER).sort(byteOrder);
    w.len(consumers.length + (released.length > 0 ? 1 : 0));
    for (const consumer of consumers) {
      w.blob(consumer.name).millis(consumer.seenTime);
      w.len(consumer.pel.size);
      for (const [id] of consumer.pel.entries()) writeId(w, id);
    }
    if (released.length > 0) {
      w.blob(Buffer.from(RELEASED_CONSUMER, 'latin1')).millis(0);
      w.len(released.length);
      for (const id of released) writeId(w, id);
    }
  }
}

/** master + the cursor's integer as Redis's uint64 (wrapping); numbers all the way when exact. */
function idPart(master: U64, masterBig: bigint, c: ListpackCursor): U64 {
  const diff = c.isInt ? c.int : lpInt(c.value());
  if (typeof master === 'number' && typeof diff === 'number') {
    const sum = master + diff;
    if (sum >= 0 && sum <= Number.MAX_SAFE_INTEGER) return sum;
  }
  return u64(BigInt.asUintN(64, masterBig + BigInt(diff)));
}

/** Where readNode writes the digits of an entry's integer values (node.append copies them). */
let scratch = Buffer.allocUnsafe(1024);
let scratchAt = 0;

/** The cursor's element as the entry's next item: a string where it is, an integer as digits. */
function pushValue(entry: EntryFields, c: ListpackCursor): void {
  if (!c.isInt) {
    entry.push(c.lp, c.start, c.stop);
    return;
  }
  if (scratchAt + 21 > scratch.length) {
    // Earlier values of this entry point into the old scratch: it stays theirs.
    scratch = Buffer.allocUnsafe(Math.max(1024, 2 * scratch.length));
    scratchAt = 0;
  }
  const start = scratchAt;
  const v = c.int;
  if (typeof v === 'number') {
    // The digits written here (String() and a latin1 write per value cost more than the rest).
    let n = v;
    if (n < 0) {
      scratch[scratchAt++] = 45;
      n = -n;
    }
    let digits = 1;
    for (let t = n; t >= 10; t = Math.floor(t / 10)) digits++;
    scratchAt += digits;
    for (let i = scratchAt - 1; i >= scratchAt - digits; i--) {
      scratch[i] = 48 + (n % 10);
      n = Math.floor(n / 10);
    }
  } else {
    scratchAt += scratch.write(String(v), start, 'latin1');
  }
  entry.push(scratch, start, scratchAt);
}

/**
 * Rebuilds one node from its listpack, tombstones included, reading each element in place
 * (ListpackCursor) into the node's appends.
 */
function readNode(masterId: StreamId, lp: Buffer, after: StreamId | null, capacity: number): StreamNode {
  const c = new ListpackCursor(lp);
  if (c.done) throw new RdbFormatError('Empty listpack inside stream');
  const next = (): void => {
    if (c.done) throw new RdbFormatError('Stream listpack integrity check failed.');
    c.next();
  };
  next();
  const count = c.number();
  next();
  const deleted = c.number();
  next();
  const nameCount = c.number();
  const names: Buffer[] = [];
  for (let k = 0; k < nameCount; k++) {
    next();
    names.push(lpBytes(c.value()));
  }
  next();
  if (c.number() !== 0) throw new RdbFormatError('Stream listpack integrity check failed.');
  if (c.done) throw new RdbFormatError('Empty listpack inside stream');
  const entry = new EntryFields();
  const node = new StreamNode(masterId, entry.setBuffers(names.flatMap((n) => [n, n])), capacity);
  let prevMs: U64 | null = after === null ? null : after.ms;
  let prevSeq: U64 = after === null ? 0 : after.seq;
  const masterMs = u64ToBigInt(masterId.ms);
  const masterSeq = u64ToBigInt(masterId.seq);
  while (!c.done) {
    c.next();
    const flags = c.number();
    next();
    const ms = idPart(masterId.ms, masterMs, c);
    next();
    const seq = idPart(masterId.seq, masterSeq, c);
    if (prevMs !== null && (ms === prevMs ? !u64Lt(prevSeq, seq) : u64Lt(ms, prevMs))) {
      throw new RdbFormatError('Stream entries out of order');
    }
    prevMs = ms;
    prevSeq = seq;
    const offset = node.used;
    if (flags & FLAG_SAME_FIELDS) {
      // Values go from the listpack into the node's bytes as they are read.
      node.loadHeader(ms, seq);
      for (let k = 0; k < nameCount; k++) {
        next();
        if (c.isInt) node.loadInt(c.int);
        else node.loadString(lp, c.start, c.stop);
      }
      next(); // lp-count
      node.loadEnd(offset, (flags & FLAG_DELETED) !== 0);
      continue;
    }
    // Fields of their own (whose names may still equal the master's: append decides). Strings
    // are ranges of the listpack, integers digits in `scratch`.
    entry.count = 0;
    scratchAt = 0;
    next();
    const pairs = c.number();
    for (let k = 0; k < pairs * 2; k++) {
      next();
      pushValue(entry, c);
    }
    next(); // lp-count
    node.append({ ms, seq }, entry);
    if (flags & FLAG_DELETED) node.markDeleted(offset);
  }
  c.checkCount();
  entry.clear();
  if (node.live !== count || node.deleted !== deleted) {
    throw new RdbFormatError('Stream listpack integrity check failed.');
  }
  return node;
}

/**
 * A node as the RDB had it (Redis's listpack), unpacked into a StreamNode by readNode when the
 * stream first needs its entries (Stream.node). Loading checks what Redis checks without
 * sanitize-dump-payload (the header, the master entry, the counts) and that master ids grow;
 * the entries are checked as they are unpacked. A file's and a full sync's bytes are covered by
 * the RDB's CRC64; RESTORE's payloads are unpacked at once (readStream without keepPacked).
 */
class ListpackNode implements PackedNode {
  constructor(
    readonly masterMs: U64,
    readonly masterSeq: U64,
    readonly live: number,
    readonly deleted: number,
    readonly lp: Buffer,
  ) {}

  lpBytes(): number {
    return this.lp.length;
  }

  capacity(): number {
    return this.lp.length;
  }

  unpack(): StreamNode {
    return readNode({ ms: this.masterMs, seq: this.masterSeq }, this.lp, null, this.lp.length + 64);
  }
}

/** The node's master entry read as Redis's streamValidateListpackIntegrity does without deep checks. */
function packedNode(masterId: StreamId, lp: Buffer): ListpackNode {
  const c = new ListpackCursor(lp);
  const next = (): void => {
    if (c.done) throw new RdbFormatError('Stream listpack integrity check failed.');
    c.next();
  };
  if (c.done) throw new RdbFormatError('Empty listpack inside stream');
  next();
  const count = c.number();
  next();
  const deleted = c.number();
  next();
  const nameCount = c.number();
  for (let k = 0; k < nameCount; k++) next();
  next();
  if (c.number() !== 0) throw new RdbFormatError('Stream listpack integrity check failed.');
  if (c.done) throw new RdbFormatError('Empty listpack inside stream');
  if (count < 0 || deleted < 0 || count + deleted === 0) throw new RdbFormatError('Stream listpack integrity check failed.');
  return new ListpackNode(masterId.ms, masterId.seq, count, deleted, lp);
}

/**
 * Where readStream is in a stream read from a file that arrives in pieces (a replica's full
 * sync, loaded as it comes): the nodes read so far stay read, and the reader's input may
 * continue at `at`, just past the last whole node, when the rest of the stream has not come yet.
 */
export class StreamLoading {
  readonly s = new Stream();
  nodeCount = -1;
  /** Nodes read. */
  n = 0;
  last: StreamId | null = null;
  /**
   * Node bytes per listpack byte, from the node before: a node's buffer is sized once, close
   * enough that sealing it keeps it rather than copying it to its exact size (nodes of a stream
   * tend to be alike). The first one gets the listpack's size (its varints are no longer).
   */
  ratio = 1;
  /** The reader's position past the node count, then past each whole node read. */
  at = 0;

  /** keepPacked: nodes stay listpacks until used (ListpackNode); otherwise each is unpacked now. */
  constructor(readonly keepPacked = false) {}
}

export function readStream(r: RdbReader, type: number, st: StreamLoading = new StreamLoading()): Stream {
  const s = st.s;
  if (st.nodeCount < 0) {
    st.nodeCount = r.len();
    st.at = r.pos;
  }
  // st.n moves once a node is whole: a node cut short by the end of the input is read again.
  for (; st.n < st.nodeCount; st.n++) {
    const masterId = idFromBytes(r.stringView());
    if (st.keepPacked) {
      // Ids grow from node to node: checked on the master ids (the rest when it is unpacked).
      if (st.last !== null && !u64Lt(st.last.ms, masterId.ms) && !(st.last.ms === masterId.ms && u64Lt(st.last.seq, masterId.seq))) {
        throw new RdbFormatError('Stream entries out of order');
      }
      s.appendStoredNode(packedNode(masterId, r.string()));
      st.last = masterId;
      st.at = r.pos;
      continue;
    }
    const lp = r.transientString();
    const node = readNode(masterId, lp, st.last, Math.ceil(lp.length * st.ratio) + 64);
    st.ratio = Math.min(1, node.used / lp.length);
    s.appendStoredNode(node);
    st.last = node.lastId;
    st.at = r.pos;
  }
  // What follows the nodes is read whole each time (a partial attempt may have begun groups).
  s.groups.clear();
  const length = r.len();
  if (length !== s.length) throw new RdbFormatError('Stream length inconsistent with its listpacks');
  s.lastId = { ms: u64(r.bigLen()), seq: u64(r.bigLen()) };
  if (type === TYPE_STREAM_LISTPACKS) {
    s.entriesAdded = BigInt(length);
  } else {
    r.bigLen(); // first id: derived from the nodes
    r.bigLen();
    s.maxDeletedId = { ms: u64(r.bigLen()), seq: u64(r.bigLen()) };
    s.entriesAdded = r.bigLen();
  }
  const groupCount = r.len();
  for (let g = 0; g < groupCount; g++) {
    const name = r.string();
    const lastId = { ms: u64(r.bigLen()), seq: u64(r.bigLen()) };
    const entriesRead =
      type === TYPE_STREAM_LISTPACKS ? estimateDistanceFromFirstEverEntry(s, lastId) : BigInt.asIntN(64, r.bigLen());
    if (s.groups.has(name.toString('latin1'))) throw new RdbFormatError(`Duplicated consumer group name ${name.toString()}`);
    const group = new ConsumerGroup(name, lastId, entriesRead);
    s.groups.set(group.key, group);
    // The group PEL first, owners unknown until the consumers are read.
    const unresolved = new Map<string, { id: StreamId; time: number; count: number }>();
    const pelSize = r.len();
    for (let k = 0; k < pelSize; k++) {
      const raw = r.bytes(16);
      const id = idFromBytes(raw);
      const time = r.millis();
      const count = r.len();
      const key = raw.toString('latin1');
      if (unresolved.has(key)) throw new RdbFormatError('Duplicated global PEL entry loading stream consumer group');
      unresolved.set(key, { id, time, count });
    }
    const owned = new Map<string, PendingEntry>();
    const consumerCount = r.len();
    for (let c = 0; c < consumerCount; c++) {
      const consumerName = r.string();
      const seen = r.millis();
      const active = type === TYPE_STREAM_LISTPACKS_3 ? r.millis() : seen;
      if (consumerName.toString('latin1') === RELEASED_CONSUMER) {
        // Entries sluice released with XNACK: left unresolved, so they load as owned by no one.
        const own = r.len();
        for (let k = 0; k < own; k++) r.bytes(16);
        continue;
      }
      const consumer = group.createConsumer(consumerName, seen);
      if (consumer === undefined) throw new RdbFormatError('Duplicate stream consumer detected.');
      consumer.activeTime = active;
      const own = r.len();
      for (let k = 0; k < own; k++) {
        const key = r.bytes(16).toString('latin1');
        const nack = unresolved.get(key);
        if (nack === undefined) throw new RdbFormatError('Consumer entry not found in group global PEL');
        if (owned.has(key)) throw new RdbFormatError('Duplicated consumer PEL entry loading a stream consumer group');
        owned.set(key, group.assign(nack.id, consumer, nack.time, nack.count));
      }
    }
    // Entries no consumer owns (a Redis 8.8 NACK zone): kept, owned by no consumer.
    for (const [key, nack] of unresolved) if (!owned.has(key)) group.assign(nack.id, group.unowned, nack.time, nack.count);
  }
  return s;
}
