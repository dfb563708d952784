// DUMP and RESTORE (cluster.c): a key's value as Redis's serialized payload (the RDB form of
// the value, the RDB version and a CRC64; see src/rdb/dump-payload.ts) and back. Payloads are
// interchangeable with redis-server 7.0's in both directions. IDLETIME and FREQ are parsed and
// checked as Redis does; IDLETIME sets the key's access time (OBJECT IDLETIME) unless an LFU
// policy is set, FREQ its LFU counter (OBJECT FREQ) only under one (objectSetLRUOrLFU).
import { NOTIFY_GENERIC } from './keyspace-events.js';
import { keyOf } from '../engine/keyspace.js';
import { RdbFormatError } from '../rdb/constants.js';
import { dumpPayload, parseDumpPayload, verifyDumpPayload } from '../rdb/dump-payload.js';
import { fail, OK, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, lower } from './args.js';
import { alreadyExpired } from './keys.js';
import { command, type CommandSpec, type Context } from './types.js';

const ONE_KEY = { first: 1, last: 1, step: 1 };

function dump(ctx: Context, argv: Buffer[]): Reply {
  const value = ctx.db.get(keyOf(argv[1]!));
  return value === undefined ? null : dumpPayload(value);
}

function restore(ctx: Context, argv: Buffer[]): Reply {
  let replace = false;
  let absttl = false;
  let idle = false;
  let idleSeconds = 0n;
  let freq = false;
  let frequency = 0;
  for (let j = 4; j < argv.length; j++) {
    const option = lower(argv[j]!);
    const hasValue = j + 1 < argv.length;
    if (option === 'replace') replace = true;
    else if (option === 'absttl') absttl = true;
    else if (option === 'idletime' && hasValue && !freq) {
      idleSeconds = int64Arg(argv[++j]!);
      if (idleSeconds < 0n) fail(Errors.invalidIdleTime);
      idle = true;
    } else if (option === 'freq' && hasValue && !idle) {
      const f = int64Arg(argv[++j]!);
      if (f < 0n || f > 255n) fail(Errors.invalidFreq);
      frequency = Number(f);
      freq = true;
    } else fail(Errors.syntax);
  }
  const key = keyOf(argv[1]!);
  if (!replace && ctx.db.get(key) !== undefined) fail(Errors.busyKey);
  let ttl = int64Arg(argv[2]!);
  if (ttl < 0n) fail(Errors.invalidTtl);
  const payload = argv[3]!;
  if (!verifyDumpPayload(payload)) fail(Errors.dumpPayload);
  let value;
  try {
    value = parseDumpPayload(payload);
  } catch (err) {
    if (err instanceof RdbFormatError) fail(Errors.badDataFormat);
    throw err;
  }
  const deleted = replace && ctx.db.delete(key);
  if (ttl !== 0n && !absttl) ttl += BigInt(ctx.instance.keyspace.now());
  if (ttl !== 0n && alreadyExpired(ctx, Number(ttl))) {
    if (deleted) {
      ctx.modified(key);
      ctx.notify(NOTIFY_GENERIC, 'del', key);
      ctx.propagate(['DEL', argv[1]!]);
    }
    return OK;
  }
  ctx.db.set(key, value);
  if (ttl !== 0n) ctx.db.setExpire(key, Number(ttl));
  // Redis's objectSetLRUOrLFU: OBJECT IDLETIME then starts from the given idle time.
  if (ctx.instance.keyspace.lfuTracking !== null) {
    if (freq) ctx.db.setFrequency(key, frequency);
  } else if (idle) ctx.db.setIdle(key, Number(idleSeconds > 1_000_000_000n ? 1_000_000_000n : idleSeconds));
  ctx.modified(key);
  ctx.notify(NOTIFY_GENERIC, 'restore', key);
  // Logged with the absolute expiry, as Redis rewrites the command it propagates.
  if (ttl !== 0n && !absttl) ctx.propagate([argv[0]!, argv[1]!, ttl.toString(), ...argv.slice(3), 'ABSTTL']);
  return OK;
}

export const commands: CommandSpec[] = [
  command('dump', 2, ['readonly'], ONE_KEY, dump, {
    categories: ['keyspace', 'read', 'slow'],
    summary: 'Return a serialized version of the value stored at the specified key.',
    since: '2.6.0',
    group: 'generic',
  }),
  command('restore', -4, ['write', 'denyoom'], ONE_KEY, restore, {
    categories: ['keyspace', 'write', 'slow', 'dangerous'],
    summary: 'Create a key using the provided serialized value, previously obtained using DUMP.',
    since: '2.6.0',
    group: 'generic',
  }),
];
