// Redis's CRC64 (crc64.c): the Jones polynomial, reflected, initial value 0, no final xor.
// It checksums RDB files and DUMP / FUNCTION DUMP payloads; crc64(Buffer.from('123456789')) is
// 0xe9c6d914c4b8d9ca, the check value Redis's own test uses. The 64-bit state is kept as two
// uint32 halves so a whole RDB file is checksummed without a BigInt per byte.

const POLY = 0x95ac9329ac4bc9b5n; // 0xad93d23594c935a9 bit-reversed

const TABLE_LO = new Uint32Array(256);
const TABLE_HI = new Uint32Array(256);
for (let byte = 0; byte < 256; byte++) {
  let crc = BigInt(byte);
  for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ POLY : crc >> 1n;
  TABLE_LO[byte] = Number(crc & 0xffffffffn);
  TABLE_HI[byte] = Number(crc >> 32n);
}

export function crc64(data: Buffer, crc = 0n): bigint {
  let lo = Number(crc & 0xffffffffn) >>> 0;
  let hi = Number((crc >> 32n) & 0xffffffffn) >>> 0;
  for (let i = 0; i < data.length; i++) {
    const idx = (lo ^ data[i]!) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ TABLE_LO[idx]!) >>> 0;
    hi = ((hi >>> 8) ^ TABLE_HI[idx]!) >>> 0;
  }
  return (BigInt(hi) << 32n) | BigInt(lo);
}
