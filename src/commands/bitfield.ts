// BITFIELD key [GET type offset] [SET type offset value] [INCRBY type offset increment]
// [OVERFLOW WRAP|SAT|FAIL] ... and BITFIELD_RO (bitfieldGeneric, bitops.c of Redis 7.0): signed
// (i1..i64) and unsigned (u1..u63) integers at any bit offset of a string (`#n` = n widths).
// Every operation is parsed before any runs; 64-bit arithmetic is done in BigInt with Redis's
// overflow rules (WRAP modulo the width, SAT to the limits, FAIL answers nil and writes nothing).
import { NOTIFY_STRING } from './keyspace-events.js';
import { Buffer } from 'node:buffer';
import { keyOf } from '../engine/keyspace.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, lower, parseInt64 } from './args.js';
import { bitAt, bitOffset } from './bitmaps.js';
import { command, type CommandSpec, type Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';
import { rawString } from './object-encoding.js';

type Overflow = 'wrap' | 'sat' | 'fail';

interface Op {
  kind: 'get' | 'set' | 'incrby';
  signed: boolean;
  bits: number;
  offset: number;
  value: bigint;
  overflow: Overflow;
}

/** getBitfieldTypeFromArgument: i1..i64 or u1..u63. */
function fieldType(arg: Buffer): { signed: boolean; bits: number } {
  const sign = arg[0];
  if (sign !== 0x69 && sign !== 0x75) fail(Errors.bitfieldType); // 'i' | 'u'
  const signed = sign === 0x69;
  const bits = parseInt64(arg.subarray(1));
  if (bits === undefined || bits < 1n || bits > (signed ? 64n : 63n)) fail(Errors.bitfieldType);
  return { signed, bits: Number(bits) };
}

function parseOps(ctx: Context, argv: Buffer[]): Op[] {
  const ops: Op[] = [];
  let overflow: Overflow = 'wrap';
  for (let j = 2; j < argv.length; j++) {
    const remaining = argv.length - j - 1;
    const sub = lower(argv[j]!);
    let kind: Op['kind'];
    if (sub === 'get' && remaining >= 2) kind = 'get';
    else if (sub === 'set' && remaining >= 3) kind = 'set';
    else if (sub === 'incrby' && remaining >= 3) kind = 'incrby';
    else if (sub === 'overflow' && remaining >= 1) {
      const type = lower(argv[++j]!);
      if (type !== 'wrap' && type !== 'sat' && type !== 'fail') fail(Errors.bitfieldOverflow);
      overflow = type;
      continue;
    } else fail(Errors.syntax);
    const { signed, bits } = fieldType(argv[j + 1]!);
    const offset = bitOffset(ctx, argv[j + 2]!, bits);
    const value = kind === 'get' ? 0n : int64Arg(argv[j + 3]!);
    ops.push({ kind, signed, bits, offset, value, overflow });
    j += kind === 'get' ? 2 : 3;
  }
  return ops;
}

function readField(buf: Buffer, offset: number, bits: number, signed: boolean): bigint {
  let v = 0n;
  for (let i = 0; i < bits; i++) v = (v << 1n) | BigInt(bitAt(buf, offset + i));
  return signed ? BigInt.asIntN(bits, v) : v;
}

function writeField(buf: Buffer, offset: number, bits: number, value: bigint): void {
  const u = BigInt.asUintN(bits, value);
  for (let i = 0; i < bits; i++) {
    const bit = offset + i;
    const mask = 1 << (7 - (bit & 7));
    if ((u >> BigInt(bits - 1 - i)) & 1n) buf[bit >> 3] = buf[bit >> 3]! | mask;
    else buf[bit >> 3] = buf[bit >> 3]! & ~mask;
  }
}

const asInt64 = (v: bigint): bigint => BigInt.asIntN(64, v);
const asUint64 = (v: bigint): bigint => BigInt.asUintN(64, v);

/**
 * Redis's check{Signed,Unsigned}BitfieldOverflow for `value + incr` in the field's width: the
 * value to store (null when the overflow type is FAIL and it overflowed). `value` is as C sees it
 * (an unsigned field's SET value is the int64 reinterpreted as uint64).
 */
function withOverflow(op: Op, value: bigint, incr: bigint): bigint | null {
  const { bits, overflow } = op;
  let over = 0;
  let limit = 0n;
  if (op.signed) {
    const max = bits === 64 ? (1n << 63n) - 1n : (1n << BigInt(bits - 1)) - 1n;
    const min = -max - 1n;
    const maxIncr = asInt64(asUint64(max) - asUint64(value));
    const minIncr = asInt64(min - value);
    if (value > max || (bits !== 64 && incr > maxIncr) || (value >= 0n && incr > 0n && incr > maxIncr)) [over, limit] = [1, max];
    else if (value < min || (bits !== 64 && incr < minIncr) || (value < 0n && incr < 0n && incr < minIncr)) [over, limit] = [-1, min];
    if (over === 0) return value + incr;
    if (overflow === 'wrap') return BigInt.asIntN(bits, value + incr);
  } else {
    const max = (1n << BigInt(bits)) - 1n;
    const maxIncr = asInt64(max - value);
    const minIncr = asInt64(-value);
    if (value > max || (incr > 0n && incr > maxIncr)) [over, limit] = [1, max];
    else if (incr < 0n && incr < minIncr) [over, limit] = [-1, 0n];
    if (over === 0) return value + incr;
    if (overflow === 'wrap') return BigInt.asUintN(bits, value + incr);
  }
  return overflow === 'sat' ? limit : null;
}

function integer(v: bigint): Reply {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function bitfieldGeneric(readOnlyCommand: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    const ops = parseOps(ctx, argv);
    const key = keyOf(argv[1]!);
    const writes = ops.filter((op) => op.kind !== 'get');
    if (writes.length === 0) {
      const value = lookupTyped(ctx.db, key, 'string') ?? Buffer.alloc(0);
      return ops.map((op) => integer(readField(value, op.offset, op.bits, op.signed)));
    }
    if (readOnlyCommand) fail(Errors.bitfieldRoGetOnly);
    const current = lookupTyped(ctx.db, key, 'string');
    const highestByte = Math.max(...writes.map((op) => (op.offset + op.bits - 1) >> 3));
    const grown = current === undefined || current.length < highestByte + 1;
    // Written into a copy: a reply may still hold the stored string.
    const buf = Buffer.alloc(Math.max(current?.length ?? 0, highestByte + 1));
    current?.copy(buf);
    let changes = 0;
    const replies: Reply[] = [];
    for (const op of ops) {
      const old = readField(buf, op.offset, op.bits, op.signed);
      if (op.kind === 'get') {
        replies.push(integer(old));
        continue;
      }
      const stored =
        op.kind === 'incrby' ? withOverflow(op, old, op.value) : withOverflow(op, op.signed ? op.value : asUint64(op.value), 0n);
      if (stored === null) {
        replies.push(null);
        continue;
      }
      replies.push(integer(op.kind === 'incrby' ? (op.signed ? stored : asInt64(stored)) : old));
      writeField(buf, op.offset, op.bits, stored);
      if (grown || readField(buf, op.offset, op.bits, op.signed) !== old) changes++;
    }
    // As Redis: the string is created or grown even when every write failed (OVERFLOW FAIL).
    ctx.db.set(key, rawString(buf), true);
    if (changes > 0) {
      ctx.modified(key);
      ctx.addDirty(changes - 1);
      ctx.notify(NOTIFY_STRING, 'setbit', key);
    }
    return replies;
  };
}

const ONE_KEY = { first: 1, last: 1, step: 1 };

export const commands: CommandSpec[] = [
  command('bitfield', -2, ['write', 'denyoom'], ONE_KEY, bitfieldGeneric(false), { categories: ['write', 'bitmap', 'slow'] }),
  command('bitfield_ro', -2, ['readonly', 'fast'], ONE_KEY, bitfieldGeneric(true), { categories: ['read', 'bitmap', 'fast'] }),
];
