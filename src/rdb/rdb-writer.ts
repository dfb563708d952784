// Writes RDB primitives into a growing buffer: lengths, strings (with Redis's integer
// encoding for short decimal strings), binary doubles, millisecond times. Strings are never
// LZF-compressed (as redis-server with rdbcompression no), which every Redis reads.
import { canonicalIntNumber } from '../engine/canonical-int.js';
import { crc64 } from './crc64.js';

export class RdbWriter {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  get length(): number {
    return this.pos;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
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

  /** Appends the CRC64 of everything written (little-endian) and returns the bytes, uncopied. */
  finishWithChecksum(): Buffer {
    const sum = crc64(this.buf.subarray(0, this.pos));
    this.reserve(8);
    this.buf.writeBigUInt64LE(sum, this.pos);
    this.pos += 8;
    return this.buf.subarray(0, this.pos);
  }
}
