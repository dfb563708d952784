// Writes RDB primitives into a growing buffer: lengths, strings (with Redis's integer
// encoding for short decimal strings), binary doubles, millisecond times. Strings are never
// LZF-compressed (as redis-server with rdbcompression no), which every Redis reads.
//
// A whole file (a full sync's RDB of a large dataset) is written in chunks (`chunked`): a full
// chunk is kept as it is and the next one started, instead of doubling one buffer and copying
// everything written so far at each doubling (two copies of every byte, into fresh memory).
import { canonicalIntNumber } from '../engine/canonical-int.js';
import { crc64 } from './crc64.js';

/** Size of each chunk of a chunked writer. */
const CHUNK = 1 << 20;

/**
 * `buf` if it holds `need` bytes, else a buffer of twice its size (or more, to hold `need`) with
 * its first `used` bytes copied: the growing buffers of the RDB writer and of a replica's full
 * sync payload (replication/replica.ts), so appending stays amortised O(1).
 */
export function grow(buf: Buffer, used: number, need: number): Buffer {
  if (need <= buf.length) return buf;
  let cap = Math.max(1, buf.length * 2);
  while (cap < need) cap *= 2;
  const next = Buffer.allocUnsafe(cap);
  buf.copy(next, 0, 0, used);
  return next;
}

/**
 * Bytes written at `pos` into `buf`, which reserve() grows: the one buffer handling of the RDB
 * writer and the listpack builder (which writes into an RdbWriter's buffer, or into its own).
 * Bytes from `hold` on (when >= 0) stay contiguous when a chunk is cut: a listpack being built.
 */
export class ByteBuffer {
  buf: Buffer;
  pos = 0;
  /** Start of bytes that must stay in one piece (-1: none); reserve() may move them. */
  hold = -1;
  /** Chunks already full (a chunked buffer), in order; null for one growing buffer. */
  protected readonly chunks: Buffer[] | null;
  /** Told of each chunk once it is full (it is never written again), in order. */
  onChunk: ((chunk: Buffer) => void) | null = null;

  constructor(initial = 256, chunked = false) {
    this.buf = Buffer.allocUnsafe(chunked ? CHUNK : initial);
    this.chunks = chunked ? [] : null;
  }

  /** Bytes written so far. */
  get length(): number {
    let n = this.pos;
    if (this.chunks !== null) for (const c of this.chunks) n += c.length;
    return n;
  }

  /** Makes room for `n` more bytes at `pos` (which, with `hold`, may move). */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.chunks === null) {
      // One growing buffer: everything is carried over.
      this.buf = grow(this.buf, this.pos, this.pos + n);
      return;
    }
    // A new chunk: the held bytes (a listpack being built) are carried over, the rest kept.
    const from = this.hold >= 0 ? this.hold : this.pos;
    const carried = this.pos - from;
    let cap = CHUNK;
    while (cap < carried + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    if (carried > 0) this.buf.copy(next, 0, from, this.pos);
    if (from > 0) {
      const full = this.buf.subarray(0, from);
      this.chunks.push(full);
      this.onChunk?.(full);
    }
    if (this.hold >= 0) this.hold -= from;
    this.buf = next;
    this.pos = carried;
  }
}

export class RdbWriter extends ByteBuffer {
  /** `chunked`: for a whole file, kept as a list of chunks (finishChunks). */
  constructor(chunked = false) {
    super(256, chunked);
  }

  byte(b: number): this {
    this.reserve(1);
    this.buf[this.pos++] = b;
    return this;
  }

  raw(b: Buffer): this {
    this.reserve(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
    return this;
  }

  /** rdbSaveLen: 6-bit, 14-bit, 32-bit or 64-bit big-endian lengths. */
  len(n: number | bigint): this {
    if (typeof n === 'number' && n <= 0xffffffff) {
      if (n < 64) return this.byte(n);
      if (n < 16384) return this.byte(0x40 | (n >> 8)).byte(n & 0xff);
      this.reserve(5);
      this.buf[this.pos++] = 0x80;
      this.buf.writeUInt32BE(n, this.pos);
      this.pos += 4;
      return this;
    }
    const v = BigInt(n);
    if (v <= 0xffffffffn) return this.len(Number(v));
    this.reserve(9);
    this.buf[this.pos++] = 0x81;
    this.buf.writeBigUInt64BE(BigInt.asUintN(64, v), this.pos);
    this.pos += 8;
    return this;
  }

  /** rdbSaveRawString: short decimal strings as int8/16/32, the rest as length + bytes. */
  string(b: Buffer): this {
    if (b.length <= 11) {
      const v = canonicalIntNumber(b);
      if (v !== null && v >= -2147483648 && v <= 2147483647) return this.encodedInt(v);
    }
    return this.len(b.length).raw(b);
  }

  /** A binary blob (listpack, intset, stream id) as a plain length-prefixed string. */
  blob(b: Buffer): this {
    return this.len(b.length).raw(b);
  }

  /** An integer as an RDB string (rdbSaveLongLongAsStringObject). */
  intString(v: number | bigint): this {
    return this.string(Buffer.from(String(v), 'latin1'));
  }

  private encodedInt(v: number): this {
    if (v >= -128 && v <= 127) return this.byte(0xc0).byte(v & 0xff);
    if (v >= -32768 && v <= 32767) {
      this.reserve(3);
      this.buf[this.pos++] = 0xc1;
      this.buf.writeInt16LE(v, this.pos);
      this.pos += 2;
      return this;
    }
    this.reserve(5);
    this.buf[this.pos++] = 0xc2;
    this.buf.writeInt32LE(v, this.pos);
    this.pos += 4;
    return this;
  }

  /** rdbSaveBinaryDoubleValue: 8 bytes little-endian. */
  double(v: number): this {
    this.reserve(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
    return this;
  }

  /** rdbSaveMillisecondTime: int64 little-endian. */
  millis(ms: number | bigint): this {
    this.reserve(8);
    this.buf.writeBigInt64LE(BigInt(ms), this.pos);
    this.pos += 8;
    return this;
  }

  /**
   * rdbSaveLen's bytes for a length that is written later (a listpack's, once it is built):
   * the size it takes (1, 2 or 5 bytes for a length below 2^32).
   */
  static lenSize(n: number): number {
    return n < 64 ? 1 : n < 16384 ? 2 : 5;
  }

  /** Writes rdbSaveLen of n (below 2^32) at `at`, taking exactly lenSize(n) bytes. */
  writeLenAt(at: number, n: number): void {
    const buf = this.buf;
    if (n < 64) buf[at] = n;
    else if (n < 16384) {
      buf[at] = 0x40 | (n >> 8);
      buf[at + 1] = n & 0xff;
    } else {
      buf[at] = 0x80;
      buf.writeUInt32BE(n, at + 1);
    }
  }

  /** Appends the CRC64 of everything written (little-endian) and returns the bytes, uncopied. */
  finishWithChecksum(): Buffer {
    const chunks = this.finishChunks();
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  /**
   * Appends the CRC64 of everything written and returns the bytes as the chunks they were
   * written in (one for a writer that is not chunked), uncopied.
   */
  finishChunks(): Buffer[] {
    let sum = 0n;
    const chunks = this.chunks ?? [];
    for (const c of chunks) sum = crc64(c, sum);
    sum = crc64(this.buf.subarray(0, this.pos), sum);
    this.reserve(8);
    this.buf.writeBigUInt64LE(sum, this.pos);
    this.pos += 8;
    return [...(this.chunks ?? []), this.buf.subarray(0, this.pos)];
  }
}
