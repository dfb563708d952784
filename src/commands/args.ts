// Argument parsing exactly as Redis does it (util.c string2ll / getLongLongFromObject).
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * Parses a signed 64-bit integer in Redis's strict form: optional '-', no '+', no spaces,
 * no leading zeros. Returns undefined when the text is not such an integer.
 */
export function parseInt64(arg: Buffer | string): bigint | undefined {
  const s = typeof arg === 'string' ? arg : arg.toString('latin1');
  if (s.length === 0 || s.length > 20) return undefined;
  if (s === '0') return 0n;
  let i = 0;
  if (s.charCodeAt(0) === 45 /* - */) i = 1;
  if (i >= s.length) return undefined;
  const first = s.charCodeAt(i);
  if (first < 49 || first > 57) return undefined; // 1-9
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) return undefined;
  }
  const v = BigInt(s);
  if (v > INT64_MAX || v < INT64_MIN) return undefined;
  return v;
}

/** Parses an integer that must fit a JS number safely; errors as Redis's "not an integer". */
export function integerArg(arg: Buffer | string, message: string = Errors.notInteger): number {
  const v = parseInt64(arg);
  if (v === undefined || v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    fail(message);
  }
  return Number(v);
}

/** A count or length above 2^53 - 1 means "no limit" to the caller: cap it to a safe integer. */
export function capToSafe(n: bigint): number {
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** Like integerArg but keeps the full 64-bit range. */
export function int64Arg(arg: Buffer | string, message: string = Errors.notInteger): bigint {
  const v = parseInt64(arg);
  if (v === undefined) fail(message);
  return v;
}

/** Parses a double as Redis's strtod-based parser accepts it (no spaces, no hex, inf allowed). */
export function parseDouble(arg: Buffer | string): number | undefined {
  const s = typeof arg === 'string' ? arg : arg.toString('latin1');
  if (s.length === 0 || /\s/.test(s)) return undefined;
  const lower = s.toLowerCase();
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return undefined;
  const v = Number(s);
  return Number.isNaN(v) ? undefined : v;
}

/** Lower-cased ASCII text of an argument, for keyword matching. */
export function lower(arg: Buffer | string): string {
  if (typeof arg === 'string') return arg.toLowerCase();
  if (arg.length === 1 && arg[0]! < 128) {
    // XADD's "*", a trim's "~": V8 keeps one-char strings cached, so no native call and no
    // string. (Latin-1 letters above 127 are left to toLowerCase, which folds them too.)
    const c = arg[0]!;
    return String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
  }
  return arg.toString('latin1').toLowerCase();
}

export function text(arg: Buffer): string {
  return arg.toString('utf8');
}

export function isKeyword(arg: Buffer | undefined, keyword: string): boolean {
  if (arg === undefined || arg.length !== keyword.length) return false;
  return arg.toString('latin1').toLowerCase() === keyword;
}

/**
 * Parses a BLOCK/timeout argument in milliseconds, as Redis's getTimeoutFromObjectOrReply
 * with UNIT_MILLISECONDS: an integer, negative rejected.
 */
export function blockTimeoutMs(arg: Buffer): number {
  const v = parseInt64(arg);
  if (v === undefined) fail(Errors.timeoutNotInteger);
  if (v < 0n) fail(Errors.timeoutNegative);
  return capToSafe(v);
}
