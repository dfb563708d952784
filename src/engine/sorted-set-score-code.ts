// A sorted-set score as a few bytes (latin1 chars) that sort bytewise as the scores sort
// numerically, and that no other score's code starts with: code(score) + member then sorts
// bytewise exactly as (score, member) does, which lets a packed sorted set keep one element per
// entry and find positions by comparing bytes, with no score decoded.
//
// The double's 64 bits are made order-preserving (the sign bit set on positives, all bits
// flipped on negatives), then cut into 7-bit groups, most significant first, trailing zero
// groups dropped. Each group is a byte `group << 1 | more`, `more` set on all but the last: at the
// first differing byte the groups decide, or, on equal groups, the code that stops there (its
// dropped groups being zeros) is the smaller. Scores with few significant bits are short: 0, 1,
// 1.5, inf take 1-2 bytes, integers below 2^16 at most 4, a millisecond timestamp 8, 0.1 10.
// -0 gets 0's code, as a listpack stores -0 as the integer 0; NaN never reaches a sorted set.

const GROUPS = 10;

const float = new Float64Array(1);
/** The double's words; which index holds the high one depends on the platform's byte order. */
const words = new Uint32Array(float.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LOW = 1 - HIGH;

/** The 7 bits of group `g` (0 = most significant) of the 64-bit value `high:low`. */
function groupOf(high: number, low: number, g: number): number {
  const shift = 57 - 7 * g; // the group's lowest bit; the last group's reaches below bit 0
  if (shift >= 32) return (high >>> (shift - 32)) & 0x7f;
  if (shift >= 26) return ((high << (32 - shift)) | (low >>> shift)) & 0x7f;
  if (shift >= 0) return (low >>> shift) & 0x7f;
  return (low << -shift) & 0x7f;
}

export function encodeScore(score: number): string {
  float[0] = score === 0 ? 0 : score;
  let high = words[HIGH]!;
  let low = words[LOW]!;
  if (high >>> 31 === 1) {
    high = ~high >>> 0;
    low = ~low >>> 0;
  } else {
    high = (high | 0x80000000) >>> 0;
  }
  let groups = GROUPS;
  while (groups > 1 && groupOf(high, low, groups - 1) === 0) groups--;
  let code = '';
  for (let g = 0; g < groups; g++) code += String.fromCharCode((groupOf(high, low, g) << 1) | (g < groups - 1 ? 1 : 0));
  return code;
}

/** The length of the score code at `start` in `data` (its last byte has the low bit clear). */
export function scoreCodeLength(data: string, start: number): number {
  let end = start;
  while ((data.charCodeAt(end++) & 1) === 1);
  return end - start;
}

/** The score whose code starts at `start` in `data`. */
export function decodeScore(data: string, start: number): number {
  let high = 0;
  let low = 0;
  for (let g = 0; ; g++) {
    const byte = data.charCodeAt(start + g);
    const group = byte >>> 1;
    const shift = 57 - 7 * g;
    if (shift >= 32) high |= group << (shift - 32);
    else if (shift >= 26) {
      high |= group >>> (32 - shift);
      low |= group << shift;
    } else if (shift >= 0) low |= group << shift;
    else low |= group >>> -shift;
    if ((byte & 1) === 0) break;
  }
  high >>>= 0;
  low >>>= 0;
  if (high >>> 31 === 1) {
    high = (high & 0x7fffffff) >>> 0;
  } else {
    high = ~high >>> 0;
    low = ~low >>> 0;
  }
  words[HIGH] = high;
  words[LOW] = low;
  return float[0]!;
}
