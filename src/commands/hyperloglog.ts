// PFADD, PFCOUNT, PFMERGE and PFDEBUG (hyperloglog.c of Redis 7.0) over the HLL strings of
// engine/hyperloglog.ts. An HLL is a string: GET, DUMP, RDB and the AOF carry its bytes. PFCOUNT
// of one key caches the count in the string and is then propagated, as in Redis (the replica's
// copy gets the same cache).
import { NOTIFY_STRING } from './keyspace-events.js';
import { Buffer } from 'node:buffer';
import { keyOf } from '../engine/keyspace.js';
import {
  cachedCardinality,
  count,
  countRegisters,
  decodeSparse,
  denseRegisters,
  HLL_DENSE,
  HLL_REGISTERS,
  HllWriter,
  isHll,
  mergeInto,
  patLen,
  toDense,
  withCachedCardinality,
} from '../engine/hyperloglog.js';
import { fail, OK, type Reply, SimpleString } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { lower } from './args.js';
import { command, type CommandSpec, type Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';

/** The HLL at `key` (undefined when missing); WRONGTYPE for other types or strings that are no HLL. */
function lookupHll(ctx: Context, key: string): Buffer | undefined {
  const value = lookupTyped(ctx.db, key, 'string');
  if (value !== undefined && !isHll(value)) fail(Errors.notHll);
  return value;
}

function maxSparseBytes(ctx: Context): number {
  return ctx.instance.config.getNumber('hll-sparse-max-bytes');
}

function pfadd(ctx: Context, argv: Buffer[]): Reply {
  const key = keyOf(argv[1]!);
  const stored = lookupHll(ctx, key);
  const hll = stored === undefined ? HllWriter.empty() : new HllWriter(stored);
  let updated = stored === undefined ? 1 : 0;
  const limit = maxSparseBytes(ctx);
  for (let j = 2; j < argv.length; j++) {
    const { index, count: runLength } = patLen(argv[j]!);
    const result = hll.set(index, runLength, limit);
    if (result === -1) {
      // Redis changes the string in place: the registers set before the corrupt part stay set
      // (not propagated, as nothing was counted dirty).
      if (hll.changed) ctx.db.set(key, hll.value(), true);
      fail(Errors.corruptHll);
    }
    updated += result;
  }
  if (updated === 0) return 0;
  hll.invalidateCache();
  ctx.db.set(key, hll.value(), true);
  ctx.modified(key);
  ctx.addDirty(updated - 1);
  ctx.notify(NOTIFY_STRING, 'pfadd', key);
  return 1;
}

function pfcount(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 2) {
    const max = new Uint8Array(HLL_REGISTERS);
    for (let j = 1; j < argv.length; j++) {
      const hll = lookupHll(ctx, keyOf(argv[j]!));
      if (hll !== undefined && !mergeInto(max, hll)) fail(Errors.corruptHll);
    }
    return Number(countRegisters(max));
  }
  const key = keyOf(argv[1]!);
  const hll = lookupHll(ctx, key);
  if (hll === undefined) return 0;
  const cached = cachedCardinality(hll);
  if (cached !== null) return Number(cached);
  const card = count(hll);
  if (card === null) fail(Errors.corruptHll);
  // The count is cached in the string: a change to replicate, as Redis's dirty++ makes it.
  ctx.db.set(key, withCachedCardinality(hll, card), true);
  ctx.modified(key);
  return Number(card);
}

function pfmerge(ctx: Context, argv: Buffer[]): Reply {
  const max = new Uint8Array(HLL_REGISTERS);
  let useDense = false;
  for (let j = 1; j < argv.length; j++) {
    const hll = lookupHll(ctx, keyOf(argv[j]!));
    if (hll === undefined) continue;
    if (hll[4] === HLL_DENSE) useDense = true;
    if (!mergeInto(max, hll)) fail(Errors.corruptHll);
  }
  const key = keyOf(argv[1]!);
  const stored = lookupTyped(ctx.db, key, 'string');
  const target = stored === undefined ? HllWriter.empty() : new HllWriter(stored);
  if (useDense && !target.toDense()) fail(Errors.corruptHll);
  const limit = maxSparseBytes(ctx);
  // Errors are not checked, as Redis's: the target was one of the HLLs merged above.
  for (let j = 0; j < HLL_REGISTERS; j++) if (max[j] !== 0) target.set(j, max[j]!, limit);
  target.invalidateCache();
  ctx.db.set(key, target.value(), true);
  ctx.modified(key);
  // Redis's PFMERGE event is a PFADD's ("a mass-add of elements").
  ctx.notify(NOTIFY_STRING, 'pfadd', key);
  return OK;
}

function pfdebug(ctx: Context, argv: Buffer[]): Reply {
  const sub = lower(argv[1]!);
  const key = keyOf(argv[2]!);
  if (ctx.db.get(key) === undefined) fail(Errors.pfdebugNoKey);
  const hll = lookupHll(ctx, key)!;
  const toDenseStored = (): Buffer => {
    const dense = toDense(hll);
    if (dense === null) fail(Errors.corruptHll);
    ctx.db.set(key, dense, true);
    ctx.modified(key); // an encoding change is propagated
    return dense;
  };
  if (sub === 'getreg') return denseRegisters(hll[4] === HLL_DENSE ? hll : toDenseStored());
  if (sub === 'decode') {
    if (hll[4] === HLL_DENSE) fail(Errors.hllNotSparse);
    return Buffer.from(decodeSparse(hll), 'latin1');
  }
  if (sub === 'encoding') return new SimpleString(hll[4] === HLL_DENSE ? 'dense' : 'sparse');
  if (sub === 'todense') {
    if (hll[4] === HLL_DENSE) return 0;
    toDenseStored();
    return 1;
  }
  fail(Errors.pfdebugUnknown(argv[1]!.toString('latin1')));
}

const cat = (...c: string[]) => ({ categories: c });

export const commands: CommandSpec[] = [
  command('pfadd', -2, ['write', 'denyoom', 'fast'], { first: 1, last: 1, step: 1 }, pfadd, cat('write', 'hyperloglog', 'fast')),
  command('pfcount', -2, ['readonly'], { first: 1, last: -1, step: 1 }, pfcount, cat('read', 'hyperloglog', 'slow')),
  command('pfmerge', -2, ['write', 'denyoom'], { first: 1, last: -1, step: 1 }, pfmerge, cat('write', 'hyperloglog', 'slow')),
  command('pfdebug', 3, ['write', 'denyoom', 'admin'], { first: 2, last: 2, step: 1 }, pfdebug, cat('write', 'hyperloglog', 'admin', 'slow', 'dangerous')),
];
