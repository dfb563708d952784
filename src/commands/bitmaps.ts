// Strings as bit arrays (bitops.c of Redis 7.0): SETBIT, GETBIT, BITCOUNT and BITPOS (ranges in
// bytes, or in bits with BIT), BITOP AND|OR|XOR|NOT. Bit 0 is the most significant bit of the
// first byte. A string is never changed in place (a reply may still hold it): SETBIT and BITOP
// store a new Buffer.
import { NOTIFY_GENERIC, NOTIFY_STRING } from './keyspace-events.js';
import { Buffer } from 'node:buffer';
import { keyOf } from '../engine/keyspace.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, lower, parseInt64 } from './args.js';
import { command, type CommandSpec, type Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';
import { rawString } from './object-encoding.js';

/**
 * getBitOffsetFromArgument: a non-negative integer whose byte is within proto-max-bulk-len.
 * With `hashBits` (BITFIELD), `#n` means n * hashBits.
 */
export function bitOffset(ctx: Context, arg: Buffer, hashBits = 0): number {
  const useHash = hashBits > 0 && arg[0] === 0x23; // '#'
  const offset = parseInt64(useHash ? arg.subarray(1) : arg);
  if (offset === undefined) fail(Errors.bitOffset);
  const bits = useHash ? offset * BigInt(hashBits) : offset;
  if (bits < 0n || (!ctx.client.mustObey && bits >> 3n >= BigInt(ctx.instance.config.getNumber('proto-max-bulk-len')))) {
    fail(Errors.bitOffset);
  }
  return Number(bits);
}

/** The bit at `bit`; past the end of the string, 0. */
export function bitAt(value: Buffer, bit: number): number {
  const byte = bit >> 3;
  return byte < value.length ? (value[byte]! >> (7 - (bit & 7))) & 1 : 0;
}

function setbit(ctx: Context, argv: Buffer[]): Reply {
  const offset = bitOffset(ctx, argv[2]!);
  const on = parseInt64(argv[3]!);
  if (on === undefined || (on !== 0n && on !== 1n)) fail(Errors.bitValue);
  const key = keyOf(argv[1]!);
  const current = lookupTyped(ctx.db, key, 'string');
  const byte = offset >> 3;
  const old = current === undefined ? 0 : bitAt(current, offset);
  const grows = current === undefined || current.length < byte + 1;
  if (!grows && old === Number(on)) return old;
  const next = rawString(Buffer.alloc(Math.max(current?.length ?? 0, byte + 1)));
  current?.copy(next);
  const mask = 1 << (7 - (offset & 7));
  next[byte] = on === 1n ? next[byte]! | mask : next[byte]! & ~mask;
  ctx.db.set(key, next, true);
  ctx.modified(key);
  ctx.notify(NOTIFY_STRING, 'setbit', key);
  return old;
}

function getbit(ctx: Context, argv: Buffer[]): Reply {
  const offset = bitOffset(ctx, argv[2]!);
  const value = lookupTyped(ctx.db, keyOf(argv[1]!), 'string');
  return value === undefined ? 0 : bitAt(value, offset);
}

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, i) => {
  let n = 0;
  for (let v = i; v !== 0; v >>= 1) n += v & 1;
  return n;
});

/**
 * A [start, end] range of BITCOUNT / BITPOS as bit positions, from indexes in bytes or in bits
 * (negative from the end), clamped to the string as Redis does; null when it is empty.
 */
function bitRange(length: number, start: bigint, end: bigint, inBits: boolean): [number, number] | null {
  const total = BigInt(inBits ? length * 8 : length);
  if (start < 0n) start += total;
  if (end < 0n) end += total;
  if (start < 0n) start = 0n;
  if (end < 0n) end = 0n;
  if (end >= total) end = total - 1n;
  if (start > end) return null;
  return inBits ? [Number(start), Number(end)] : [Number(start) * 8, Number(end) * 8 + 7];
}

function unitIsBit(arg: Buffer): boolean {
  if (isKeyword(arg, 'bit')) return true;
  if (isKeyword(arg, 'byte')) return false;
  fail(Errors.syntax);
}

function countBits(value: Buffer, from: number, to: number): number {
  let n = 0;
  let bit = from;
  for (; bit <= to && (bit & 7) !== 0; bit++) n += bitAt(value, bit);
  for (; bit + 7 <= to; bit += 8) n += POPCOUNT[value[bit >> 3]!]!;
  for (; bit <= to; bit++) n += bitAt(value, bit);
  return n;
}

function bitcount(ctx: Context, argv: Buffer[]): Reply {
  const value = lookupTyped(ctx.db, keyOf(argv[1]!), 'string');
  if (value === undefined) return 0;
  let range: [number, number] | null;
  if (argv.length === 4 || argv.length === 5) {
    const start = int64Arg(argv[2]!);
    const end = int64Arg(argv[3]!);
    if (start < 0n && end < 0n && start > end) return 0;
    range = bitRange(value.length, start, end, argv.length === 5 && unitIsBit(argv[4]!));
  } else if (argv.length === 2) range = value.length === 0 ? null : [0, value.length * 8 - 1];
  else fail(Errors.syntax);
  return range === null ? 0 : countBits(value, range[0], range[1]);
}

function bitpos(ctx: Context, argv: Buffer[]): Reply {
  const wanted = int64Arg(argv[2]!);
  if (wanted !== 0n && wanted !== 1n) fail(Errors.bitArgument);
  const bit = Number(wanted);
  const value = lookupTyped(ctx.db, keyOf(argv[1]!), 'string');
  // A missing key is an endless run of zeros.
  if (value === undefined) return bit === 1 ? -1 : 0;
  let range: [number, number] | null;
  let endGiven = false;
  if (argv.length >= 4 && argv.length <= 6) {
    const start = int64Arg(argv[3]!);
    const inBits = argv.length === 6 && unitIsBit(argv[5]!);
    let end = BigInt(value.length - 1);
    if (argv.length >= 5) {
      end = int64Arg(argv[4]!);
      endGiven = true;
    }
    range = bitRange(value.length, start, end, inBits);
  } else if (argv.length === 3) range = value.length === 0 ? null : [0, value.length * 8 - 1];
  else fail(Errors.syntax);
  if (range === null) return -1;
  const skip = bit === 1 ? 0x00 : 0xff; // a byte holding no wanted bit
  for (let i = range[0]; i <= range[1]; i++) {
    if ((i & 7) === 0 && i + 7 <= range[1] && value[i >> 3] === skip) {
      i += 7;
      continue;
    }
    if (bitAt(value, i) === bit) return i;
  }
  // No clear bit in the string: without an explicit end, the zeros past its end count.
  return bit === 0 && !endGiven ? range[1] + 1 : -1;
}

function bitop(ctx: Context, argv: Buffer[]): Reply {
  const op = lower(argv[1]!);
  if (op !== 'and' && op !== 'or' && op !== 'xor' && op !== 'not') fail(Errors.syntax);
  if (op === 'not' && argv.length !== 4) fail(Errors.bitopNotOneKey);
  const sources: Buffer[] = [];
  for (let j = 3; j < argv.length; j++) sources.push(lookupTyped(ctx.db, keyOf(argv[j]!), 'string') ?? Buffer.alloc(0));
  const maxLen = Math.max(...sources.map((s) => s.length));
  const target = keyOf(argv[2]!);
  if (maxLen === 0) {
    if (ctx.db.delete(target)) {
      ctx.modified(target);
      ctx.notify(NOTIFY_GENERIC, 'del', target);
    }
    return 0;
  }
  const result = Buffer.alloc(maxLen);
  for (let j = 0; j < maxLen; j++) {
    let out = sources[0]![j] ?? 0;
    if (op === 'not') out = ~out & 0xff;
    for (let i = 1; i < sources.length; i++) {
      const byte = sources[i]![j] ?? 0;
      if (op === 'and') out &= byte;
      else if (op === 'or') out |= byte;
      else out ^= byte;
    }
    result[j] = out;
  }
  ctx.db.set(target, rawString(result));
  ctx.modified(target);
  ctx.notify(NOTIFY_STRING, 'set', target);
  return maxLen;
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
const cat = (access: string, speed: string) => ({ categories: [access, 'bitmap', speed] });

export const commands: CommandSpec[] = [
  command('setbit', 4, ['write', 'denyoom'], ONE_KEY, setbit, cat('write', 'slow')),
  command('getbit', 3, ['readonly', 'fast'], ONE_KEY, getbit, cat('read', 'fast')),
  command('bitcount', -2, ['readonly'], ONE_KEY, bitcount, cat('read', 'slow')),
  command('bitpos', -3, ['readonly'], ONE_KEY, bitpos, cat('read', 'slow')),
  command('bitop', -4, ['write', 'denyoom'], { first: 2, last: -1, step: 1 }, bitop, cat('write', 'slow')),
];
