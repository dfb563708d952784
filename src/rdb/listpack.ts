// Redis's listpack (listpack.c), byte for byte: the blob inside RDB types HASH_LISTPACK,
// ZSET_LISTPACK, LIST_QUICKLIST_2 nodes and stream nodes. Layout: total bytes (uint32 LE),
// element count (uint16 LE, 65535 when it does not fit), the elements, then 0xFF. An element is
// its encoding and data followed by "backlen", the size of encoding + data written so that it
// can be read right to left. Strings that are canonical int64 decimals are stored as integers,
// as lpAppend does.
import { lpBacklenSize } from '../engine/stream-node.js';
import { RdbFormatError } from './constants.js';
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
 * Writes a listpack element by element into one reused buffer, with the same bytes as
 * buildListpack: for streams saved node after node (an RDB of a 1M-entry stream held an
 * array of elements, two BigInts per entry and a Buffer per listpack).
 */
export class ListpackBuilder {
  private buf = Buffer.allocUnsafe(4096);
  private pos = HEADER_SIZE;
  private count = 0;

  /** Starts a new listpack (the previous finish()'s bytes are overwritten). */
  reset(): this {
    this.pos = HEADER_SIZE;
    this.count = 0;
    return this;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  int(v: number | bigint): this {
    this.reserve(14);
    this.pos = writeInt(this.buf, this.pos, v);
    this.count++;
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
    this.reserve(len + 10);
    const buf = this.buf;
    let pos = this.pos;
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
    this.pos = writeBacklen(buf, pos, pos - at);
    this.count++;
    return this;
  }

  /** The listpack's bytes: a view of the builder's buffer, valid until the next reset(). */
  finish(): Buffer {
    this.reserve(1);
    this.buf[this.pos++] = EOF_BYTE;
    this.buf.writeUInt32LE(this.pos, 0);
    this.buf.writeUInt16LE(Math.min(this.count, 65535), 4);
    return this.buf.subarray(0, this.pos);
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

/** Decodes every element of a listpack; integers come back as bigints. */
export function parseListpack(lp: Buffer): LpValue[] {
  if (lp.length < HEADER_SIZE + 1 || lp.readUInt32LE(0) !== lp.length || lp[lp.length - 1] !== EOF_BYTE) {
    throw new RdbFormatError('Invalid listpack header');
  }
  const out: LpValue[] = [];
  let p = HEADER_SIZE;
  const end = lp.length - 1;
  const need = (n: number) => {
    if (p + n > end) throw new RdbFormatError('Listpack element out of range');
  };
  while (p < end) {
    const start = p;
    const b = lp[p]!;
    let value: LpValue;
    if ((b & 0x80) === 0) {
      value = b;
      p += 1;
    } else if ((b & 0xc0) === 0x80) {
      const len = b & 0x3f;
      need(1 + len);
      value = lp.subarray(p + 1, p + 1 + len);
      p += 1 + len;
    } else if ((b & 0xe0) === 0xc0) {
      need(2);
      const u = ((b & 0x1f) << 8) | lp[p + 1]!;
      value = u >= 4096 ? u - 8192 : u;
      p += 2;
    } else if ((b & 0xf0) === 0xe0) {
      need(2);
      const len = ((b & 0x0f) << 8) | lp[p + 1]!;
      need(2 + len);
      value = lp.subarray(p + 2, p + 2 + len);
      p += 2 + len;
    } else if (b === 0xf0) {
      need(5);
      const len = lp.readUInt32LE(p + 1);
      need(5 + len);
      value = lp.subarray(p + 5, p + 5 + len);
      p += 5 + len;
    } else if (b >= 0xf1 && b <= 0xf4) {
      const bytes = [2, 3, 4, 8][b - 0xf1]!;
      need(1 + bytes);
      value = bytes === 8 ? lp.readBigInt64LE(p + 1) : lp.readIntLE(p + 1, bytes);
      p += 1 + bytes;
    } else {
      throw new RdbFormatError(`Invalid listpack encoding byte ${b}`);
    }
    const skip = lpBacklenSize(p - start);
    need(skip);
    p += skip;
    out.push(value);
  }
  const declared = lp.readUInt16LE(4);
  if (declared !== 65535 && declared !== out.length) throw new RdbFormatError('Listpack element count mismatch');
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
