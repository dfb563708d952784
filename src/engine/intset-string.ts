// Redis's intset (intset.c) as one immutable JS string: a set of integers kept sorted ascending,
// each member a fixed width of 1, 2 or 4 UTF-16 code units (16, 32 or 64 bits, Redis's int16 /
// int32 / int64 encodings), the width chosen by the widest member ever added (it widens, never
// narrows, as Redis's intsetUpgradeAndAdd). The first code unit holds the width.
//
// Why a string: V8 keeps a string's code units packed (2 bytes each), so 128 small integers cost
// ~270 bytes, where a Map of member strings costs ~60 bytes a member. Members are biased (sign
// bit flipped) and stored big-endian, so comparing code units compares values: has/add/delete
// are binary searches. Every change builds a new string (O(n), as intset.c's memmove is), which
// also makes an iterator over a snapshot safe whatever happens to the set after.
//
// Values are numbers while they are safe integers and bigints beyond ±2^53, so every canonical
// int64 decimal round-trips exactly.

/** An intset: its width in the first code unit, then its members, each `width` code units. */
export type IntsetString = string & { readonly intsetBrand: unique symbol };

/** A member's value: a number when a safe integer, a bigint beyond. */
export type IntsetInt = number | bigint;

export type IntsetWidth = 1 | 2 | 4;

const INT16_MIN = -0x8000;
const INT16_MAX = 0x7fff;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_32 = 2 ** 32;
/** A safe integer's high 32 bits (signed) lie in [-2^21, 2^21). */
const SAFE_HIGH = 2 ** 21;

export const EMPTY_INTSET = String.fromCharCode(1) as IntsetString;

/**
 * The value of a member Redis's intset can hold (string2ll: a strict signed 64-bit decimal,
 * no sign on 0, no leading zeros, no spaces), else undefined.
 */
export function parseIntsetMember(member: string): IntsetInt | undefined {
  const n = member.length;
  if (n === 0 || n > 20) return undefined;
  let i = member.charCodeAt(0) === 0x2d ? 1 : 0;
  if (i === n) return undefined;
  const first = member.charCodeAt(i);
  if (first === 0x30) return n === 1 ? 0 : undefined;
  for (; i < n; i++) {
    const c = member.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  // Up to 15 digits is below 2^53: Number is exact. Longer ones go through bigint.
  if (n - (member.charCodeAt(0) === 0x2d ? 1 : 0) <= 15) return Number(member);
  const big = BigInt(member);
  if (big < INT64_MIN || big > INT64_MAX) return undefined;
  const asNumber = Number(big);
  return Number.isSafeInteger(asNumber) ? asNumber : big;
}

/** The narrowest width holding `value` (_intsetValueEncoding). */
export function widthFor(value: IntsetInt): IntsetWidth {
  if (typeof value === 'bigint') return 4;
  if (value >= INT16_MIN && value <= INT16_MAX) return 1;
  if (value >= INT32_MIN && value <= INT32_MAX) return 2;
  return 4;
}

/** `value` as `width` code units, biased so unsigned code-unit order is signed value order. */
function encode(value: IntsetInt, width: IntsetWidth): string {
  if (width === 1) return String.fromCharCode((value as number) - INT16_MIN);
  if (width === 2) {
    const u = (value as number) - INT32_MIN;
    return String.fromCharCode(u >>> 16, u & 0xffff);
  }
  if (typeof value === 'number') {
    const high = Math.floor(value / TWO_32);
    const low = value - high * TWO_32;
    const biasedHigh = high - INT32_MIN;
    return String.fromCharCode(biasedHigh >>> 16, biasedHigh & 0xffff, low >>> 16, low & 0xffff);
  }
  const u = BigInt.asUintN(64, value) ^ (1n << 63n);
  return String.fromCharCode(Number(u >> 48n), Number((u >> 32n) & 0xffffn), Number((u >> 16n) & 0xffffn), Number(u & 0xffffn));
}

/** The value of the member stored at code unit `at` (past the header). */
function decodeAt(data: string, at: number, width: IntsetWidth): IntsetInt {
  if (width === 1) return data.charCodeAt(at) + INT16_MIN;
  const high = data.charCodeAt(at) * 0x10000 + data.charCodeAt(at + 1) + INT32_MIN;
  if (width === 2) return high;
  const low = data.charCodeAt(at + 2) * 0x10000 + data.charCodeAt(at + 3);
  if (high >= -SAFE_HIGH && high < SAFE_HIGH) return high * TWO_32 + low;
  return (BigInt(high) << 32n) | BigInt(low);
}

/** charCodeAt flattens a concatenation (a rope of pieces) into one sequential string. */
function flatten(s: string): IntsetString {
  s.charCodeAt(0);
  return s as IntsetString;
}

export function intsetWidth(set: IntsetString): IntsetWidth {
  return set.charCodeAt(0) as IntsetWidth;
}

export function intsetSize(set: IntsetString): number {
  return (set.length - 1) / intsetWidth(set);
}

/**
 * Binary search for the encoded `key` (as wide as the set's members): its index when present,
 * else -(insertion index) - 1.
 */
function search(set: IntsetString, key: string, width: IntsetWidth): number {
  let low = 0;
  let high = (set.length - 1) / width - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = 1 + mid * width;
    let order = 0;
    for (let k = 0; k < width && order === 0; k++) order = set.charCodeAt(at + k) - key.charCodeAt(k);
    if (order < 0) low = mid + 1;
    else if (order > 0) high = mid - 1;
    else return mid;
  }
  return -low - 1;
}

export function intsetHas(set: IntsetString, value: IntsetInt): boolean {
  const width = intsetWidth(set);
  if (widthFor(value) > width) return false;
  return search(set, encode(value, width), width) >= 0;
}

/** The set with `value` added (the same string when it was there), widened when it needs to be. */
export function intsetAdd(set: IntsetString, value: IntsetInt): IntsetString {
  const width = intsetWidth(set);
  const needed = widthFor(value);
  if (needed > width) {
    // Wider than every member: it goes first (negative) or last (positive), as intsetUpgradeAndAdd.
    const widened = widen(set, needed);
    const key = encode(value, needed);
    const negative = typeof value === 'bigint' ? value < 0n : value < 0;
    return flatten(negative ? widened[0] + key + widened.slice(1) : widened + key);
  }
  const key = encode(value, width);
  const found = search(set, key, width);
  if (found >= 0) return set;
  const at = 1 + (-found - 1) * width;
  return flatten(set.slice(0, at) + key + set.slice(at));
}

/** The set with `value` removed (the same string when it was not there). */
export function intsetDelete(set: IntsetString, value: IntsetInt): IntsetString {
  const width = intsetWidth(set);
  if (widthFor(value) > width) return set;
  const found = search(set, encode(value, width), width);
  if (found < 0) return set;
  const at = 1 + found * width;
  return flatten(set.slice(0, at) + set.slice(at + width));
}

/** Every member re-encoded `width` code units wide. */
function widen(set: IntsetString, width: IntsetWidth): IntsetString {
  const from = intsetWidth(set);
  const parts = [String.fromCharCode(width)];
  for (let at = 1; at < set.length; at += from) parts.push(encode(decodeAt(set, at, from), width));
  return flatten(parts.join(''));
}

/** The value of the member at `index` in ascending order (0 <= index < size). */
export function intsetValueAt(set: IntsetString, index: number): IntsetInt {
  const width = intsetWidth(set);
  return decodeAt(set, 1 + index * width, width);
}

/** The member at `index` in ascending order, as its canonical decimal string. */
export function intsetAt(set: IntsetString, index: number): string {
  return String(intsetValueAt(set, index));
}

/** The members in ascending order, as decimal strings (of this snapshot: later changes make new strings). */
export function* intsetValues(set: IntsetString): IterableIterator<string> {
  const width = intsetWidth(set);
  for (let at = 1; at < set.length; at += width) yield String(decodeAt(set, at, width));
}

/** An intset of `values` (any order, duplicates allowed), built in one pass. */
export function intsetOf(values: Iterable<IntsetInt>): IntsetString {
  const all = [...values];
  all.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let width: IntsetWidth = 1;
  for (const v of all) if (widthFor(v) > width) width = widthFor(v);
  const parts = [String.fromCharCode(width)];
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] != all[i - 1]) parts.push(encode(all[i]!, width));
  return flatten(parts.join(''));
}
