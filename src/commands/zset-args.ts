// Sorted-set argument parsing as t_zset.c does it: scores through strtod (strictly for ZADD /
// ZINCRBY, leniently for score ranges, which zslParseRange reads without Redis's usual checks),
// score ranges "(1" / "-inf" and lex ranges "[a" / "(a" / "-" / "+".
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';

interface Strtod {
  value: number;
  /** Characters consumed; 0 when nothing could be converted (strtod's endptr == nptr). */
  end: number;
  /** strtod's ERANGE: the result overflowed to infinity or a nonzero number underflowed to 0. */
  range: boolean;
}

const SPACE = /[ \t\n\v\f\r]/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const EXPONENT_LESS = /^[+-]?(?:\d+\.?\d*|\.\d+)/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?/;
const SPECIAL = /^([+-]?)(?:(inf(?:inity)?)|(nan(?:\([0-9A-Za-z_]*\))?))/i;

/** C's strtod on a string: skips leading spaces, converts the longest valid prefix. */
function strtod(s: string): Strtod {
  let start = 0;
  while (start < s.length && SPACE.test(s[start]!)) start++;
  const rest = s.slice(start);
  const special = SPECIAL.exec(rest);
  if (special !== null) {
    const value = special[2] !== undefined ? (special[1] === '-' ? -Infinity : Infinity) : NaN;
    return { value, end: start + special[0].length, range: false };
  }
  const hex = HEX.exec(rest);
  if (hex !== null && (hex[2]! + (hex[3] ?? '')).length > 0) return hexStrtod(hex, start);
  // "0x" with no digits converts just the "0".
  const dec = DECIMAL.exec(rest) ?? EXPONENT_LESS.exec(rest);
  if (dec === null) return { value: 0, end: 0, range: false };
  const text = dec[0];
  const value = Number(text);
  const nonzeroDigits = /[1-9]/.test(text.replace(/[eE].*$/, ''));
  const range = !Number.isFinite(value) || (value === 0 && nonzeroDigits);
  return { value, end: start + text.length, range };
}

function hexStrtod(hex: RegExpExecArray, start: number): Strtod {
  const intDigits = hex[2]!;
  const fracDigits = hex[3] ?? '';
  const mantissa = BigInt(`0x${intDigits}${fracDigits}` === '0x' ? '0x0' : `0x${intDigits}${fracDigits}`);
  const exp = Number(hex[4] ?? '0') - 4 * fracDigits.length;
  let value = Number(mantissa) * 2 ** exp;
  if (hex[1] === '-') value = -value;
  const range = !Number.isFinite(value) || (value === 0 && mantissa !== 0n);
  return { value, end: start + hex[0].length, range };
}

/** getDoubleFromObject: the whole argument, no leading space, no NaN, no overflow/underflow. */
export function parseScore(arg: Buffer): number | undefined {
  const s = arg.toString('latin1');
  if (s.length === 0 || SPACE.test(s[0]!)) return undefined;
  const r = strtod(s);
  if (r.end !== s.length || Number.isNaN(r.value) || r.range) return undefined;
  return r.value;
}

export function scoreArg(arg: Buffer): number {
  const v = parseScore(arg);
  if (v === undefined) fail(Errors.notFloat);
  return v;
}

export interface ScoreRange {
  min: number;
  minExclusive: boolean;
  max: number;
  maxExclusive: boolean;
}

/** One end of zslParseRange: "(" for exclusive, then strtod up to the C string's end. */
function scoreBound(arg: Buffer): { value: number; exclusive: boolean } {
  // The argument is read as a C string: an embedded NUL ends it.
  let s = arg.toString('latin1');
  const nul = s.indexOf('\0');
  if (nul >= 0) s = s.slice(0, nul);
  const exclusive = s.startsWith('(');
  if (exclusive) s = s.slice(1);
  // With nothing converted strtod's end is the start, so only an empty text passes (as 0).
  const r = strtod(s);
  if (r.end !== s.length || Number.isNaN(r.value)) fail(Errors.scoreRange);
  return { value: r.value, exclusive };
}

export function parseScoreRange(minArg: Buffer, maxArg: Buffer): ScoreRange {
  const min = scoreBound(minArg);
  const max = scoreBound(maxArg);
  return { min: min.value, minExclusive: min.exclusive, max: max.value, maxExclusive: max.exclusive };
}

/** A lex bound: a member with its exclusivity, or the "-" / "+" infinities. */
export type LexBound = { member: string; exclusive: boolean } | '-' | '+';

export interface LexRange {
  min: LexBound;
  max: LexBound;
}

function lexBound(arg: Buffer): LexBound {
  const s = arg.toString('latin1');
  if (s === '-' || s === '+') return s;
  if (s.startsWith('(')) return { member: s.slice(1), exclusive: true };
  if (s.startsWith('[')) return { member: s.slice(1), exclusive: false };
  fail(Errors.lexRange);
}

export function parseLexRange(minArg: Buffer, maxArg: Buffer): LexRange {
  return { min: lexBound(minArg), max: lexBound(maxArg) };
}
