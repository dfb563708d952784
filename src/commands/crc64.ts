// Redis's CRC64 (crc64.c): the Jones polynomial, reflected, initial value 0, no final xor.
// It checksums DUMP and FUNCTION DUMP payloads; crc64(Buffer.from('123456789')) is
// 0xe9c6d914c4b8d9ca, the check value Redis's own test uses.
import { Buffer } from 'node:buffer';

const POLY = 0x95ac9329ac4bc9b5n; // 0xad93d23594c935a9 bit-reversed
const MASK = (1n << 64n) - 1n;

const TABLE: bigint[] = Array.from({ length: 256 }, (_, byte) => {
  let crc = BigInt(byte);
  for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ POLY : crc >> 1n;
  return crc;
});

export function crc64(data: Buffer, crc = 0n): bigint {
  for (const byte of data) crc = (TABLE[Number((crc ^ BigInt(byte)) & 0xffn)]! ^ (crc >> 8n)) & MASK;
  return crc;
}
