// One stream node: up to stream-node-max-entries entries packed into a single Buffer, the
// counterpart of Redis's listpack under a rax key.
//
// Layout of `buf` (all integers are LEB128 varints):
//   master:  numMasterFields, field_1 .. field_N          (the first entry's field names)
//   entry:   flags(1 byte), msDelta, seqPart,
//            [numPairs, field_1 .. field_n]                 (only without SAME_FIELDS)
//            value_1 .. value_n
// msDelta is id.ms - master.ms; seqPart is id.seq - master.seq when msDelta is 0, else id.seq
// (so both are small for generated ids). A field or value is a varint header h followed by
// h/2 bytes when h is even; when h is odd it is the canonical decimal integer (h-1)/2 and no
// bytes follow (numbers as "12345" cost 3 bytes instead of 6, as listpack's integer encoding).
// Deleted entries stay in place with the DELETED flag until the whole node is freed.
//
// Besides the real bytes, a node tracks `lpBytes()`: the size Redis's listpack would have for
// the same entries. Node boundaries are decided on it (Redis's rule), so "~" trimming removes
// exactly the entries Redis would.
import { Buffer } from 'node:buffer';
import { canonicalInt64, canonicalIntNumber } from './canonical-int.js';
import type { EntryFields } from './entry-fields.js';
import { type StreamId, type U64, u64, u64Add, u64Lt, u64Sub, u64ToBigInt, UINT64_MAX } from './stream-id.js';

export const FLAG_DELETED = 1;
export const FLAG_SAME_FIELDS = 2;

/**
 * Values up to this size are copied (and names compared) byte by byte: Buffer.copy costs about
 * 90 ns whatever the size, a JS loop about 1 ns a byte (40 bytes: 44 against 91 ns here).
 */
const SHORT_COPY = 64;

/** The largest integer a value is stored as (a varint): canonicalInt's 15 digits. */
const MAX_VARINT_VALUE = 999_999_999_999_999;
const MAX_VARINT_BIGINT = BigInt(MAX_VARINT_VALUE);

// --- varints -----------------------------------------------------------------------------------

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Size of a U64 varint; only a bigint (above 2^53) takes the BigInt path. */
function u64VarintSize(v: U64): number {
  if (typeof v === 'number') return varintSize(v);
  let n = v;
  let size = 1;
  while (n >= 128n) {
    n >>= 7n;
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 128) {
    buf[pos++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

function writeU64Varint(buf: Buffer, pos: number, v: U64): number {
  if (typeof v === 'number') return writeVarint(buf, pos, v);
  let n = v;
  while (n >= 128n) {
    buf[pos++] = Number(n & 127n) | 128;
    n >>= 7n;
  }
  buf[pos++] = Number(n);
  return pos;
}

/** A read cursor; `pos` advances as values are read. */
export class Reader {
  pos = 0;
  constructor(public buf: Buffer) {}

  varint(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if (b < 128) return b;
    let result = b & 127;
    let mul = 128;
    do {
      b = buf[this.pos++]!;
      result += (b & 127) * mul;
      mul *= 128;
    } while (b >= 128);
    return result;
  }

  /** A varint that may exceed 2^53 (ids), as a canonical U64. */
  u64Varint(): U64 {
    const start = this.pos;
    const buf = this.buf;
    // One byte: the usual ms delta (0) and seq of an entry.
    const first = buf[start]!;
    if (first < 128) {
      this.pos = start + 1;
      return first;
    }
    let len = 1;
    while (buf[start + len - 1]! >= 128) len++;
    // 7 bytes hold 49 bits: exact as a Number, the usual case.
    if (len <= 7) return this.varint();
    let result = 0n;
    for (let i = len - 1; i >= 0; i--) result = (result << 7n) | BigInt(buf[start + i]! & 127);
    this.pos = start + len;
    return u64(result);
  }

  /** Skips one field or value. */
  skipValue(): void {
    const h = this.varint();
    if (h % 2 === 0) this.pos += h / 2;
  }

  /** Reads one field or value as a Buffer (a view into the node for strings). */
  value(): Buffer {
    const h = this.varint();
    if (h % 2 === 1) return Buffer.from(String((h - 1) / 2), 'latin1');
    const start = this.pos;
    this.pos += h / 2;
    return this.buf.subarray(start, this.pos);
  }
}

// A field or value is the byte range b[start, end): entries are appended from EntryFields.

/**
 * The value of b[start, end) if a canonical non-negative integer of at most 15 digits, else -1:
 * the node stores such a value as a varint (Redis's rule, canonical-int.ts; negatives stay text).
 */
function canonicalInt(b: Buffer, start: number, end: number): number {
  const n = canonicalIntNumber(b, start, end);
  return n !== null && n >= 0 ? n : -1;
}

/** name equals b[start, end), in JS for short names: the native call costs more than the loop. */
function sameBytes(name: Buffer, b: Buffer, start: number, end: number): boolean {
  const len = name.length;
  if (len !== end - start) return false;
  if (len > SHORT_COPY) return b.compare(name, 0, len, start, end) === 0;
  for (let i = 0; i < len; i++) if (name[i] !== b[start + i]) return false;
  return true;
}

function valueSize(b: Buffer, start: number, end: number): number {
  const n = canonicalInt(b, start, end);
  if (n >= 0) return varintSize(n * 2 + 1);
  return varintSize((end - start) * 2) + end - start;
}

function writeValue(buf: Buffer, pos: number, b: Buffer, start: number, end: number): number {
  const n = canonicalInt(b, start, end);
  if (n >= 0) return writeVarint(buf, pos, n * 2 + 1);
  const len = end - start;
  pos = writeVarint(buf, pos, len * 2);
  if (len > SHORT_COPY) return pos + b.copy(buf, pos, start, end);
  for (let i = start; i < end; i++) buf[pos++] = b[i]!;
  return pos;
}

// --- Redis listpack size accounting ------------------------------------------------------------

/** Bytes of a listpack element's backlen for an element of `l` bytes (encoding + data). */
export function lpBacklenSize(l: number): number {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

/** Bytes of one listpack integer element (encoding + backlen). */
export function lpIntSize(v: bigint | number): number {
  let enc: number;
  if (v >= 0 && v <= 127) enc = 1;
  else if (v >= -4096 && v <= 4095) enc = 2;
  else if (v >= -32768 && v <= 32767) enc = 3;
  else if (v >= -8388608 && v <= 8388607) enc = 4;
  else if (v >= -2147483648 && v <= 2147483647) enc = 5;
  else enc = 9;
  return enc + lpBacklenSize(enc);
}

const INT64_MAX = 0x7fffffffffffffffn;

/**
 * Bytes of one listpack string element, b[start, end) (all of b by default); strings that are
 * int64s are stored as integers.
 */
export function lpStringSize(b: Buffer, start = 0, end = b.length): number {
  const len = end - start;
  if (len > 0 && len <= 20) {
    // Redis's rule (string2ll), as rdb/listpack.ts applies it: numbers, BigInt past 15 digits.
    const n = canonicalIntNumber(b, start, end);
    if (n !== null) return lpIntSize(n);
    if (len >= 16) {
      const v = canonicalInt64(b, start, end);
      if (v !== null) return lpIntSize(v);
    }
  }
  const enc = len < 64 ? 1 + len : len < 4096 ? 2 + len : 5 + len;
  return enc + lpBacklenSize(enc);
}

/**
 * a - b of two uint64s as the int64 Redis stores (lpAppendInteger of an unsigned difference,
 * which wraps). Numbers subtract exactly (both are safe integers, the result within +-2^53)
 * and such a result is its own int64; only bigints take the wrapping path.
 */
function int64Diff(a: U64, b: U64): bigint | number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const v = (u64ToBigInt(a) - u64ToBigInt(b)) & UINT64_MAX;
  return v > INT64_MAX ? v - (UINT64_MAX + 1n) : v;
}

// --- the node ----------------------------------------------------------------------------------

/** A decoded entry header; `pos` is where its fields (or values) start. */
export interface EntryHeader {
  flags: number;
  ms: U64;
  seq: U64;
}

export class StreamNode {
  /** The master id: the first id ever stored in the node (the index key). */
  readonly masterMs: U64;
  readonly masterSeq: U64;
  /** Id of the last entry in the node, deleted or not (as lpGetEdgeStreamID). */
  lastMs: U64;
  lastSeq: U64;
  buf: Buffer;
  used: number;
  /** Live and deleted-but-present entries (Redis's count and deleted). */
  live = 0;
  deleted = 0;
  readonly masterFieldCount: number;
  /** Offset of the first entry. */
  readonly entriesStart: number;
  /** Listpack bytes of the master fields and all entries (without count/deleted). */
  private lpRest: number;
  /** Decoded master field names, kept while the node is the tail. */
  private masterFields: Buffer[] | null;

  /**
   * `capacity`: bytes to reserve up front, e.g. what the previous node of the stream came to
   * (nodes of one stream tend to fill alike), so the buffer is allocated once rather than
   * doubled from 64 bytes and then copied to its exact size by seal().
   */
  constructor(id: StreamId, fields: EntryFields, capacity = 0) {
    this.masterMs = id.ms;
    this.masterSeq = id.seq;
    this.lastMs = id.ms;
    this.lastSeq = id.seq;
    const n = fields.count / 2;
    const names: Buffer[] = [];
    let size = varintSize(n);
    this.lpRest = lpIntSize(n) + lpIntSize(0); // num-fields and the master terminator
    for (let i = 0; i < fields.count; i += 2) {
      const name = fields.copy(i); // a copy: the ranges point into buffers that are reused
      names.push(name);
      size += valueSize(name, 0, name.length);
      this.lpRest += lpStringSize(name);
    }
    this.buf = Buffer.allocUnsafeSlow(Math.max(64, size * 4, capacity));
    let pos = writeVarint(this.buf, 0, n);
    for (const name of names) pos = writeValue(this.buf, pos, name, 0, name.length);
    this.used = pos;
    this.entriesStart = pos;
    this.masterFieldCount = n;
    this.masterFields = names;
  }

  get masterId(): StreamId {
    return { ms: this.masterMs, seq: this.masterSeq };
  }

  get lastId(): StreamId {
    return { ms: this.lastMs, seq: this.lastSeq };
  }

  /** What lpBytes() of Redis's listpack for this node would return. */
  lpBytes(): number {
    return 7 + lpIntSize(this.live) + lpIntSize(this.deleted) + this.lpRest;
  }

  private fieldNames(): Buffer[] {
    if (this.masterFields === null) {
      const r = new Reader(this.buf);
      const n = r.varint();
      const names: Buffer[] = [];
      for (let i = 0; i < n; i++) names.push(Buffer.from(r.value()));
      this.masterFields = names;
    }
    return this.masterFields;
  }

  /** Appends an entry; the caller ensures id is above every id in the node. */
  append(id: StreamId, fields: EntryFields): void {
    const names = this.fieldNames();
    const { count, sources, starts, ends } = fields;
    const pairs = count / 2;
    let same = pairs === names.length;
    for (let i = 0; same && i < pairs; i++) same = sameBytes(names[i]!, sources[i * 2]!, starts[i * 2]!, ends[i * 2]!);
    // Ids only grow within a node, so both parts are >= 0; numbers unless above 2^53.
    const msDelta = u64Sub(id.ms, this.masterMs);
    const seqPart = msDelta === 0 ? u64Sub(id.seq, this.masterSeq) : id.seq;

    let size = 1 + u64VarintSize(msDelta) + u64VarintSize(seqPart);
    if (!same) size += varintSize(pairs);
    for (let i = 0; i < count; i += 2) {
      if (!same) size += valueSize(sources[i]!, starts[i]!, ends[i]!);
      size += valueSize(sources[i + 1]!, starts[i + 1]!, ends[i + 1]!);
    }
    this.reserve(size);

    const buf = this.buf;
    let pos = this.used;
    buf[pos++] = same ? FLAG_SAME_FIELDS : 0;
    pos = writeU64Varint(buf, pos, msDelta);
    pos = writeU64Varint(buf, pos, seqPart);
    if (!same) pos = writeVarint(buf, pos, pairs);
    for (let i = 0; i < count; i += 2) {
      if (!same) pos = writeValue(buf, pos, sources[i]!, starts[i]!, ends[i]!);
      pos = writeValue(buf, pos, sources[i + 1]!, starts[i + 1]!, ends[i + 1]!);
    }
    this.used = pos;
    this.live++;
    this.lastMs = id.ms;
    this.lastSeq = id.seq;

    // Listpack: flags, ms-diff, seq-diff, [num-fields, fields], values, lp-count.
    // Redis stores ms - master ms and seq - master seq whatever the ms (int64, wrapping).
    const lpMs = typeof msDelta === 'number' ? msDelta : int64Diff(id.ms, this.masterMs);
    const lpSeq = msDelta === 0 && typeof seqPart === 'number' ? seqPart : int64Diff(id.seq, this.masterSeq);
    let lp = lpIntSize(same ? FLAG_SAME_FIELDS : 0) + lpIntSize(lpMs) + lpIntSize(lpSeq);
    if (!same) lp += lpIntSize(pairs);
    for (let i = 0; i < count; i += 2) {
      if (!same) lp += lpStringSize(sources[i]!, starts[i]!, ends[i]!);
      lp += lpStringSize(sources[i + 1]!, starts[i + 1]!, ends[i + 1]!);
    }
    lp += lpIntSize(same ? pairs + 3 : pairs * 2 + 4);
    this.lpRest += lp;
  }

  // --- loading an RDB's listpack (rdb/stream-codec.ts) ------------------------------------------
  // An entry whose names are the master's (the listpack's SAMEFIELDS) is written straight from
  // the listpack's elements: loadHeader, one loadInt / loadString per value, loadEnd. The same
  // bytes and lpBytes() as append() of that entry, without an EntryFields, a name comparison,
  // or integers printed as digits to be parsed back (most of a replica's full sync went there).

  /** The header of a SAME_FIELDS entry; the caller ensures id is above every id in the node. */
  loadHeader(ms: U64, seq: U64): void {
    const msDelta = u64Sub(ms, this.masterMs);
    const seqPart = msDelta === 0 ? u64Sub(seq, this.masterSeq) : seq;
    this.reserve(21);
    const buf = this.buf;
    let pos = this.used;
    buf[pos++] = FLAG_SAME_FIELDS;
    pos = writeU64Varint(buf, pos, msDelta);
    this.used = writeU64Varint(buf, pos, seqPart);
    this.lastMs = ms;
    this.lastSeq = seq;
    const lpMs = typeof msDelta === 'number' ? msDelta : int64Diff(ms, this.masterMs);
    const lpSeq = msDelta === 0 && typeof seqPart === 'number' ? seqPart : int64Diff(seq, this.masterSeq);
    this.lpRest += lpIntSize(FLAG_SAME_FIELDS) + lpIntSize(lpMs) + lpIntSize(lpSeq);
  }

  /** A value that is an int64 (a listpack integer element). */
  loadInt(v: number | bigint): void {
    this.lpRest += lpIntSize(v);
    // A listpack's 64-bit integers come as bigints, 15-digit ones included.
    const n = typeof v === 'number' ? v : v >= 0n && v <= MAX_VARINT_BIGINT ? Number(v) : -1;
    if (n >= 0 && n <= MAX_VARINT_VALUE) {
      this.reserve(8);
      this.used = writeVarint(this.buf, this.used, n * 2 + 1);
      return;
    }
    // Negative or of 16 digits and more: kept as its text, as writeValue keeps such a string.
    const text = String(v);
    this.reserve(1 + text.length);
    const pos = writeVarint(this.buf, this.used, text.length * 2);
    this.used = pos + this.buf.write(text, pos, 'latin1');
  }

  /** A value that is b[start, end) (a listpack string element). */
  loadString(b: Buffer, start: number, end: number): void {
    const first = b[start];
    // Only text starting with a digit or "-" can be an integer (a rarity in a listpack string).
    if (first !== undefined && ((first >= 48 && first <= 57) || first === 45)) {
      this.lpRest += lpStringSize(b, start, end);
      this.reserve(varintSize((end - start) * 2) + end - start);
      this.used = writeValue(this.buf, this.used, b, start, end);
      return;
    }
    const len = end - start;
    const enc = len < 64 ? 1 + len : len < 4096 ? 2 + len : 5 + len;
    this.lpRest += enc + lpBacklenSize(enc);
    this.reserve(5 + len);
    const buf = this.buf;
    let pos = writeVarint(buf, this.used, len * 2);
    if (len > SHORT_COPY) pos += b.copy(buf, pos, start, end);
    else for (let i = start; i < end; i++) buf[pos++] = b[i]!;
    this.used = pos;
  }

  /** Ends the entry loadHeader began; `deleted` keeps it as a tombstone. */
  loadEnd(headerAt: number, deleted: boolean): void {
    this.lpRest += lpIntSize(this.masterFieldCount + 3);
    this.live++;
    if (deleted) this.markDeleted(headerAt);
  }

  /** Grows the buffer geometrically so appends stay amortised O(1). */
  private reserve(extra: number): void {
    const need = this.used + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = Buffer.allocUnsafeSlow(cap);
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  /** Drops spare capacity once the node is no longer the tail. */
  seal(): void {
    this.masterFields = null;
    if (this.buf.length - this.used > 32 + (this.used >> 4)) {
      const exact = Buffer.allocUnsafeSlow(this.used);
      this.buf.copy(exact, 0, 0, this.used);
      this.buf = exact;
    }
  }

  /** Bytes held by the node's buffer. */
  capacity(): number {
    return this.buf.length;
  }

  // --- reading ---------------------------------------------------------------------------------

  /** Reads an entry header at r.pos, leaving r.pos at its fields/values. */
  readHeader(r: Reader, out: EntryHeader): void {
    out.flags = this.buf[r.pos++]!;
    const msDelta = r.u64Varint();
    const seqPart = r.u64Varint();
    if (msDelta === 0) {
      out.ms = this.masterMs;
      out.seq = u64Add(this.masterSeq, seqPart);
    } else {
      out.ms = u64Add(this.masterMs, msDelta);
      out.seq = seqPart;
    }
  }

  /** Skips the body of an entry whose header was just read. */
  skipBody(r: Reader, flags: number): void {
    const pairs = flags & FLAG_SAME_FIELDS ? this.masterFieldCount : r.varint();
    const values = flags & FLAG_SAME_FIELDS ? pairs : pairs * 2;
    for (let i = 0; i < values; i++) r.skipValue();
  }

  /**
   * Reads the body of an entry whose header was just read, as flat field/value Buffers.
   * `masterNames` are the node's master field names when the caller has them already.
   */
  readBody(r: Reader, flags: number, masterNames?: Buffer[]): Buffer[] {
    const out: Buffer[] = [];
    if (flags & FLAG_SAME_FIELDS) {
      const names = masterNames ?? this.masterNames();
      for (let i = 0; i < names.length; i++) out.push(names[i]!, r.value());
    } else {
      const pairs = r.varint();
      for (let i = 0; i < pairs * 2; i++) out.push(r.value());
    }
    return out;
  }

  /** The master field names: the tail's cached ones, else views read from the buffer. */
  masterNames(): Buffer[] {
    return this.masterFields ?? this.readMasterNames();
  }

  /** Master field names as views into the buffer (not cached: sealed nodes stay lean). */
  private readMasterNames(): Buffer[] {
    const r = new Reader(this.buf);
    const n = r.varint();
    const names: Buffer[] = [];
    for (let i = 0; i < n; i++) names.push(r.value());
    return names;
  }

  /** Offsets of every entry (deleted ones too), in order. */
  entryOffsets(): number[] {
    const offsets: number[] = [];
    const r = new Reader(this.buf);
    r.pos = this.entriesStart;
    const h: EntryHeader = { flags: 0, ms: 0, seq: 0 };
    while (r.pos < this.used) {
      offsets.push(r.pos);
      this.readHeader(r, h);
      this.skipBody(r, h.flags);
    }
    return offsets;
  }

  /** Marks the entry at `offset` deleted; returns false if it already was. */
  markDeleted(offset: number): boolean {
    const flags = this.buf[offset]!;
    if (flags & FLAG_DELETED) return false;
    this.buf[offset] = flags | FLAG_DELETED;
    this.live--;
    this.deleted++;
    return true;
  }
}


// --- the cursor ----------------------------------------------------------------------------------

/**
 * Walks a node's entries, deleted ones included, forward (or backward with `reverse`): the
 * way Stream reads nodes, so the entry encoding stays in this file. After next() the current
 * entry's header is in flags / ms / seq; fields() decodes its body.
 */
export class NodeCursor implements EntryHeader {
  flags = 0;
  ms: U64 = 0;
  seq: U64 = 0;
  private readonly r: Reader;
  /** Offset of the current entry. */
  private at = -1;
  /** The current entry's body was not read: next() must skip it first (forward only). */
  private bodyPending = false;
  /** Backward: every entry's offset, walked from the end. */
  private readonly offsets: number[] | null;
  /** The node's master field names, once an entry needed them. */
  private names: Buffer[] | undefined = undefined;
  private k: number;

  constructor(
    readonly node: StreamNode,
    readonly reverse = false,
  ) {
    this.r = new Reader(node.buf);
    this.r.pos = node.entriesStart;
    this.offsets = reverse ? node.entryOffsets() : null;
    this.k = this.offsets?.length ?? 0;
  }

  /** Moves to the next entry; false past the last one. */
  next(): boolean {
    if (this.offsets !== null) {
      if (this.k === 0) return false;
      this.r.pos = this.offsets[--this.k]!;
    } else {
      if (this.bodyPending) this.node.skipBody(this.r, this.flags);
      if (this.r.pos >= this.node.used) return false;
    }
    this.at = this.r.pos;
    this.node.readHeader(this.r, this);
    this.bodyPending = true;
    return true;
  }

  /**
   * Forward only, before the first next(): moves past the entries below `start` comparing
   * their raw header varints, without decoding each id (a range or XREADGROUP ">" starting
   * mid-node skipped ~50 entries that way per call). Does nothing when a target is not a safe
   * integer; the caller still checks every id it is given.
   */
  skipBelow(start: StreamId): void {
    const node = this.node;
    if (this.offsets !== null || this.at !== -1 || u64Lt(start.ms, node.masterMs)) return;
    const msDelta = u64Sub(start.ms, node.masterMs);
    // Entries in the master's ms store seq - master seq; later ones store their seq.
    if (msDelta === 0 && u64Lt(start.seq, node.masterSeq)) return;
    const seqTarget = msDelta === 0 ? u64Sub(start.seq, node.masterSeq) : start.seq;
    if (typeof msDelta !== 'number' || typeof seqTarget !== 'number') return;
    const targetMs = msDelta;
    const targetSeq = seqTarget;
    const r = this.r;
    while (r.pos < node.used) {
      const entry = r.pos;
      const flags = node.buf[r.pos++]!;
      // Past 2^53 varint() is approximate but still above any safe target: the order holds.
      const ms = r.varint();
      const seq = r.varint();
      if (ms > targetMs || (ms === targetMs && seq >= targetSeq)) {
        r.pos = entry;
        return;
      }
      node.skipBody(r, flags);
    }
  }

  get isDeleted(): boolean {
    return (this.flags & FLAG_DELETED) !== 0;
  }

  /**
   * Where the current entry's body is, for BodyReader.open(), without reading it.
   * The bytes of a body never change once written, and a node's buffer is replaced, never
   * rewritten, when it grows or is sealed: (node.buf, ref) stays readable as long as it is held.
   */
  bodyRef(): number {
    return bodyRef(this.r.pos, (this.flags & FLAG_SAME_FIELDS) !== 0);
  }

  /** The current entry's flat field/value Buffers (views into the node). */
  fields(): Buffer[] {
    this.bodyPending = false;
    // A sealed node's names are read once per cursor, not once per entry.
    if (this.flags & FLAG_SAME_FIELDS) this.names ??= this.node.masterNames();
    return this.node.readBody(this.r, this.flags, this.names);
  }

  /** Marks the current entry deleted; false if it already was. */
  markDeleted(): boolean {
    return this.node.markDeleted(this.at);
  }
}

// --- reading bodies without Buffers -----------------------------------------------------------------

/** A body's position and whether its field names are the master's, in one number. */
function bodyRef(pos: number, sameFields: boolean): number {
  return pos * 2 + (sameFields ? 1 : 0);
}

/**
 * Reads an entry's fields and values in place, one at a time, for replies written straight
 * from node bytes: no Buffer view per value and no string per integer (a Buffer view costs
 * ~100 ns, as much as writing the value out). open() a body, then next() per item: a string
 * is buf[start, end), an integer (stored as its number) is `int`.
 */
export class BodyReader {
  buf: Buffer = Buffer.alloc(0);
  start = 0;
  end = 0;
  int = 0;
  private readonly values = new Reader(this.buf);
  private readonly names = new Reader(this.buf);
  /** Master field names and values alternate (SAME_FIELDS); `onName` says whose turn it is. */
  private same = false;
  private onName = false;

  /** Opens the body at `ref` (NodeCursor.bodyRef) of `buf`; returns its item count (fields + values). */
  open(buf: Buffer, ref: number): number {
    this.buf = buf;
    const values = this.values;
    values.buf = buf;
    values.pos = Math.floor(ref / 2);
    this.same = ref % 2 === 1;
    if (!this.same) return values.varint() * 2;
    // The master field names follow their count at the start of the node.
    const names = this.names;
    names.buf = buf;
    names.pos = 0;
    const pairs = names.varint();
    this.onName = true;
    return pairs * 2;
  }

  /** Reads the next item: true for a string (start, end), false for an integer (int). */
  next(): boolean {
    let r = this.values;
    if (this.same) {
      if (this.onName) r = this.names;
      this.onName = !this.onName;
    }
    const h = r.varint();
    if (h % 2 === 1) {
      this.int = (h - 1) / 2;
      return false;
    }
    this.start = r.pos;
    r.pos += h / 2;
    this.end = r.pos;
    return true;
  }
}
