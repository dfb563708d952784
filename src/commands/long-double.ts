// INCRBYFLOAT/HINCRBYFLOAT arithmetic exactly as Redis does it on x86-64: the operands are
// parsed with strtold into an 80-bit long double (64-bit significand), added with one
// rounding, and printed with "%.17Lf" minus trailing zeros (util.c ld2string, LD_STR_HUMAN).
// JS doubles would print 0.1+0.2 as 0.30000000000000004 where Redis prints 0.3, so the
// long double is emulated with BigInt: value = (-1)^neg * m * 2^e, 2^63 <= m < 2^64.

export interface LongDouble {
  neg: boolean;
  /** Significand; 0n for zero. Ignored when `inf`. */
  m: bigint;
  e: number;
  inf: boolean;
}

const TWO63 = 1n << 63n;
const TWO64 = 1n << 64n;
/** Exponent range of the x87 extended format (normal numbers). */
const MAX_EXP = 16384;
const MIN_EXP = -16382;
/** Longer inputs are refused by Redis (MAX_LONG_DOUBLE_CHARS). */
const MAX_CHARS = 5 * 1024;

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/** Rounds the positive rational p/q to the nearest long double (ties to even). */
function fromRational(neg: boolean, p: bigint, q: bigint): LongDouble | undefined {
  if (p === 0n) return { neg, m: 0n, e: 0, inf: false };
  let e = bitLength(p) - bitLength(q) - 64;
  for (;;) {
    const num = e >= 0 ? p : p << BigInt(-e);
    const den = e >= 0 ? q << BigInt(e) : q;
    let m = num / den;
    if (m >= TWO64) {
      e++;
      continue;
    }
    if (m < TWO63) {
      e--;
      continue;
    }
    const twiceRem = 2n * (num - m * den);
    if (twiceRem > den || (twiceRem === den && (m & 1n) === 1n)) m++;
    if (m === TWO64) {
      m = TWO63;
      e++;
    }
    if (e + 64 > MAX_EXP) return { neg, m: 0n, e: 0, inf: true };
    if (e + 63 < MIN_EXP) return undefined; // underflow: strtold reports ERANGE
    return { neg, m, e, inf: false };
  }
}

/** Parses as Redis's string2ld: strtold syntax, no spaces, no NaN, no overflow. */
export function parseLongDouble(arg: Buffer | string): LongDouble | undefined {
  const s = typeof arg === 'string' ? arg : arg.toString('latin1');
  if (s.length === 0 || s.length >= MAX_CHARS) return undefined;
  const inf = /^([+-]?)inf(inity)?$/i.exec(s);
  if (inf !== null) return { neg: inf[1] === '-', m: 0n, e: 0, inf: true };
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?$/.exec(s);
  if (hex !== null) return parseHex(hex);
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(s);
  if (m === null) return undefined;
  const intPart = m[2] ?? '';
  const fracPart = m[3] ?? '';
  if (intPart.length + fracPart.length === 0) return undefined;
  const neg = m[1] === '-';
  const digits = BigInt(intPart + fracPart);
  if (digits === 0n) return { neg, m: 0n, e: 0, inf: false };
  const exp10 = (m[4] === undefined ? 0 : Number(m[4])) - fracPart.length;
  if (exp10 > 6000) return undefined; // overflow
  if (exp10 < -6000 - intPart.length - fracPart.length) return undefined; // underflow
  const ld =
    exp10 >= 0 ? fromRational(neg, digits * 10n ** BigInt(exp10), 1n) : fromRational(neg, digits, 10n ** BigInt(-exp10));
  if (ld === undefined || ld.inf) return undefined;
  return ld;
}

/** strtold's hexadecimal form, 0x1.8p3: hex digits scaled by a binary exponent. */
function parseHex(m: RegExpExecArray): LongDouble | undefined {
  const intPart = m[2] ?? '';
  const fracPart = m[3] ?? '';
  if (intPart.length + fracPart.length === 0) return undefined;
  const neg = m[1] === '-';
  const digits = BigInt(`0x${intPart}${fracPart}`);
  if (digits === 0n) return { neg, m: 0n, e: 0, inf: false };
  const exp2 = (m[4] === undefined ? 0 : Number(m[4])) - 4 * fracPart.length;
  if (Math.abs(exp2) > 20000 + 4 * (intPart.length + fracPart.length)) return undefined;
  const ld = exp2 >= 0 ? fromRational(neg, digits << BigInt(exp2), 1n) : fromRational(neg, digits, 1n << BigInt(-exp2));
  if (ld === undefined || ld.inf) return undefined;
  return ld;
}

/** a + b with one rounding; undefined for NaN (inf - inf). */
export function addLongDouble(a: LongDouble, b: LongDouble): LongDouble | undefined {
  if (a.inf || b.inf) {
    if (a.inf && b.inf && a.neg !== b.neg) return undefined;
    return { neg: a.inf ? a.neg : b.neg, m: 0n, e: 0, inf: true };
  }
  if (a.m === 0n) return b;
  if (b.m === 0n) return a;
  const emin = Math.min(a.e, b.e);
  const av = (a.neg ? -a.m : a.m) << BigInt(a.e - emin);
  const bv = (b.neg ? -b.m : b.m) << BigInt(b.e - emin);
  const sum = av + bv;
  if (sum === 0n) return { neg: false, m: 0n, e: 0, inf: false };
  const neg = sum < 0n;
  const abs = neg ? -sum : sum;
  return emin >= 0 ? fromRational(neg, abs << BigInt(emin), 1n) : fromRational(neg, abs, 1n << BigInt(-emin));
}

/** printf("%.17Lf") with trailing zeros (and a bare '.') removed, "-0" printed as "0". */
export function formatLongDouble(v: LongDouble): string {
  if (v.inf) return v.neg ? '-inf' : 'inf';
  const scale = 10n ** 17n;
  let n: bigint;
  if (v.e >= 0) {
    n = (v.m << BigInt(v.e)) * scale;
  } else {
    const num = v.m * scale;
    const den = 1n << BigInt(-v.e);
    n = num / den;
    const twiceRem = 2n * (num - n * den);
    if (twiceRem > den || (twiceRem === den && (n & 1n) === 1n)) n++;
  }
  if (n === 0n) return '0';
  const digits = n.toString().padStart(18, '0');
  const intPart = digits.slice(0, -17);
  const frac = digits.slice(-17).replace(/0+$/, '');
  return `${v.neg ? '-' : ''}${intPart}${frac.length > 0 ? `.${frac}` : ''}`;
}
