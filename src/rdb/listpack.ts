// Redis's listpack (listpack.c), byte for byte: the blob inside RDB types HASH_LISTPACK,
// ZSET_LISTPACK, LIST_QUICKLIST_2 nodes and stream nodes. Layout: total bytes (uint32 LE),
// element count (uint16 LE, 65535 when it does not fit), the elements, then 0xFF. An element is
// its encoding and data followed by "backlen", the size of encoding + data written so that it
// can be read right to left. Strings that are canonical int64 decimals are stored as integers,
// as lpAppend does.
import { lpBacklenSize } from '../engine/stream-node.js';
import { RdbFormatError } from './constants.js';
import { ByteBuffer, RdbWriter } from './rdb-writer.js';
import { canonicalInt64, canonicalIntNumber } from '../engine/canonical-int.js';

/**
 * A listpack element: a string, or an integer (a number up to 32 bits, a bigint for 64-bit
 * encodings). Parsed strings are views into the listpack: callers that keep them copy.
 */
export type LpValue = Buffer | number | bigint;

const HEADER_SIZE = 6;
const EOF_BYTE = 0xff;

/** Writes the backlen of an element of `l` bytes at `pos`: most significant 7-bit group first. */
function writeBacklen(out: Buffer, pos: number, l: number): number {
  const size = lpBacklenSize(l);
  for (let i = size - 1; i >= 0; i--) {
    const group = Math.floor(l / 2 ** (7 * i)) & 127;
    out[pos++] = i === size - 1 ? group : group | 128;
  }
  return pos;
}

/** Bytes of an integer's encoding (without backlen). */
function intEncodingSize(v: number | bigint): number {
  if (v >= 0 && v <= 127) return 1;
  if (v >= -4096 && v <= 4095) return 2;
  if (v >= -32768 && v <= 32767) return 3;
  if (v >= -8388608 && v <= 8388607) return 4;
  if (v >= -2147483648 && v <= 2147483647) return 5;
  return 9;
}

function writeInt(out: Buffer, pos: number, v: number | bigint): number {
  const size = intEncodingSize(v);
  if (size === 1) {
    out[pos++] = Number(v);
  } else if (size === 2) {
    const n = Number(v);
    const u = n < 0 ? 8192 + n : n;
    out[pos++] = (u >> 8) | 0xc0;
    out[pos++] = u & 0xff;
  } else if (size === 9) {
    out[pos++] = 0xf4;
    out.writeBigInt64LE(BigInt(v), pos);
    pos += 8;
  } else {
    // 16, 24 or 32 bits, little-endian two's complement.
    out[pos++] = 0xf1 + size - 3;
    out.writeIntLE(Number(v), pos, size - 1);
    pos += size - 1;
  }
  return writeBacklen(out, pos, size);
}

function stringHeaderSize(len: number): number {
  return len < 64 ? 1 : len < 4096 ? 2 : 5;
}

function writeString(out: Buffer, pos: number, v: Buffer): number {
  const len = v.length;
  const start = pos;
  if (len < 64) out[pos++] = 0x80 | len;
  else if (len < 4096) {
    out[pos++] = 0xe0 | (len >> 8);
    out[pos++] = len & 0xff;
  } else {
    out[pos++] = 0xf0;
    out.writeUInt32LE(len, pos);
    pos += 4;
  }
  pos += v.copy(out, pos);
  return writeBacklen(out, pos, pos - start);
}

/** An element as written: a string, or an integer (Buffers that read as int64 become integers). */
function normalise(value: LpValue): Buffer | number | bigint {
  if (!Buffer.isBuffer(value)) return typeof value === 'bigint' && value >= -2147483648n && value <= 2147483647n ? Number(value) : value;
  // Strings that read as int64 are stored as integers, as lpAppend does.
  const n = canonicalIntNumber(value);
  if (n !== null) return n;
  return value.length >= 16 ? canonicalInt64(value) ?? value : value;
}

/**
 * Writes a listpack element by element, with the same bytes as buildListpack: for streams
 * saved node after node (an RDB of a 1M-entry stream held an array of elements, two BigInts
 * per entry and a Buffer per listpack). It writes into its own reused buffer, or (`into`) in
 * place into an RdbWriter as a length-prefixed RDB string, so a node is not copied again.
 */
export class ListpackBuilder {
  private readonly out: ByteBuffer;
  /** Writing into an RdbWriter: the blob's length prefix is written too (see reset). */
  private readonly writer: RdbWriter | null;
  /** Size of the length prefix written by reset() (blob mode). */
  private prefix = 0;
  private count = 0;

  constructor(writer: RdbWriter | null = null) {
    this.writer = writer;
    this.out = writer ?? new ByteBuffer(4096);
  }

  /**
   * Starts a new listpack (in its own buffer, the previous finish()'s bytes are overwritten).
   * In an RdbWriter, `expected` is the size it will likely have: its length prefix is written
   * for it, and finish() moves the listpack when the real size needs a longer or shorter one.
   */
  reset(expected = 0): this {
    const out = this.out;
    if (this.writer === null) {
      out.pos = 0;
      out.hold = 0;
    } else {
      this.prefix = RdbWriter.lenSize(expected);
      out.reserve(this.prefix + HEADER_SIZE + expected + 1);
      out.hold = out.pos;
      out.pos += this.prefix;
    }
    out.reserve(HEADER_SIZE);
    out.pos += HEADER_SIZE;
    this.count = 0;
    return this;
  }

  int(v: number | bigint): this {
    const out = this.out;
    if (out.pos + 14 > out.buf.length) out.reserve(14);
    const buf = out.buf;
    const p = out.pos;
    this.count++;
    // The widths a stream node's flags, id differences, counts and small values take, written
    // here byte by byte (each element's backlen is its size, one byte): a node has five or so
    // integers per entry, and writeInt's general path was most of writing an RDB.
    if (typeof v === 'number') {
      if (v >= 0 && v <= 127) {
        buf[p] = v;
        buf[p + 1] = 1;
        out.pos = p + 2;
        return this;
      }
      if (v >= -4096 && v <= 4095) {
        const u = v < 0 ? 8192 + v : v;
        buf[p] = (u >> 8) | 0xc0;
        buf[p + 1] = u & 0xff;
        buf[p + 2] = 2;
        out.pos = p + 3;
        return this;
      }
      if (v >= -2147483648 && v <= 2147483647) {
        // 16, 24 or 32 bits little-endian after 0xf1, 0xf2, 0xf3.
        const bytes = v >= -32768 && v <= 32767 ? 2 : v >= -8388608 && v <= 8388607 ? 3 : 4;
        buf[p] = 0xef + bytes;
        for (let i = 0; i < bytes; i++) buf[p + 1 + i] = (v >> (8 * i)) & 0xff;
        buf[p + 1 + bytes] = bytes + 1;
        out.pos = p + 2 + bytes;
        return this;
      }
    }
    out.pos = writeInt(buf, p, v);
    return this;
  }

  /** src[start, end) as a string element, or an integer when it reads as one (as lpAppend). */
  string(src: Buffer, start: number, end: number): this {
    const len = end - start;
    const n = canonicalIntNumber(src, start, end);
    if (n !== null) return this.int(n);
    if (len >= 16) {
      const v = canonicalInt64(src, start, end);
      if (v !== null) return this.int(v >= -2147483648n && v <= 2147483647n ? Number(v) : v);
    }
    const out = this.out;
    out.reserve(len + 10);
    const buf = out.buf;
    let pos = out.pos;
    const at = pos;
    if (len < 64) buf[pos++] = 0x80 | len;
    else if (len < 4096) {
      buf[pos++] = 0xe0 | (len >> 8);
      buf[pos++] = len & 0xff;
    } else {
      buf[pos++] = 0xf0;
      buf.writeUInt32LE(len, pos);
      pos += 4;
    }
    if (len <= 32) for (let i = start; i < end; i++) buf[pos++] = src[i]!;
    else pos += src.copy(buf, pos, start, end);
    out.pos = writeBacklen(buf, pos, pos - at);
    this.count++;
    return this;
  }

  /**
   * The listpack's bytes: a view of the builder's buffer, valid until the next reset(). In an
   * RdbWriter they are written (with their length prefix) and the writer continues after them.
   */
  finish(): Buffer {
    const out = this.out;
    out.reserve(1);
    out.buf[out.pos++] = EOF_BYTE;
    let start = out.hold + this.prefix;
    const size = out.pos - start;
    out.buf.writeUInt32LE(size, start);
    out.buf.writeUInt16LE(Math.min(this.count, 65535), start + 4);
    if (this.writer !== null) {
      const need = RdbWriter.lenSize(size);
      if (need !== this.prefix) {
        // The size was not the one announced: the listpack moves to fit its real prefix.
        if (need > this.prefix) out.reserve(need - this.prefix);
        start = out.hold + this.prefix;
        out.buf.copyWithin(out.hold + need, start, start + size);
        start = out.hold + need;
        out.pos = start + size;
      }
      this.writer.writeLenAt(out.hold, size);
    }
    out.hold = -1;
    return out.buf.subarray(start, start + size);
  }
}

/** Builds a listpack from elements; Buffers that read as int64 are stored as integers. */
export function buildListpack(values: Iterable<LpValue>): Buffer {
  const items: Array<Buffer | number | bigint> = [];
  let total = HEADER_SIZE + 1;
  for (const value of values) {
    const v = normalise(value);
    items.push(v);
    const enc = Buffer.isBuffer(v) ? stringHeaderSize(v.length) + v.length : intEncodingSize(v);
    total += enc + lpBacklenSize(enc);
  }
  const out = Buffer.allocUnsafe(total);
  out.writeUInt32LE(total, 0);
  out.writeUInt16LE(Math.min(items.length, 65535), 4);
  let pos = HEADER_SIZE;
  for (const v of items) pos = Buffer.isBuffer(v) ? writeString(out, pos, v) : writeInt(out, pos, v);
  out[pos] = EOF_BYTE;
  return out;
}

/**
 * Walks a listpack's elements in place: after next(), an integer is in `int` (`isInt`), a
 * string is lp[start, stop). No value objects, no views: loading a stream's nodes reads each
 * element once from where it is (parseListpack's array of elements and a Buffer view per string
 * were most of the garbage of a replica's full sync).
 */
export class ListpackCursor {
  pos = HEADER_SIZE;
  /** Where the elements end (the EOF byte). */
  readonly end: number;
  isInt = false;
  int: number | bigint = 0;
  start = 0;
  stop = 0;
  private count = 0;

  constructor(readonly lp: Buffer) {
    if (lp.length < HEADER_SIZE + 1 || lp.readUInt32LE(0) !== lp.length || lp[lp.length - 1] !== EOF_BYTE) {
      throw new RdbFormatError('Invalid listpack header');
    }
    this.end = lp.length - 1;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  private need(p: number, n: number): void {
    if (p + n > this.end) throw new RdbFormatError('Listpack element out of range');
  }

  /** Decodes the next element (RdbFormatError past the end or on a bad encoding). */
  next(): void {
    const lp = this.lp;
    let p = this.pos;
    this.need(p, 1);
    const at = p;
    const b = lp[p]!;
    if ((b & 0x80) === 0) {
      this.isInt = true;
      this.int = b;
      p += 1;
    } else if ((b & 0xc0) === 0x80) {
      const len = b & 0x3f;
      this.need(p, 1 + len);
      this.isInt = false;
      this.start = p + 1;
      p += 1 + len;
      this.stop = p;
    } else if ((b & 0xe0) === 0xc0) {
      this.need(p, 2);
      const u = ((b & 0x1f) << 8) | lp[p + 1]!;
      this.isInt = true;
      this.int = u >= 4096 ? u - 8192 : u;
      p += 2;
    } else if ((b & 0xf0) === 0xe0) {
      this.need(p, 2);
      const len = ((b & 0x0f) << 8) | lp[p + 1]!;
      this.need(p, 2 + len);
      this.isInt = false;
      this.start = p + 2;
      p += 2 + len;
      this.stop = p;
    } else if (b === 0xf0) {
      this.need(p, 5);
      const len = lp.readUInt32LE(p + 1);
      this.need(p, 5 + len);
      this.isInt = false;
      this.start = p + 5;
      p += 5 + len;
      this.stop = p;
    } else if (b >= 0xf1 && b <= 0xf4) {
      const bytes = b === 0xf4 ? 8 : b - 0xef;
      this.need(p, 1 + bytes);
      this.isInt = true;
      this.int = bytes === 8 ? lp.readBigInt64LE(p + 1) : lp.readIntLE(p + 1, bytes);
      p += 1 + bytes;
    } else {
      throw new RdbFormatError(`Invalid listpack encoding byte ${b}`);
    }
    const skip = lpBacklenSize(p - at);
    this.need(p, skip);
    this.pos = p + skip;
    this.count++;
  }

  /** The current element as an LpValue (a string is a view into the listpack). */
  value(): LpValue {
    return this.isInt ? this.int : this.lp.subarray(this.start, this.stop);
  }

  /** The current element, which must be a small integer (flags, counts). */
  number(): number {
    if (this.isInt && typeof this.int === 'number') return this.int;
    return lpNumber(this.value());
  }

  /** After the last element: the header's count must match (65535: not counted). */
  checkCount(): void {
    const declared = this.lp.readUInt16LE(4);
    if (declared !== 65535 && declared !== this.count) throw new RdbFormatError('Listpack element count mismatch');
  }
}

/** Decodes every element of a listpack; integers come back as numbers or bigints. */
export function parseListpack(lp: Buffer): LpValue[] {
  const c = new ListpackCursor(lp);
  const out: LpValue[] = [];
  while (!c.done) {
    c.next();
    out.push(c.value());
  }
  c.checkCount();
  return out;
}

/** An element as the bytes Redis would reply with (integers in decimal). */
export function lpBytes(v: LpValue): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'latin1');
}

/** An element that must be an integer (stream node metadata). */
export function lpInt(v: LpValue | undefined): bigint {
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'bigint') return v;
  const n = v === undefined ? null : canonicalInt64(v);
  if (n === null) throw new RdbFormatError('Expected an integer in a listpack');
  return n;
}

/** An element that must be a small integer (flags, counts). */
export function lpNumber(v: LpValue | undefined): number {
  if (typeof v === 'number') return v;
  const n = lpInt(v);
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER)) throw new RdbFormatError('Listpack integer out of range');
  return Number(n);
}
