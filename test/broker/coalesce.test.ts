// coalesce() folds a MULTI's writes: the folded transaction must leave the keyspace exactly as
// the original does, for any mix of the commands a worker's batch holds (and others, which
// stop folding across them), and it must fold what it can.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { coalesce } from '../../src/broker/worker/coalesce.js';
import { connect } from '../../src/client/connect.js';
import { open } from '../../src/client/embedded.js';
import type { Arg, Value } from '../../src/client/connection.js';

test('a fast job: its start and completion writes become one HSET (a field both set, once, with the later value), the batch one ZADD', () => {
  const batch: Arg[][] = [
    ['HSET', 'j:1', 'state', 'active', 'started', 5],
    ['XADD', 'ev', '*', 'event', 'active', 'jobId', '1'],
    ['HSET', 'j:2', 'state', 'active', 'started', 5],
    ['XACK', 's', 'g', '1-1', '1-2'],
    ['HSET', 'j:1', 'state', 'completed', 'finished', 6],
    ['ZADD', 'completed', 6, '1'],
    ['XADD', 'ev', '*', 'event', 'completed', 'jobId', '1'],
    ['HSET', 'j:2', 'state', 'completed', 'finished', 6],
    ['ZADD', 'completed', 6, '2'],
  ];
  assert.deepEqual(coalesce(batch), [
    ['HSET', 'j:1', 'state', 'completed', 'started', 5, 'finished', 6],
    ['XADD', 'ev', '*', 'event', 'active', 'jobId', '1'],
    ['HSET', 'j:2', 'state', 'completed', 'started', 5, 'finished', 6],
    ['XACK', 's', 'g', '1-1', '1-2'],
    ['ZADD', 'completed', 6, '1', 6, '2'],
    ['XADD', 'ev', '*', 'event', 'completed', 'jobId', '1'],
  ]);
});

test('a command on the key, or one it cannot read, stops the folding', () => {
  assert.deepEqual(coalesce([['HSET', 'k', 'a', 1], ['DEL', 'x', 'k'], ['HSET', 'k', 'b', 2]]).length, 3);
  assert.deepEqual(coalesce([['ZADD', 'z', 1, 'a'], ['EVAL', 'return 1', 0], ['ZADD', 'z', 2, 'b']]).length, 3);
  assert.deepEqual(coalesce([['ZADD', 'z', 'NX', 1, 'a'], ['ZADD', 'z', 2, 'b']]).length, 2);
  assert.deepEqual(coalesce([['HSET', 'k', 'a', 1], ['HSETNX', 'k', 'b', 2], ['HSET', 'k', 'c', 3]]).length, 3);
});

// Commands over three keys of each kind, as a worker's batches hold them (and a few more).
const command = fc.oneof(
  fc.tuple(fc.constantFrom('h1', 'h2', 'h3'), fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 9 })).map(([k, f, v]): Arg[] => ['HSET', k, f, v]),
  fc.tuple(fc.constantFrom('h1', 'h2'), fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 9 })).map(([k, f, v]): Arg[] => ['HSETNX', k, f, v]),
  fc.tuple(fc.constantFrom('z1', 'z2'), fc.integer({ min: 0, max: 9 }), fc.constantFrom('m', 'n', 'o')).map(([k, s, m]): Arg[] => ['ZADD', k, s, m]),
  fc.tuple(fc.constantFrom('z1', 'z2'), fc.integer({ min: 0, max: 9 }), fc.constantFrom('m', 'n')).map(([k, s, m]): Arg[] => ['ZADD', k, 'GT', s, m]),
  fc.constantFrom('h1', 'h2', 'z1', 'z2').map((k): Arg[] => ['DEL', k]),
  fc.constantFrom('z1', 'z2').map((k): Arg[] => ['ZREM', k, 'm']),
  fc.constantFrom('h1', 'z1').map((k): Arg[] => ['RENAME', k, 'h3']),
  fc.constant(['XADD', 'ev', '*', 'e', '1'] as Arg[]),
);

test('the folded MULTI leaves every key as the original does', async () => {
  const db = await open();
  const conn = await connect(db);
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 14 }), async (commands) => {
        const states: string[] = [];
        for (const batch of [commands, coalesce(commands)]) {
          await conn.call('FLUSHALL');
          await conn.call('HSET', 'h2', 'a', 'x');
          await conn.call('ZADD', 'z2', 5, 'm');
          await conn.multi(batch).catch(() => {}); // RENAME of a missing key fails in both
          const keys = ((await conn.call('KEYS', '*')) as Value[]).map(String).sort();
          const dump: unknown[] = [];
          for (const k of keys) {
            const type = String(await conn.call('TYPE', k));
            if (type === 'hash') dump.push(k, ((await conn.call('HGETALL', k)) as Value[]).map(String));
            else if (type === 'zset') dump.push(k, ((await conn.call('ZRANGE', k, 0, -1, 'WITHSCORES')) as Value[]).map(String));
            else dump.push(k, type, String(await conn.call('XLEN', k)));
          }
          states.push(JSON.stringify(dump));
        }
        assert.equal(states[1], states[0]);
      }),
      { numRuns: 300 },
    );
  } finally {
    await conn.close();
    await db.close();
  }
});
