// Redis's listpack (listpack.c), byte for byte: the blob inside RDB types HASH_LISTPACK,
// ZSET_LISTPACK, LIST_QUICKLIST_2 nodes and stream nodes. Layout: total bytes (uint32 LE),
// element count (uint16 LE, 65535 when it does not fit), the elements, then 0xFF. An element is
// its encoding and data followed by "backlen", the size of encoding + data written so that it
// can be read right to left. Strings that are canonical int64 decimals are stored as integers,
// as lpAppend does.
import { lpBacklenSize } from '../engine/stream-node.js';
import { RdbFormatError } from './constants.js';
import { canonicalInt64 } from './rdb-writer.js';

/** A listpack element: a string or an integer. */
export type LpValue = Buffer | bigint;

const HEADER_SIZE = 6;
const EOF_BYTE = 0xff;

function writeBacklen(out: number[], l: number): void {
  const size = lpBacklenSize(l);
  // Most significant 7-bit group first; every byte but the first has the high bit set.
  for (let i = size - 1; i >= 0; i--) {
    const group = Math.floor(l / 2 ** (7 * i)) & 127;
    out.push(i === size - 1 ? group : group | 128);
  }
}

function intEncoding(v: bigint): number[] {
  if (v >= 0n && v <= 127n) return [Number(v)];
  if (v >= -4096n && v <= 4095n) {
    const u = Number(v < 0n ? (1n << 13n) + v : v);
    return [(u >> 8) | 0xc0, u & 0xff];
  }
  const le = (marker: number, bytes: number): number[] => {
    const out = [marker];
    let u = BigInt.asUintN(bytes * 8, v);
    for (let i = 0; i < bytes; i++, u >>= 8n) out.push(Number(u & 0xffn));
    return out;
  };
  if (v >= -32768n && v <= 32767n) return le(0xf1, 2);
  if (v >= -8388608n && v <= 8388607n) return le(0xf2, 3);
  if (v >= -2147483648n && v <= 2147483647n) return le(0xf3, 4);
  return le(0xf4, 8);
}

function stringHeader(len: number): number[] {
  if (len < 64) return [0x80 | len];
  if (len < 4096) return [0xe0 | (len >> 8), len & 0xff];
  return [0xf0, len & 0xff, (len >>> 8) & 0xff, (len >>> 16) & 0xff, (len >>> 24) & 0xff];
}

/** Builds a listpack from elements; Buffers that read as int64 are stored as integers. */
export function buildListpack(values: Iterable<LpValue | number>): Buffer {
  const parts: Buffer[] = [];
  let total = HEADER_SIZE + 1;
  let count = 0;
  for (const value of values) {
    let v: LpValue = typeof value === 'number' ? BigInt(value) : value;
    if (Buffer.isBuffer(v)) v = canonicalInt64(v) ?? v;
    const head: number[] = typeof v === 'bigint' ? intEncoding(v) : stringHeader(v.length);
    const dataLen = typeof v === 'bigint' ? 0 : v.length;
    const tail: number[] = [];
    writeBacklen(tail, head.length + dataLen);
    const part = typeof v === 'bigint' ? Buffer.from([...head, ...tail]) : Buffer.concat([Buffer.from(head), v, Buffer.from(tail)]);
    parts.push(part);
    total += part.length;
    count++;
  }
  const header = Buffer.allocUnsafe(HEADER_SIZE);
  header.writeUInt32LE(total, 0);
  header.writeUInt16LE(Math.min(count, 65535), 4);
  return Buffer.concat([header, ...parts, Buffer.from([EOF_BYTE])], total);
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
      value = BigInt(b);
      p += 1;
    } else if ((b & 0xc0) === 0x80) {
      const len = b & 0x3f;
      need(1 + len);
      value = Buffer.from(lp.subarray(p + 1, p + 1 + len));
      p += 1 + len;
    } else if ((b & 0xe0) === 0xc0) {
      need(2);
      const u = ((b & 0x1f) << 8) | lp[p + 1]!;
      value = BigInt(u >= 4096 ? u - 8192 : u);
      p += 2;
    } else if ((b & 0xf0) === 0xe0) {
      need(2);
      const len = ((b & 0x0f) << 8) | lp[p + 1]!;
      need(2 + len);
      value = Buffer.from(lp.subarray(p + 2, p + 2 + len));
      p += 2 + len;
    } else if (b === 0xf0) {
      need(5);
      const len = lp.readUInt32LE(p + 1);
      need(5 + len);
      value = Buffer.from(lp.subarray(p + 5, p + 5 + len));
      p += 5 + len;
    } else if (b >= 0xf1 && b <= 0xf4) {
      const bytes = [2, 3, 4, 8][b - 0xf1]!;
      need(1 + bytes);
      let u = 0n;
      for (let i = bytes - 1; i >= 0; i--) u = (u << 8n) | BigInt(lp[p + 1 + i]!);
      value = BigInt.asIntN(bytes * 8, u);
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
  return typeof v === 'bigint' ? Buffer.from(v.toString(), 'latin1') : v;
}

/** An element that must be an integer (stream node metadata). */
export function lpInt(v: LpValue | undefined): bigint {
  if (typeof v === 'bigint') return v;
  const n = v === undefined ? null : canonicalInt64(v);
  if (n === null) throw new RdbFormatError('Expected an integer in a listpack');
  return n;
}
