// HyperLogLog as Redis 7.0 stores it (hyperloglog.c), byte for byte: a string with a 16-byte
// header ("HYLL", the encoding, 3 unused bytes, the cached cardinality little endian with its
// top bit meaning "stale"), then 16384 registers of 6 bits, either dense (12288 bytes) or
// sparse (ZERO / XZERO / VAL run-length opcodes). Elements are hashed with MurmurHash64A (seed
// 0xadc83b19) and the cardinality is Ertl's estimator Redis uses, so a sluice server and a
// redis-server give the same counts and the same bytes for GET / DUMP of an HLL.
// A stored string is never changed in place (a reply may hold it): HllWriter changes a copy.
import { Buffer } from 'node:buffer';

export const HLL_P = 14;
export const HLL_REGISTERS = 1 << HLL_P;
const HLL_Q = 64 - HLL_P;
const HLL_BITS = 6;
const HLL_REGISTER_MAX = (1 << HLL_BITS) - 1;
export const HLL_HDR_SIZE = 16;
export const HLL_DENSE_SIZE = HLL_HDR_SIZE + Math.floor((HLL_REGISTERS * HLL_BITS + 7) / 8);
export const HLL_DENSE = 0;
export const HLL_SPARSE = 1;
const SPARSE_VAL_MAX_VALUE = 32;
const SPARSE_VAL_MAX_LEN = 4;
const SPARSE_ZERO_MAX_LEN = 64;
const SPARSE_XZERO_MAX_LEN = 16384;
const ALPHA_INF = 0.72134752044448170368;

// --- MurmurHash64A ----------------------------------------------------------------------------
// In 32-bit halves (hi, lo): BigInt arithmetic made hashing most of a PFADD's time.

const M_HI = 0xc6a4a793;
const M_LO = 0x5bd1e995;
/** The hash being computed, as two unsigned 32-bit halves; `mulM` multiplies into them. */
let hHi = 0;
let hLo = 0;

/** (hi, lo) * M modulo 2^64 into (hHi, hLo): 16-bit limbs, so every product is exact in a double. */
function mulM(hi: number, lo: number): void {
  const a48 = hi >>> 16;
  const a32 = hi & 0xffff;
  const a16 = lo >>> 16;
  const a00 = lo & 0xffff;
  const b48 = M_HI >>> 16;
  const b32 = M_HI & 0xffff;
  const b16 = M_LO >>> 16;
  const b00 = M_LO & 0xffff;
  let c00 = a00 * b00;
  let c16 = c00 >>> 16;
  c00 &= 0xffff;
  c16 += a16 * b00;
  let c32 = c16 >>> 16;
  c16 &= 0xffff;
  c16 += a00 * b16;
  c32 += c16 >>> 16;
  c16 &= 0xffff;
  c32 += a32 * b00;
  let c48 = c32 >>> 16;
  c32 &= 0xffff;
  c32 += a16 * b16;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c32 += a00 * b32;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c48 += a48 * b00 + a32 * b16 + a16 * b32 + a00 * b48;
  c48 &= 0xffff;
  hHi = ((c48 << 16) | c32) >>> 0;
  hLo = ((c16 << 16) | c00) >>> 0;
}

/** MurmurHash64A of `data` into (hHi, hLo), as Redis's (little endian reads). */
function murmur(data: Buffer, seed: number): void {
  const len = data.length;
  mulM(0, len);
  let h1 = hHi;
  let h0 = (hLo ^ seed) >>> 0;
  const whole = len - (len & 7);
  for (let i = 0; i < whole; i += 8) {
    mulM(data.readUInt32LE(i + 4), data.readUInt32LE(i));
    mulM(hHi, (hLo ^ (hHi >>> 15)) >>> 0);
    mulM((h1 ^ hHi) >>> 0, (h0 ^ hLo) >>> 0);
    h1 = hHi;
    h0 = hLo;
  }
  const rest = len & 7;
  if (rest > 0) {
    for (let i = rest - 1; i >= 0; i--) {
      if (i >= 4) h1 = (h1 ^ (data[whole + i]! << (8 * (i - 4)))) >>> 0;
      else h0 = (h0 ^ (data[whole + i]! << (8 * i))) >>> 0;
    }
    mulM(h1, h0);
    h1 = hHi;
    h0 = hLo;
  }
  mulM(h1, (h0 ^ (h1 >>> 15)) >>> 0);
  hLo = (hLo ^ (hHi >>> 15)) >>> 0;
}

export function murmurHash64A(data: Buffer, seed: number): bigint {
  murmur(data, seed);
  return (BigInt(hHi) << 32n) | BigInt(hLo);
}

/** hllPatLen: the register an element addresses and the run of zeros (plus one) it brings. */
export function patLen(element: Buffer): { index: number; count: number } {
  murmur(element, 0xadc83b19);
  const index = hLo & (HLL_REGISTERS - 1);
  // The hash's bits past the index, with bit HLL_Q set so the run ends: its trailing zeros + 1.
  const low = hLo >>> HLL_P;
  let count: number;
  if (low !== 0) count = 32 - Math.clz32(low & -low);
  else if (hHi !== 0) count = 32 - HLL_P + 32 - Math.clz32(hHi & -hHi);
  else count = HLL_Q + 1;
  return { index, count };
}

// --- dense registers ---------------------------------------------------------------------------

function denseGet(regs: Buffer, at: number, index: number): number {
  const byte = at + ((index * HLL_BITS) >> 3);
  const fb = (index * HLL_BITS) & 7;
  const b0 = regs[byte]!;
  const b1 = regs[byte + 1] ?? 0;
  return ((b0 >> fb) | (b1 << (8 - fb))) & HLL_REGISTER_MAX;
}

function denseSetRegister(regs: Buffer, at: number, index: number, value: number): void {
  const byte = at + ((index * HLL_BITS) >> 3);
  const fb = (index * HLL_BITS) & 7;
  const fb8 = 8 - fb;
  regs[byte] = (regs[byte]! & ~(HLL_REGISTER_MAX << fb)) | ((value << fb) & 0xff);
  if (byte + 1 < regs.length) regs[byte + 1] = (regs[byte + 1]! & ~(HLL_REGISTER_MAX >> fb8)) | (value >> fb8);
}

/** Every register of a dense HLL in order, four from each three bytes (as hllDenseRegHisto). */
function forEachDense(hll: Buffer, visit: (index: number, value: number) => void): void {
  for (let i = 0, p = HLL_HDR_SIZE; i < HLL_REGISTERS; i += 4, p += 3) {
    const b0 = hll[p]!;
    const b1 = hll[p + 1]!;
    const b2 = hll[p + 2]!;
    visit(i, b0 & 63);
    visit(i + 1, ((b0 >> 6) | (b1 << 2)) & 63);
    visit(i + 2, ((b1 >> 4) | (b2 << 4)) & 63);
    visit(i + 3, b2 >> 2);
  }
}

// --- sparse opcodes ----------------------------------------------------------------------------

const isZero = (b: number): boolean => (b & 0xc0) === 0;
const isXzero = (b: number): boolean => (b & 0xc0) === 0x40;
const zeroLen = (b: number): number => (b & 0x3f) + 1;
const xzeroLen = (b0: number, b1: number): number => (((b0 & 0x3f) << 8) | b1) + 1;
const valValue = (b: number): number => ((b >> 2) & 0x1f) + 1;
const valLen = (b: number): number => (b & 0x3) + 1;
const valOp = (value: number, len: number): number => (((value - 1) << 2) | (len - 1)) | 0x80;
const xzeroOps = (len: number): number[] => [((len - 1) >> 8) | 0x40, (len - 1) & 0xff];

/** Walks the sparse opcodes: (first register, run length, value) per run; false when malformed. */
function forEachRun(hll: Buffer, visit: (first: number, len: number, value: number) => void): boolean {
  let idx = 0;
  let p = HLL_HDR_SIZE;
  while (p < hll.length) {
    const b = hll[p]!;
    if (isZero(b)) {
      visit(idx, zeroLen(b), 0);
      idx += zeroLen(b);
      p++;
    } else if (isXzero(b)) {
      const len = xzeroLen(b, hll[p + 1] ?? 0);
      visit(idx, len, 0);
      idx += len;
      p += 2;
    } else {
      const len = valLen(b);
      if (idx + len > HLL_REGISTERS) return false;
      visit(idx, len, valValue(b));
      idx += len;
      p++;
    }
  }
  return idx === HLL_REGISTERS;
}

/** A new, empty HLL: sparse, every register zero (createHLLObject). */
export function emptyHll(): Buffer {
  const hll = Buffer.alloc(HLL_HDR_SIZE + 2 * Math.ceil(HLL_REGISTERS / SPARSE_XZERO_MAX_LEN));
  hll.write('HYLL', 0, 'latin1');
  hll[4] = HLL_SPARSE;
  let p = HLL_HDR_SIZE;
  for (let left = HLL_REGISTERS; left > 0; left -= SPARSE_XZERO_MAX_LEN) {
    const [a, b] = xzeroOps(Math.min(left, SPARSE_XZERO_MAX_LEN));
    hll[p++] = a!;
    hll[p++] = b!;
  }
  return hll;
}

/** hllSparseToDense: null when the sparse form is corrupt. The header (cache too) is kept. */
export function toDense(hll: Buffer): Buffer | null {
  if (hll[4] === HLL_DENSE) return hll;
  const dense = Buffer.alloc(HLL_DENSE_SIZE);
  hll.copy(dense, 0, 0, HLL_HDR_SIZE);
  dense[4] = HLL_DENSE;
  const ok = forEachRun(hll, (first, len, value) => {
    if (value !== 0) for (let i = 0; i < len; i++) denseSetRegister(dense, HLL_HDR_SIZE, first + i, value);
  });
  return ok ? dense : null;
}

/** Scratch for the opcodes replacing a split one (at most five bytes: XZERO VAL XZERO). */
const seq = new Uint8Array(5);

/**
 * The HLL one command changes (PFADD, PFMERGE), set register by register as Redis's
 * hllSparseSet / hllDenseSet do. The stored string is never changed in place (a reply may still
 * hold it): the first change copies it into a buffer of this writer's own, with spare room so
 * the sparse form grows in place, as Redis's sdsMakeRoomFor. Past the length the buffer keeps
 * the zero byte an sds string ends with, since Redis reads it for an XZERO cut short by the end.
 */
export class HllWriter {
  private buf: Buffer;
  private len: number;
  /** Whether `buf` is this writer's own (else it is the stored string, or was handed out). */
  private owned: boolean;
  /** Whether a register was set (or the form promoted) since the writer was made. */
  changed = false;

  constructor(stored: Buffer) {
    this.buf = stored;
    this.len = stored.length;
    this.owned = false;
  }

  /** createHLLObject: a new, empty (sparse) HLL. */
  static empty(): HllWriter {
    const writer = new HllWriter(emptyHll());
    writer.owned = true;
    return writer;
  }

  get encoding(): number {
    return this.buf[4]!;
  }

  /** hllSparseSet / hllDenseSet: 1 when register `index` grew to `count`, 0 when it was already as large, -1 when the sparse form is corrupt. */
  set(index: number, count: number, maxSparseBytes: number): 1 | 0 | -1 {
    if (this.buf[4] !== HLL_DENSE) return this.sparseSet(index, count, maxSparseBytes);
    if (count <= denseGet(this.buf, HLL_HDR_SIZE, index)) return 0;
    this.own(0);
    denseSetRegister(this.buf, HLL_HDR_SIZE, index, count);
    this.changed = true;
    return 1;
  }

  /** hllSparseToDense in place; false when the sparse form is corrupt. */
  toDense(): boolean {
    if (this.buf[4] === HLL_DENSE) return true;
    const dense = toDense(this.buf.subarray(0, this.len));
    if (dense === null) return false;
    this.buf = dense;
    this.len = dense.length;
    this.owned = true;
    return true;
  }

  invalidateCache(): void {
    if (this.buf[15]! & 0x80) return;
    this.own(0);
    invalidateCache(this.buf);
  }

  /** The bytes to store: the stored string itself when unchanged, else exactly `len` bytes, no longer this writer's. */
  value(): Buffer {
    if (!this.owned) return this.buf;
    this.owned = false;
    if (this.buf.length !== this.len) this.buf = Buffer.from(this.buf.subarray(0, this.len));
    return this.buf;
  }

  /** Makes `buf` this writer's own with room for `extra` more bytes and the ending zero byte. */
  private own(extra: number): void {
    // A dense HLL never grows: its copy is exact (denseSetRegister stops at the buffer's end).
    const dense = this.buf[4] === HLL_DENSE;
    const need = dense ? this.len : this.len + extra + 1;
    if (this.owned && this.buf.length >= need) return;
    const capacity = dense ? need : Math.max(need, 2 * this.len);
    const grown = Buffer.alloc(capacity);
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
    this.owned = true;
  }

  private sparseSet(index: number, count: number, maxSparseBytes: number): 1 | 0 | -1 {
    if (count > SPARSE_VAL_MAX_VALUE) return this.promote(index, count);
    // Step 1: the opcode covering the register, the one before it, the first register it covers.
    let buf = this.buf;
    let end = this.len;
    let first = 0;
    let span = 0;
    let p = HLL_HDR_SIZE;
    let prev = -1;
    while (p < end) {
      const b = buf[p]!;
      let oplen = 1;
      if ((b & 0xc0) === 0) span = (b & 0x3f) + 1;
      else if (b & 0x80) span = (b & 0x3) + 1;
      else {
        span = xzeroLen(b, buf[p + 1] ?? 0);
        oplen = 2;
      }
      if (index <= first + span - 1) break;
      prev = p;
      p += oplen;
      first += span;
    }
    if (span === 0 || p >= end) return -1;
    const b = buf[p]!;
    const isX = isXzero(b);
    const isZ = isZero(b);
    const runlen = isZ ? zeroLen(b) : isX ? xzeroLen(b, buf[p + 1] ?? 0) : valLen(b);
    // Step 2: a VAL as large already; a run of one register rewritten where it stands.
    let inPlace = false;
    if (!isZ && !isX) {
      if (valValue(b) >= count) return 0;
      inPlace = runlen === 1;
    } else if (isZ && runlen === 1) inPlace = true;
    if (inPlace) {
      this.own(0);
      buf = this.buf;
      buf[p] = valOp(count, 1);
    } else {
      // The general case: the run split into at most five bytes around the register.
      let n = 0;
      const last = first + span - 1;
      if (isZ || isX) {
        if (index !== first) n = putZeros(n, index - first);
        seq[n++] = valOp(count, 1);
        if (index !== last) n = putZeros(n, last - index);
      } else {
        const cur = valValue(b);
        if (index !== first) seq[n++] = valOp(cur, index - first);
        seq[n++] = valOp(count, 1);
        if (index !== last) seq[n++] = valOp(cur, last - index);
      }
      // Step 3: the new sequence replaces the old opcode, what follows moved along.
      const oldLen = isX ? 2 : 1;
      const delta = n - oldLen;
      if (delta > 0 && end + delta > maxSparseBytes) return this.promote(index, count);
      this.own(3);
      buf = this.buf;
      const next = p + oldLen;
      if (delta !== 0 && next < end) buf.copyWithin(next + delta, next, end);
      end += delta;
      buf[end] = 0;
      for (let i = 0; i < n; i++) buf[p + i] = seq[i]!;
    }
    // Step 4: merge neighbouring VAL opcodes of one value, up to five opcodes from the previous one.
    let q = prev >= 0 ? prev : HLL_HDR_SIZE;
    let scan = 5;
    while (q < end && scan-- > 0) {
      const op = buf[q]!;
      if (isXzero(op)) {
        q += 2;
        continue;
      }
      if (isZero(op)) {
        q++;
        continue;
      }
      if (q + 1 < end) {
        const nextOp = buf[q + 1]!;
        if (nextOp & 0x80 && valValue(op) === valValue(nextOp)) {
          const len = valLen(op) + valLen(nextOp);
          if (len <= SPARSE_VAL_MAX_LEN) {
            buf[q + 1] = valOp(valValue(op), len);
            buf.copyWithin(q, q + 1, end);
            end--;
            buf[end] = 0;
            continue;
          }
        }
      }
      q++;
    }
    this.len = end;
    invalidateCache(buf);
    this.changed = true;
    return 1;
  }

  /** A register too large for the sparse form, or a sparse form grown too long: dense from now on. */
  private promote(index: number, count: number): 1 | -1 {
    if (!this.toDense()) return -1;
    denseSetRegister(this.buf, HLL_HDR_SIZE, index, count);
    this.changed = true;
    return 1;
  }
}

/** A run of `len` zero registers into `seq` at `n`: ZERO up to 64, XZERO past. */
function putZeros(n: number, len: number): number {
  if (len > SPARSE_ZERO_MAX_LEN) {
    seq[n++] = ((len - 1) >> 8) | 0x40;
    seq[n++] = (len - 1) & 0xff;
  } else seq[n++] = len - 1;
  return n;
}

export function invalidateCache(hll: Buffer): void {
  hll[15] = hll[15]! | 0x80;
}

export function cachedCardinality(hll: Buffer): bigint | null {
  return (hll[15]! & 0x80) === 0 ? hll.readBigUInt64LE(8) : null;
}

export function withCachedCardinality(hll: Buffer, card: bigint): Buffer {
  const copy = Buffer.from(hll);
  copy.writeBigUInt64LE(card, 8);
  return copy;
}

/** isHLLObjectOrReply's checks on a string: the magic, a known encoding, the dense size. */
export function isHll(value: Buffer): boolean {
  if (value.length < HLL_HDR_SIZE || value.toString('latin1', 0, 4) !== 'HYLL') return false;
  if (value[4]! > HLL_SPARSE) return false;
  return value[4] !== HLL_DENSE || value.length === HLL_DENSE_SIZE;
}

/** hllMerge: raises `max` (one byte per register) to `hll`'s registers; false when corrupt. */
export function mergeInto(max: Uint8Array, hll: Buffer): boolean {
  if (hll[4] === HLL_DENSE) {
    forEachDense(hll, (i, v) => {
      if (v > max[i]!) max[i] = v;
    });
    return true;
  }
  return forEachRun(hll, (first, len, value) => {
    if (value === 0) return;
    for (let i = first; i < first + len; i++) if (value > max[i]!) max[i] = value;
  });
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let zPrime;
  let y = 1;
  let z = x;
  do {
    x *= x;
    zPrime = z;
    z += x * y;
    y += y;
  } while (zPrime !== z);
  return z;
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let zPrime;
  let y = 1.0;
  let z = 1 - x;
  do {
    x = Math.sqrt(x);
    zPrime = z;
    y *= 0.5;
    z -= Math.pow(1 - x, 2) * y;
  } while (zPrime !== z);
  return z / 3;
}

/** hllCount from a histogram of register values. */
function estimate(histogram: number[]): bigint {
  const m = HLL_REGISTERS;
  let z = m * tau((m - histogram[HLL_Q + 1]!) / m);
  for (let j = HLL_Q; j >= 1; --j) {
    z += histogram[j]!;
    z *= 0.5;
  }
  z += m * sigma(histogram[0]! / m);
  return BigInt(Math.round((ALPHA_INF * m * m) / z));
}

/** The cardinality of a stored HLL; null when its sparse form is corrupt. */
export function count(hll: Buffer): bigint | null {
  const histogram = new Array<number>(64).fill(0);
  if (hll[4] === HLL_DENSE) {
    forEachDense(hll, (_, v) => histogram[v]!++);
  } else {
    let idx = 0;
    let p = HLL_HDR_SIZE;
    while (p < hll.length) {
      const b = hll[p]!;
      if (isZero(b)) {
        histogram[0] += zeroLen(b);
        idx += zeroLen(b);
        p++;
      } else if (isXzero(b)) {
        const len = xzeroLen(b, hll[p + 1] ?? 0);
        histogram[0] += len;
        idx += len;
        p += 2;
      } else {
        histogram[valValue(b)] += valLen(b);
        idx += valLen(b);
        p++;
      }
    }
    if (idx !== HLL_REGISTERS) return null;
  }
  return estimate(histogram);
}

/** The cardinality of raw registers (PFCOUNT of several keys). */
export function countRegisters(max: Uint8Array): bigint {
  const histogram = new Array<number>(64).fill(0);
  for (const v of max) histogram[v]!++;
  return estimate(histogram);
}

/** Every register's value (PFDEBUG GETREG of a dense HLL). */
export function denseRegisters(dense: Buffer): number[] {
  return Array.from({ length: HLL_REGISTERS }, (_, i) => denseGet(dense, HLL_HDR_SIZE, i));
}

/** PFDEBUG DECODE: the sparse opcodes as text ("z:3 Z:100 v:2,1"). */
export function decodeSparse(hll: Buffer): string {
  const parts: string[] = [];
  let p = HLL_HDR_SIZE;
  while (p < hll.length) {
    const b = hll[p]!;
    if (isZero(b)) {
      parts.push(`z:${zeroLen(b)}`);
      p++;
    } else if (isXzero(b)) {
      parts.push(`Z:${xzeroLen(b, hll[p + 1] ?? 0)}`);
      p += 2;
    } else {
      parts.push(`v:${valValue(b)},${valLen(b)}`);
      p++;
    }
  }
  return parts.join(' ');
}
