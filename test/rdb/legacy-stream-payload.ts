// A Redis 5-6.2 stream DUMP payload (RDB type 15, RDB version 9) made from one redis-server 7.0
// wrote (type 19, version 10): the same bytes without what type 19 added, so tests get a legacy
// payload from the installed redis-server instead of from a copied fixture.
//
// Type 19 is type 15 plus, after the stream's last id, its first id, max-deleted id and
// entries-added (five lengths), and, after each group's last id, its entries-read (one length)
// (Redis 7.0 rdb.c, rdbSaveObject). Everything else, the listpacks (as written, LZF-compressed
// or not), the PELs and the consumers, is copied unchanged.
import { Buffer } from 'node:buffer';
import { crc64 } from '../../src/rdb/crc64.js';

const STREAM_LISTPACKS = 15;
const STREAM_LISTPACKS_2 = 19;
const RDB_VERSION_6_2 = 9;
/** The string encoding byte of an LZF-compressed string. */
const LZF = 0xc3;

class Cursor {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  /** An RDB length (6, 14, 32 or 64 bits). */
  length(): number {
    const first = this.byte();
    switch (first >> 6) {
      case 0:
        return first & 0x3f;
      case 1:
        return ((first & 0x3f) << 8) | this.byte();
      case 2:
        if (first === 0x80) return this.take(4).readUInt32BE(0);
        if (first === 0x81) return Number(this.take(8).readBigUInt64BE(0));
    }
    throw new Error(`not an RDB length: 0x${first.toString(16)} at ${this.pos - 1}`);
  }

  /** Skips an RDB string; returns whether it was LZF-compressed. */
  string(): boolean {
    const first = this.buf[this.pos]!;
    if (first >> 6 !== 3) {
      this.take(this.length());
      return false;
    }
    this.pos++;
    if (first === 0xc0) this.take(1);
    else if (first === 0xc1) this.take(2);
    else if (first === 0xc2) this.take(4);
    else if (first === LZF) {
      const compressed = this.length();
      this.length(); // the uncompressed length
      this.take(compressed);
      return true;
    } else throw new Error(`unknown string encoding 0x${first.toString(16)}`);
    return false;
  }

  take(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw new Error('payload ends early');
    const bytes = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return bytes;
  }

  private byte(): number {
    return this.take(1)[0]!;
  }
}

/**
 * The type-15 form of a type-19 stream payload (from DUMP on redis-server 7.0), with its
 * checksum; `lzf` says whether a listpack was stored LZF-compressed.
 */
export function legacyStreamPayload(dump: Buffer): { payload: Buffer; lzf: boolean } {
  if (dump[0] !== STREAM_LISTPACKS_2) throw new Error(`not a Redis 7.0 stream payload (type ${dump[0]})`);
  const body = dump.subarray(0, dump.length - 10); // without the RDB version and the CRC64
  const c = new Cursor(body);
  const kept: Buffer[] = [Buffer.from([STREAM_LISTPACKS])];
  c.pos = 1;
  let from = 1;
  /** Drops what `read` reads. */
  const drop = (read: () => void): void => {
    kept.push(body.subarray(from, c.pos));
    read();
    from = c.pos;
  };
  let lzf = false;
  for (let nodes = c.length(); nodes > 0; nodes--) {
    c.string(); // the node's master id
    lzf = c.string() || lzf; // its listpack
  }
  c.length(); // entries
  c.length(); // last id ms
  c.length(); // last id seq
  drop(() => {
    for (let i = 0; i < 5; i++) c.length(); // first id, max-deleted id, entries-added
  });
  for (let groups = c.length(); groups > 0; groups--) {
    c.string(); // name
    c.length(); // last id ms
    c.length(); // last id seq
    drop(() => c.length()); // entries-read
    for (let pending = c.length(); pending > 0; pending--) {
      c.take(16 + 8); // the entry id, the delivery time
      c.length(); // the delivery count
    }
    for (let consumers = c.length(); consumers > 0; consumers--) {
      c.string(); // name
      c.take(8); // seen time
      c.take(16 * c.length()); // its pending ids
    }
  }
  if (c.pos !== body.length) throw new Error(`${body.length - c.pos} bytes after the stream`);
  kept.push(body.subarray(from), Buffer.from([RDB_VERSION_6_2, 0]));
  const unsigned = Buffer.concat(kept);
  const checksum = Buffer.alloc(8);
  checksum.writeBigUInt64LE(crc64(unsigned));
  return { payload: Buffer.concat([unsigned, checksum]), lzf };
}
