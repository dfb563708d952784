// DEBUG OBJECT <key>: Redis's one-line description of a key's value, read from the keyspace
// without expiring it (debugCommand finds the dict entry: an expired key not yet removed is
// still there; a missing one is "ERR no such key"). "Value at" is the value's address in
// Redis; here a stable number per database and key, so that it stays the same while the key
// is changed in place (INCR), as Redis's tests expect. serializedlength is the RDB encoding's
// length (sluice writes strings uncompressed: redis-server with rdbcompression no agrees).
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { keyOf } from '../engine/keyspace.js';
import { dumpPayload } from '../rdb/dump-payload.js';
import { Errors } from '../resp/errors.js';
import { fail, SimpleString, type Reply } from '../resp/reply.js';
import { encodingOf, isSharedInteger, refcountOf, sharesIntegers } from './object-encoding.js';
import type { Context } from './types.js';

/** Redis's LRU_CLOCK_MAX: the object's lru field is 24 bits of seconds. */
const LRU_CLOCK_MAX = (1 << 24) - 1;
/** What DUMP adds to a value's RDB encoding: its type byte, the RDB version, the CRC64. */
const DUMP_OVERHEAD = 1 + 2 + 8;

function addressOf(db: number, key: Buffer): string {
  const digest = createHash('sha1').update(`${db}:`).update(key).digest();
  return `0x7f${digest.toString('hex', 0, 5)}`;
}

export function debugObject(ctx: Context, key: Buffer): Reply {
  const value = ctx.db.values.get(keyOf(key));
  if (value === undefined) fail(Errors.noSuchKey);
  const shares = sharesIntegers(ctx.instance.config);
  const keyspace = ctx.instance.keyspace;
  const idle =
    keyspace.lfuTracking === null
      ? ctx.db.idleSeconds(keyOf(key), isSharedInteger(value, shares), Math.floor(ctx.instance.startedAt / 1000))
      : 0;
  const lru = (keyspace.lruClock() - idle) & LRU_CLOCK_MAX;
  const serialized = dumpPayload(value).length - DUMP_OVERHEAD;
  return new SimpleString(
    `Value at:${addressOf(ctx.db.index, key)} refcount:${refcountOf(value, shares)} encoding:${encodingOf(value)} ` +
      `serializedlength:${serialized} lru:${lru} lru_seconds_idle:${idle}`,
  );
}
