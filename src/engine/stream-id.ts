// Stream entry ids (<ms>-<seq>, both unsigned 64-bit) and their parsing exactly as Redis 7's
// t_stream.c: streamParseID, streamGenericParseIDOrReply, streamParseIntervalIDOrReply,
// streamIncrID/streamDecrID and the "*" / "ms-*" generation of streamAppendItem. This module
// knows nothing of replies: the commands layer (commands/stream/ids.ts) turns failures into
// Redis's error texts.

/**
 * An unsigned 64-bit integer, canonical: a `number` iff it is at most Number.MAX_SAFE_INTEGER,
 * else a `bigint`. Real ids (a ms clock, small sequences) are numbers, so the request path does
 * no BigInt work; the canonical form keeps `===` exact (one value, one type), and `<` / `>`
 * between a number and a bigint compare exactly in JS. Build values with u64() and the
 * helpers below wherever arithmetic may cross 2^53.
 */
export type U64 = number | bigint;

export interface StreamId {
  readonly ms: U64;
  readonly seq: U64;
}

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);
export const UINT64_MAX = 0xffffffffffffffffn;
export const MIN_ID: StreamId = Object.freeze({ ms: 0, seq: 0 });
export const MAX_ID: StreamId = Object.freeze({ ms: UINT64_MAX, seq: UINT64_MAX });

/** The canonical U64 of a value in [0, 2^64) (a number argument must be a safe integer). */
export function u64(x: bigint | number): U64 {
  if (typeof x === 'number') return x;
  return x <= MAX_SAFE_BIG ? Number(x) : x;
}

/**
 * a < b. Canonical form makes every number below every bigint, so a mixed pair is decided by
 * type alone: JS's own number-bigint `<` is exact but a runtime call (~20 ns, slower than
 * bigint-bigint), and ranges to "+" (MAX_ID, bigints) compare against it per entry.
 */
export function u64Lt(a: U64, b: U64): boolean {
  if (typeof a === 'number') return typeof b === 'number' ? a < b : true;
  return typeof b === 'number' ? false : a < b;
}

/** x as a bigint, for arithmetic that may leave the safe range. */
export function u64ToBigInt(x: U64): bigint {
  return typeof x === 'bigint' ? x : BigInt(x);
}

/** x + 1 (the caller ensures x < UINT64_MAX). */
export function u64Add1(x: U64): U64 {
  if (typeof x === 'number') return x < MAX_SAFE ? x + 1 : BigInt(x) + 1n;
  return x + 1n; // above 2^53 already, so still a bigint
}

/** x - 1 (the caller ensures x > 0). */
export function u64Sub1(x: U64): U64 {
  if (typeof x === 'number') return x - 1;
  return u64(x - 1n);
}

/** a + b (the caller ensures the sum is below 2^64). */
export function u64Add(a: U64, b: U64): U64 {
  if (typeof a === 'number' && typeof b === 'number') {
    // Rounding is monotonic and 2^53 is exact, so an inexact sum is never <= MAX_SAFE.
    const sum = a + b;
    if (sum <= MAX_SAFE) return sum;
  }
  return u64(u64ToBigInt(a) + u64ToBigInt(b));
}

/** a - b for a >= b. */
export function u64Sub(a: U64, b: U64): U64 {
  if (typeof a === 'number' && typeof b === 'number') return a - b; // exact: both are safe
  return u64(u64ToBigInt(a) - u64ToBigInt(b));
}

/** -1, 0 or 1 as streamCompareID. */
export function compareIds(a: StreamId, b: StreamId): number {
  if (a.ms !== b.ms) return u64Lt(a.ms, b.ms) ? -1 : 1;
  if (a.seq !== b.seq) return u64Lt(a.seq, b.seq) ? -1 : 1;
  return 0;
}

export function idsEqual(a: StreamId, b: StreamId): boolean {
  return a.ms === b.ms && a.seq === b.seq;
}

export function isZeroId(id: StreamId): boolean {
  return id.ms === 0 && id.seq === 0;
}

export function formatId(id: StreamId): string {
  return `${id.ms}-${id.seq}`;
}


/** The next id, or undefined after MAX_ID (streamIncrID's C_ERR). */
export function incrementId(id: StreamId): StreamId | undefined {
  if (id.seq === UINT64_MAX) {
    if (id.ms === UINT64_MAX) return undefined;
    return { ms: u64Add1(id.ms), seq: 0 };
  }
  return { ms: id.ms, seq: u64Add1(id.seq) };
}

/** The previous id, or undefined before MIN_ID (streamDecrID's C_ERR). */
export function decrementId(id: StreamId): StreamId | undefined {
  if (id.seq === 0) {
    if (id.ms === 0) return undefined;
    return { ms: u64Sub1(id.ms), seq: UINT64_MAX };
  }
  return { ms: id.ms, seq: u64Sub1(id.seq) };
}

const INT64_MAX = 0x7fffffffffffffffn;

/** Digits per id part the fast path takes: 10^15 is below 2^53, so a Number holds it exactly. */
const FAST_DIGITS = 15;

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * Redis's string2ull: a strict int64 (string2ll, negatives rejected), else whatever strtoull
 * base 10 accepts over the whole string (leading spaces, a sign, leading zeros; "-n" wraps
 * modulo 2^64 as in C). Returns undefined on failure or overflow.
 */
export function string2ull(s: string): U64 | undefined {
  // Up to 15 digits (leading zeros too) both string2ll and strtoull read as their plain value.
  if (s.length <= FAST_DIGITS && /^[0-9]+$/.test(s)) return Number(s);
  if (/^(0|-?[1-9][0-9]*)$/.test(s) && s.length <= 20) {
    const v = BigInt(s);
    if (v <= INT64_MAX && v >= -INT64_MAX - 1n) return v < 0n ? undefined : u64(v);
  }
  let i = 0;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') {
    negative = s[i] === '-';
    i++;
  }
  const digits = s.slice(i);
  if (!/^[0-9]+$/.test(digits)) return undefined;
  const v = BigInt(digits);
  if (v > UINT64_MAX) return undefined; // ERANGE
  return u64(negative ? (UINT64_MAX + 1n - v) & UINT64_MAX : v);
}

export interface ParsedId {
  id: StreamId;
  /** False only for "ms-*" (when allowed): the sequence is to be generated. */
  seqGiven: boolean;
}

export interface ParseIdOptions {
  /** Sequence used when only "ms" is given: 0 for starts, UINT64_MAX for range ends. */
  missingSeq?: U64;
  /** Strict ids refuse "-" and "+" (streamParseStrictIDOrReply). */
  strict?: boolean;
  /** Accept "ms-*" (XADD). */
  allowSeqStar?: boolean;
}

export function asText(arg: Buffer | string): string {
  return typeof arg === 'string' ? arg : arg.toString('latin1');
}

/**
 * The common "ms-seq" or "ms" of plain ASCII digits straight from the bytes (XACK, XCLAIM,
 * XRANGE ids), without the text decoding and regular expressions of the general path; leading
 * zeros are fine ("007" is 7 to string2ull too). Undefined for anything else, which the general
 * path then parses.
 */
function tryParseDigitsId(buf: Buffer, missingSeq: U64): ParsedId | undefined {
  return tryParseDigitsIdAt(buf, 0, buf.length, missingSeq);
}

/**
 * tryParseDigitsId of buf[start, end), for a caller reading ids in place (the AOF loader):
 * undefined for anything but plain digits, which tryParseStreamId then parses.
 */
export function tryParseDigitsIdAt(buf: Buffer, start: number, end: number, missingSeq: U64 = 0): ParsedId | undefined {
  let i = start;
  let ms = 0;
  for (; i < end; i++) {
    const c = buf[i]!;
    if (c === 45) break;
    if (c < 48 || c > 57) return undefined;
    ms = ms * 10 + (c - 48);
  }
  if (i === start || i - start > FAST_DIGITS) return undefined;
  if (i === end) return { id: { ms, seq: missingSeq }, seqGiven: true };
  const seqStart = ++i;
  let seq = 0;
  for (; i < end; i++) {
    const c = buf[i]!;
    if (c < 48 || c > 57) return undefined;
    seq = seq * 10 + (c - 48);
  }
  if (i === seqStart || i - seqStart > FAST_DIGITS) return undefined;
  return { id: { ms, seq }, seqGiven: true };
}

/** streamParseID: returns undefined when invalid. */
export function tryParseStreamId(arg: Buffer | string, opts: ParseIdOptions = {}): ParsedId | undefined {
  if (typeof arg !== 'string' && arg.length <= 2 * FAST_DIGITS + 1) {
    const fast = tryParseDigitsId(arg, opts.missingSeq ?? 0);
    if (fast !== undefined) return fast;
  }
  let s = asText(arg);
  if (s.length > 127) return undefined;
  // The C code copies into a NUL-terminated buffer, so an embedded NUL ends the id.
  const nul = s.indexOf('\0');
  if (nul >= 0) s = s.slice(0, nul);
  if (s.length === 1 && (s === '-' || s === '+')) {
    if (opts.strict) return undefined;
    return { id: s === '-' ? MIN_ID : MAX_ID, seqGiven: true };
  }
  const dot = s.indexOf('-');
  if (dot < 0) {
    const ms = string2ull(s);
    if (ms === undefined) return undefined;
    return { id: { ms, seq: opts.missingSeq ?? 0 }, seqGiven: true };
  }
  const ms = string2ull(s.slice(0, dot));
  if (ms === undefined) return undefined;
  const seqText = s.slice(dot + 1);
  if (opts.allowSeqStar && seqText === '*') return { id: { ms, seq: 0 }, seqGiven: false };
  const seq = string2ull(seqText);
  if (seq === undefined) return undefined;
  return { id: { ms, seq }, seqGiven: true };
}

/** Why no id could be generated: the last possible id was reached, the sequence of "ms-*"
 * overflowed, or the id is not above the stream's last id. */
export type NextIdFailure = 'exhausted' | 'seq-overflow' | 'not-greater';

/**
 * The id XADD uses (streamNextID / streamAppendItem): for "*" (requested undefined),
 * ms = max(now, last.ms) and seq 0 or last.seq+1; for "ms-*", the next seq of last when the
 * ms is the same; an explicit id as given. Fails when the id is not above `lastId`.
 */
export function nextId(lastId: StreamId, now: number | bigint, requested?: ParsedId): StreamId | NextIdFailure {
  let id: StreamId | undefined;
  if (requested === undefined) {
    // A clock reading is a safe integer: the common path does no BigInt work at all.
    const ms = u64(now);
    if (u64Lt(lastId.ms, ms)) id = { ms, seq: 0 };
    else id = incrementId(lastId);
    if (id === undefined) return 'exhausted';
  } else if (requested.seqGiven) {
    id = requested.id;
  } else if (lastId.ms === requested.id.ms) {
    if (lastId.seq === UINT64_MAX) return 'seq-overflow';
    id = { ms: lastId.ms, seq: u64Add1(lastId.seq) };
  } else {
    id = requested.id;
  }
  if (compareIds(id, lastId) <= 0) return 'not-greater';
  return id;
}
