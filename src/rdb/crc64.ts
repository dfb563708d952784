// Redis's CRC64 (crc64.c): the Jones polynomial, reflected, initial value 0, no final xor.
// It checksums RDB files and DUMP / FUNCTION DUMP payloads; crc64(Buffer.from('123456789')) is
// 0xe9c6d914c4b8d9ca, the check value Redis's own test uses. The 64-bit state is kept as two
// uint32 halves (no BigInt per byte) and eight bytes are folded per step with eight tables
// ("slicing by 8", as Redis's crcspeed does), so a whole RDB file is checksummed quickly.

import { wasmCrc64 } from './crc64-wasm.js';

const POLY = 0x95ac9329ac4bc9b5n; // 0xad93d23594c935a9 bit-reversed

/** LO[k * 256 + b] / HI[...]: the table for a byte k positions further back. */
const LO = new Uint32Array(8 * 256);
const HI = new Uint32Array(8 * 256);
for (let byte = 0; byte < 256; byte++) {
  let crc = BigInt(byte);
  for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ POLY : crc >> 1n;
  LO[byte] = Number(crc & 0xffffffffn);
  HI[byte] = Number(crc >> 32n);
}
for (let k = 1; k < 8; k++) {
  for (let b = 0; b < 256; b++) {
    const plo = LO[(k - 1) * 256 + b]!;
    const phi = HI[(k - 1) * 256 + b]!;
    const idx = plo & 0xff;
    LO[k * 256 + b] = (((plo >>> 8) | (phi << 24)) ^ LO[idx]!) >>> 0;
    HI[k * 256 + b] = ((phi >>> 8) ^ HI[idx]!) >>> 0;
  }
}

/**
 * Inputs of this size and more go through crc64-wasm.ts; below it, copying into its memory and
 * the call cost more. Warm, both sum about 1.3 GB/s here; but a process that has just started
 * (a replica's full sync, a restart's load) runs these loops unoptimized until V8 has compiled
 * them, and longer when its cores are busy: a replica's sync of 12 MB spent 64 ms in them. The
 * module is compiled once, at load, at full speed from the first byte.
 */
const WASM_FROM = 512;
const wasm = wasmCrc64(LO, HI);

/** The running CRC of update(): [low 32 bits, high 32 bits]. */
const state = new Uint32Array(2);

/**
 * `crc` continued over `data`. The loop runs in update() on numbers only: BigInt arithmetic in
 * the same function (its result is a uint64, not the int64 the optimizer guesses) threw the
 * optimized loop away at nearly every call, so a file's 1 MiB chunks were summed at a quarter
 * of the speed.
 */
export function crc64(data: Buffer, crc = 0n): bigint {
  if (wasm !== null && data.length >= WASM_FROM) return wasm(data, crc);
  state[0] = Number(crc & 0xffffffffn);
  state[1] = Number((crc >> 32n) & 0xffffffffn);
  update(data);
  return (BigInt(state[1]!) << 32n) | BigInt(state[0]!);
}

/** Words are read in the host's order: the folding below assumes little-endian ones. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function update(data: Buffer): void {
  const n = data.length;
  let i = 0;
  // Byte by byte up to a 4-byte boundary, then eight bytes a step as two 32-bit words of an
  // Int32Array view (two loads instead of eight, with their shifts and ors: about 1.5x the speed
  // on a full sync's 27 MB), then the last bytes. The byte loop is a function of its own: as
  // a rarely reached loop here it had no type feedback, and leaving it threw the optimized
  // code away at the end of a call, so each 1 MiB chunk of a file began in the interpreter.
  if (LITTLE_ENDIAN) {
    const head = Math.min(n, (4 - (data.byteOffset & 3)) & 3);
    if (head > 0) updateBytes(data, 0, head);
    i = head;
    const words = ((n - i) >> 3) * 2;
    if (words > 0) {
      updateWords(new Int32Array(data.buffer, data.byteOffset + i, words));
      i += words * 4;
    }
  } else {
    i = n - (n % 8);
    updateOctets(data, i);
  }
  if (i < n) updateBytes(data, i, n);
}

/** The state over data[from, to), a byte a step. */
function updateBytes(data: Buffer, from: number, to: number): void {
  let lo = state[0]!;
  let hi = state[1]!;
  for (let i = from; i < to; i++) {
    const idx = (lo ^ data[i]!) & 0xff;
    lo = ((lo >>> 8) | (hi << 24)) ^ LO[idx]!;
    hi = (hi >>> 8) ^ HI[idx]!;
  }
  state[0] = lo;
  state[1] = hi;
}

/** The state over little-endian words, two (eight bytes) a step. */
function updateWords(w: Int32Array): void {
  let lo = state[0]!;
  let hi = state[1]!;
  const words = w.length;
  for (let j = 0; j < words; j += 2) {
    const l = lo ^ w[j]!;
    const h = hi ^ w[j + 1]!;
    const a = 7 * 256 + (l & 0xff);
    const b = 6 * 256 + ((l >>> 8) & 0xff);
    const c = 5 * 256 + ((l >>> 16) & 0xff);
    const d = 4 * 256 + (l >>> 24);
    const e = 3 * 256 + (h & 0xff);
    const f = 2 * 256 + ((h >>> 8) & 0xff);
    const g = 256 + ((h >>> 16) & 0xff);
    const k = h >>> 24;
    lo = LO[a]! ^ LO[b]! ^ LO[c]! ^ LO[d]! ^ LO[e]! ^ LO[f]! ^ LO[g]! ^ LO[k]!;
    hi = HI[a]! ^ HI[b]! ^ HI[c]! ^ HI[d]! ^ HI[e]! ^ HI[f]! ^ HI[g]! ^ HI[k]!;
  }
  state[0] = lo;
  state[1] = hi;
}

/** data[0, end) (end a multiple of 8) eight bytes a step, assembled byte by byte (any host). */
function updateOctets(data: Buffer, end: number): void {
  let lo = state[0]!;
  let hi = state[1]!;
  for (let i = 0; i < end; i += 8) {
    lo ^= data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    hi ^= data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
    const a = 7 * 256 + (lo & 0xff);
    const b = 6 * 256 + ((lo >>> 8) & 0xff);
    const c = 5 * 256 + ((lo >>> 16) & 0xff);
    const d = 4 * 256 + (lo >>> 24);
    const e = 3 * 256 + (hi & 0xff);
    const f = 2 * 256 + ((hi >>> 8) & 0xff);
    const g = 256 + ((hi >>> 16) & 0xff);
    const h = hi >>> 24;
    lo = LO[a]! ^ LO[b]! ^ LO[c]! ^ LO[d]! ^ LO[e]! ^ LO[f]! ^ LO[g]! ^ LO[h]!;
    hi = HI[a]! ^ HI[b]! ^ HI[c]! ^ HI[d]! ^ HI[e]! ^ HI[f]! ^ HI[g]! ^ HI[h]!;
  }
  state[0] = lo;
  state[1] = hi;
}
