// Reads RDB primitives, bounds-checked: any short or malformed input throws RdbFormatError
// (RESTORE's "Bad data format", a refused file on load).
import { RdbFormatError } from './constants.js';
import { lzfDecompress } from './lzf.js';

/**
 * What a partial reader (RdbReader.partial) throws when it needs bytes it does not have yet: not
 * an error of the file (no RdbFormatError, which callers rewrap), and one object, no stack.
 */
export const NEED_MORE: unique symbol = Symbol('rdb: more bytes needed');

export class RdbReader {
  pos = 0;
  /**
   * The input is a file's beginning, more to come (a replica loading a full sync as it arrives):
   * reading past its end throws NEED_MORE instead of a short file's error.
   */
  partial = false;
  /** transientString's buffer for decompressed strings. */
  private scratch: Buffer = Buffer.alloc(0);
  constructor(
    public buf: Buffer,
    public end = buf.length,
  ) {}

  /** Reads `buf` from its start from now on (the next window of a file loaded as it arrives). */
  window(buf: Buffer, partial: boolean): void {
    this.buf = buf;
    this.end = buf.length;
    this.pos = 0;
    this.partial = partial;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): void {
    if (n < 0 || this.pos + n > this.end) {
      if (this.partial && n >= 0) throw NEED_MORE;
      throw new RdbFormatError('Unexpected EOF reading RDB file');
    }
  }

  byte(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** rdbLoadLen: the length, or the special encoding (0..3) of an encoded string. */
  private lenOrEncoding(): { value: bigint; encoded: boolean } {
    const first = this.byte();
    const kind = first >> 6;
    if (kind === 3) return { value: BigInt(first & 0x3f), encoded: true };
    if (kind === 0) return { value: BigInt(first & 0x3f), encoded: false };
    if (kind === 1) return { value: BigInt(((first & 0x3f) << 8) | this.byte()), encoded: false };
    if (first === 0x80) return { value: BigInt(this.bytes(4).readUInt32BE(0)), encoded: false };
    if (first === 0x81) return { value: this.bytes(8).readBigUInt64BE(0), encoded: false };
    throw new RdbFormatError(`Unknown length encoding ${first} in rdbLoadLen()`);
  }

  /** A length as a bigint (uint64). */
  bigLen(): bigint {
    const l = this.lenOrEncoding();
    if (l.encoded) throw new RdbFormatError('Unexpected string encoding where a length was expected');
    return l.value;
  }

  /** A length that must fit a JS number (element counts, ids' halves below 2^53). */
  len(): number {
    const v = this.bigLen();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RdbFormatError('Length out of range');
    return Number(v);
  }

  /** rdbGenericLoadStringObject: raw, integer-encoded or LZF-compressed; a Buffer of its own. */
  string(): Buffer {
    const view = this.stringView();
    return view.buffer === this.buf.buffer ? Buffer.from(view) : view;
  }

  /** A string that may be a view into the input (for blobs decoded at once: listpacks, intsets). */
  stringView(): Buffer {
    return this.loadString(undefined);
  }

  /**
   * As stringView, but a compressed string is decompressed into a buffer this reader reuses:
   * valid until the next call. For a blob used up at once and not kept (a stream node's
   * listpack, copied into the node): a replica's full sync allocated one per node otherwise.
   */
  transientString(): Buffer {
    if (this.scratch.length < 4096) this.scratch = Buffer.allocUnsafeSlow(64 * 1024);
    const out = this.loadString(this.scratch);
    // A larger blob got a buffer of its own: the next ones may reuse it.
    if (out.buffer !== this.buf.buffer && out.length > this.scratch.length) this.scratch = out;
    return out;
  }

  private loadString(scratch: Buffer | undefined): Buffer {
    const l = this.lenOrEncoding();
    if (!l.encoded) {
      if (l.value > BigInt(this.remaining)) {
        if (this.partial && l.value <= BigInt(Number.MAX_SAFE_INTEGER)) throw NEED_MORE;
        throw new RdbFormatError('Unexpected EOF reading RDB file');
      }
      return this.bytes(Number(l.value));
    }
    switch (Number(l.value)) {
      case 0:
        return Buffer.from(String(this.bytes(1).readInt8(0)), 'latin1');
      case 1:
        return Buffer.from(String(this.bytes(2).readInt16LE(0)), 'latin1');
      case 2:
        return Buffer.from(String(this.bytes(4).readInt32LE(0)), 'latin1');
      case 3: {
        const clen = this.len();
        const ulen = this.len();
        const out = lzfDecompress(this.bytes(clen), ulen, scratch);
        if (out === null) throw new RdbFormatError('Invalid LZF compressed string');
        return out;
      }
      default:
        throw new RdbFormatError(`Unknown RDB string encoding type ${l.value}`);
    }
  }

  /** rdbLoadBinaryDoubleValue. */
  double(): number {
    return this.bytes(8).readDoubleLE(0);
  }

  /** rdbLoadDoubleValue (RDB_TYPE_ZSET v1): a length byte then ASCII, 253-255 for nan/inf/-inf. */
  asciiDouble(): number {
    const len = this.byte();
    if (len === 253) return NaN;
    if (len === 254) return Infinity;
    if (len === 255) return -Infinity;
    const v = Number(this.bytes(len).toString('latin1'));
    if (Number.isNaN(v)) throw new RdbFormatError('Invalid double value');
    return v;
  }

  millis(): number {
    return Number(this.bytes(8).readBigInt64LE(0));
  }
}
