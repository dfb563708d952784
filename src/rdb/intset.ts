// Redis's intset (intset.c): the blob of RDB_TYPE_SET_INTSET. Header: encoding (uint32 LE: 2, 4
// or 8 bytes per member), length (uint32 LE), then the members ascending, little-endian.
import { RdbFormatError } from './constants.js';

export function buildIntset(members: bigint[]): Buffer {
  const sorted = [...members].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let width = 2;
  for (const v of sorted) {
    if (v < -32768n || v > 32767n) width = Math.max(width, 4);
    if (v < -2147483648n || v > 2147483647n) width = 8;
  }
  const out = Buffer.allocUnsafe(8 + sorted.length * width);
  out.writeUInt32LE(width, 0);
  out.writeUInt32LE(sorted.length, 4);
  sorted.forEach((v, i) => {
    const at = 8 + i * width;
    if (width === 2) out.writeInt16LE(Number(v), at);
    else if (width === 4) out.writeInt32LE(Number(v), at);
    else out.writeBigInt64LE(v, at);
  });
  return out;
}

export function parseIntset(blob: Buffer): bigint[] {
  if (blob.length < 8) throw new RdbFormatError('Invalid intset');
  const width = blob.readUInt32LE(0);
  const count = blob.readUInt32LE(4);
  if ((width !== 2 && width !== 4 && width !== 8) || blob.length !== 8 + count * width) {
    throw new RdbFormatError('Invalid intset');
  }
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const at = 8 + i * width;
    out.push(width === 2 ? BigInt(blob.readInt16LE(at)) : width === 4 ? BigInt(blob.readInt32LE(at)) : blob.readBigInt64LE(at));
  }
  return out;
}
