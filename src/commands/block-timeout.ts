// The timeout of BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP (and the other seconds-based blocking
// commands), parsed as Redis 7.0's getTimeoutFromObjectOrReply with UNIT_SECONDS: a long double
// (strtold syntax, hex included), then (long long) ceill(seconds * 1000.0) milliseconds.
// The product is rounded to the long double's 64-bit significand before the ceiling, as the x87
// multiplication does; a value past the long long range converts to LLONG_MIN on x86-64, so
// inf and huge timeouts are "negative", while -0.0001 rounds up to 0 (block forever).
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { parseLongDouble } from './long-double.js';

const INT64_MAX = 9223372036854775807n;

/** Milliseconds to block (0 = forever); Redis's errors for a bad or negative timeout. */
export function secondsTimeoutMs(arg: Buffer): number {
  const v = parseLongDouble(arg);
  if (v === undefined) fail(Errors.timeoutNotFloat);
  if (v.inf) fail(Errors.timeoutNegative);
  if (v.m === 0n) return 0;
  let m = v.m * 1000n;
  let e = v.e;
  // Round m to 64 significant bits, ties to even, as the long double multiplication does.
  const excess = m.toString(2).length - 64;
  if (excess > 0) {
    const unit = 1n << BigInt(excess);
    const rem = m & (unit - 1n);
    m >>= BigInt(excess);
    e += excess;
    if (rem * 2n > unit || (rem * 2n === unit && (m & 1n) === 1n)) m++;
  }
  // ceill: up for positive values; for negative ones towards zero.
  let ms: bigint;
  if (e >= 0) ms = m << BigInt(e);
  else if (v.neg) ms = m >> BigInt(-e);
  else ms = (m + (1n << BigInt(-e)) - 1n) >> BigInt(-e);
  if (v.neg ? ms > 0n : ms > INT64_MAX) fail(Errors.timeoutNegative);
  return Number(ms);
}
