// Reads Redis's ziplist (ziplist.c), the pre-7.0 blob of RDB types LIST_ZIPLIST, LIST_QUICKLIST,
// HASH_ZIPLIST and ZSET_ZIPLIST, so RDB files of older Redis versions load. Never written.
// Layout: zlbytes (uint32 LE), zltail (uint32 LE), zllen (uint16 LE), entries, 0xFF. An entry:
// prevlen (1 byte, or 0xFE and a uint32), an encoding header, then data.
import { RdbFormatError } from './constants.js';
import type { LpValue } from './listpack.js';

export function parseZiplist(zl: Buffer): LpValue[] {
  if (zl.length < 11 || zl.readUInt32LE(0) !== zl.length || zl[zl.length - 1] !== 0xff) {
    throw new RdbFormatError('Invalid ziplist header');
  }
  const out: LpValue[] = [];
  const end = zl.length - 1;
  let p = 10;
  const need = (n: number) => {
    if (p + n > end) throw new RdbFormatError('Ziplist entry out of range');
  };
  while (p < end) {
    need(1);
    p += zl[p] === 0xfe ? 5 : 1; // prevlen
    need(1);
    const b = zl[p]!;
    const str = (headerLen: number, len: number) => {
      need(headerLen + len);
      out.push(Buffer.from(zl.subarray(p + headerLen, p + headerLen + len)));
      p += headerLen + len;
    };
    const int = (bytes: number) => {
      need(1 + bytes);
      let u = 0n;
      for (let i = bytes - 1; i >= 0; i--) u = (u << 8n) | BigInt(zl[p + 1 + i]!);
      out.push(BigInt.asIntN(bytes * 8, u));
      p += 1 + bytes;
    };
    switch (b >> 6) {
      case 0:
        str(1, b & 0x3f);
        continue;
      case 1:
        need(2);
        str(2, ((b & 0x3f) << 8) | zl[p + 1]!);
        continue;
      case 2:
        need(5);
        str(5, zl.readUInt32BE(p + 1));
        continue;
    }
    if (b === 0xc0) int(2);
    else if (b === 0xd0) int(4);
    else if (b === 0xe0) int(8);
    else if (b === 0xf0) int(3);
    else if (b === 0xfe) int(1);
    else if (b >= 0xf1 && b <= 0xfd) {
      out.push(BigInt((b & 0x0f) - 1));
      p += 1;
    } else throw new RdbFormatError(`Invalid ziplist encoding byte ${b}`);
  }
  return out;
}
