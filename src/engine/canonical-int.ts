// Redis's test for a string it stores as an integer (string2ll, then printing back the same
// text): no sign but "-", no leading zeros, no "-0", within int64. The RDB and listpack
// encoders use it to pick the integer encoding, INCR/DECR to add without BigInt.
import type { Buffer } from 'node:buffer';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The value of a string (b, or b[start, end)) that is a canonical int64 (Redis's string2ll accepts it and it prints
 * back the same: no sign but "-", no leading zeros, no "-0"), else null. Numbers of up to 15
 * digits are parsed without BigInt arithmetic on the way.
 */
export function canonicalInt64(b: Buffer, start = 0, end = b.length): bigint | null {
  const n = canonicalIntNumber(b, start, end);
  if (n !== null) return BigInt(n);
  const len = end - start;
  if (len < 16 || len > 20) return null;
  // Only "-" or 1-9 can start one: other 16-20 byte texts (job ids in stream entries) get no string.
  const first = b[start]!;
  if (first !== 45 && (first < 49 || first > 57)) return null;
  const s = b.toString('latin1', start, end);
  if (!/^-?[1-9][0-9]*$/.test(s)) return null;
  const v = BigInt(s);
  return v >= INT64_MIN && v <= INT64_MAX ? v : null;
}

/** canonicalInt64 for strings of at most 15 digits, as a number; null otherwise. */
export function canonicalIntNumber(b: Buffer, start = 0, end = b.length): number | null {
  const len = end - start;
  if (len === 0 || len > 16) return null;
  let i = start;
  const negative = b[start] === 45;
  if (negative) {
    if (len === 1) return null;
    i++;
  }
  const digits = end - i;
  if (digits > 15) return null;
  const first = b[i]!;
  if (first === 48) return digits === 1 && !negative ? 0 : null;
  if (first < 49 || first > 57) return null;
  let n = 0;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c < 48 || c > 57) return null;
    n = n * 10 + (c - 48);
  }
  return negative ? -n : n;
}
