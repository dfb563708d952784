// String commands through the embedded client: SET options, expiry forms in the AOF,
// counters, INCRBYFLOAT's long double results, ranges and WRONGTYPE.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { open } from '../../src/client/embedded.js';
import { openWithClock, recordPropagation } from './keys-helpers.js';
import { callRaw } from '../../src/client/embedded-internals.js';

const WRONGTYPE = /^ReplyError: WRONGTYPE Operation against a key holding the wrong kind of value$/;

test('SET NX / XX / GET / KEEPTTL', async () => {
  const { db, clock } = await openWithClock();
  assert.equal(await db.call('SET', 'k', 'v1', 'NX'), 'OK');
  assert.equal(await db.call('SET', 'k', 'v2', 'NX'), null);
  assert.equal(await db.call('SET', 'k', 'v2', 'XX', 'GET'), 'v1');
  assert.equal(await db.call('SET', 'absent', 'v', 'XX'), null);
  assert.equal(await db.call('SET', 'k', 'v3', 'PX', '1000'), 'OK');
  assert.equal(await db.call('SET', 'k', 'v4', 'KEEPTTL'), 'OK');
  assert.equal(await db.call('PTTL', 'k'), 1000);
  assert.equal(await db.call('SET', 'k', 'v5'), 'OK');
  assert.equal(await db.call('PTTL', 'k'), -1, 'a plain SET clears the TTL');
  await assert.rejects(db.call('SET', 'k', 'v', 'NX', 'XX'), /^ReplyError: ERR syntax error$/);
  await assert.rejects(db.call('SET', 'k', 'v', 'EX', '0'), /^ReplyError: ERR invalid expire time in 'set' command$/);
  await assert.rejects(db.call('SETEX', 'k', '-1', 'v'), /^ReplyError: ERR invalid expire time in 'setex' command$/);
  await assert.rejects(db.call('SET', 'k', 'v', 'EX', 'soon'), /^ReplyError: ERR value is not an integer or out of range$/);
  await db.call('HSET', 'h', 'f', 'v');
  await assert.rejects(db.call('SET', 'h', 'v', 'GET'), WRONGTYPE);
  assert.equal(await db.call('TYPE', 'h'), 'hash', 'a failed SET ... GET changes nothing');
  assert.equal(await db.call('SET', 'h', 'v'), 'OK', 'plain SET overwrites any type');
  await db.call('SET', 'soon', 'v', 'PX', '10');
  clock.advance(10);
  assert.equal(await db.call('SET', 'soon', 'again', 'XX'), null, 'an expired key counts as absent for XX');
  await db.close();
});

test('relative expiries are logged as SET ... PXAT / PEXPIREAT with absolute times', async () => {
  const { db, clock } = await openWithClock();
  const log = recordPropagation(db);
  const t0 = clock.now;
  await db.call('SET', 'a', '1', 'EX', '10');
  await db.call('SET', 'b', '2', 'PX', '500', 'GET');
  await db.call('SETEX', 'c', '3', 'x');
  await db.call('PSETEX', 'd', '40', 'y');
  await db.call('SET', 'e', '5', 'PXAT', String(t0 + 7));
  await db.call('SET', 'f', '6', 'NX', 'GET');
  await db.call('SET', 'f', '7', 'NX');
  await db.call('GETEX', 'a', 'EX', '100');
  await db.call('GETEX', 'a', 'PERSIST');
  await db.call('GETEX', 'a', 'PERSIST');
  await db.call('GETEX', 'b', 'PXAT', '1');
  await db.call('GETDEL', 'c');
  await db.call('INCRBYFLOAT', 'n', '1.5');
  assert.deepEqual(log, [
    `SET a 1 PXAT ${t0 + 10_000}`,
    `SET b 2 PXAT ${t0 + 500}`,
    `SET c x PXAT ${t0 + 3000}`,
    `SET d y PXAT ${t0 + 40}`,
    `SET e 5 PXAT ${t0 + 7}`,
    'SET f 6 NX',
    `PEXPIREAT a ${t0 + 100_000}`,
    'PERSIST a',
    'DEL b',
    'DEL c',
    'SET n 1.5 KEEPTTL',
  ]);
  await db.close();
});

test('GETEX and GETDEL', async () => {
  const { db } = await openWithClock();
  assert.equal(await db.call('GETEX', 'nokey', 'EX', '0'), null, 'missing key: the time is not even checked');
  await db.call('SET', 'k', 'v');
  assert.equal(await db.call('GETEX', 'k', 'PX', '2500'), 'v');
  assert.equal(await db.call('TTL', 'k'), 3);
  await assert.rejects(db.call('GETEX', 'k', 'EX', '10', 'PERSIST'), /^ReplyError: ERR syntax error$/);
  await assert.rejects(db.call('GETEX', 'k', 'EX', '0'), /invalid expire time in 'getex' command/);
  assert.equal(await db.call('GETDEL', 'k'), 'v');
  assert.equal(await db.call('EXISTS', 'k'), 0);
  await db.call('SADD', 's', 'm');
  await assert.rejects(db.call('GETDEL', 's'), WRONGTYPE);
  await assert.rejects(db.call('GETEX', 's'), WRONGTYPE);
  await db.close();
});

test('MGET / MSET / MSETNX', async () => {
  const db = await open();
  assert.equal(await db.call('MSET', 'a', '1', 'b', '2'), 'OK');
  await db.call('HSET', 'h', 'f', 'v');
  assert.deepEqual(await db.call('MGET', 'a', 'nokey', 'h', 'b'), ['1', null, null, '2']);
  assert.equal(await db.call('MSETNX', 'a', 'x', 'c', 'y'), 0);
  assert.equal(await db.call('EXISTS', 'c'), 0);
  assert.equal(await db.call('MSETNX', 'c', 'x', 'd', 'y'), 1);
  await assert.rejects(db.call('MSET', 'a', '1', 'b'), /^ReplyError: ERR wrong number of arguments for 'mset' command$/);
  await db.close();
});

test('INCR family: values, errors, overflow, TTL kept', async () => {
  const { db } = await openWithClock();
  assert.equal(await db.call('INCR', 'n'), 1);
  assert.equal(await db.call('INCRBY', 'n', '41'), 42);
  assert.equal(await db.call('DECRBY', 'n', '50'), -8);
  assert.equal(await db.call('DECR', 'n'), -9);
  await db.call('SET', 'big', '9223372036854775806');
  assert.equal(await db.call('INCR', 'big'), 9223372036854775807n);
  await assert.rejects(db.call('INCR', 'big'), /^ReplyError: ERR increment or decrement would overflow$/);
  await assert.rejects(db.call('DECRBY', 'n', '-9223372036854775808'), /^ReplyError: ERR decrement would overflow$/);
  for (const bad of ['01', ' 1', '+1', '1.0', '', 'abc']) {
    await db.call('SET', 'bad', bad);
    await assert.rejects(db.call('INCR', 'bad'), /^ReplyError: ERR value is not an integer or out of range$/, bad);
  }
  await db.call('SET', 't', '5', 'EX', '100');
  assert.equal(await db.call('INCR', 't'), 6);
  assert.equal(await db.call('TTL', 't'), 100);
  await db.call('HSET', 'h', 'f', 'v');
  await assert.rejects(db.call('INCR', 'h'), WRONGTYPE);
  await db.close();
});

test('INCRBYFLOAT computes in long double and prints as Redis (%.17Lf, zeros trimmed)', async () => {
  const db = await open();
  const steps: Array<[string, string, string]> = [
    ['0', '0.1', '0.1'],
    ['0.1', '0.2', '0.3'],
    ['10.50', '0.1', '10.6'],
    ['1000.1', '0.1', '1000.19999999999999996'],
    ['5.0e3', '2.0e2', '5200'],
    ['3', '-3', '0'],
    ['-0.1', '0.1', '0'],
    ['1', '1.5e-7', '1.00000015'],
  ];
  for (const [start, by, expected] of steps) {
    await db.call('SET', 'f', start);
    assert.equal(await db.call('INCRBYFLOAT', 'f', by), expected, `${start} + ${by}`);
    assert.equal(await db.call('GET', 'f'), expected);
  }
  await assert.rejects(db.call('INCRBYFLOAT', 'f', 'inf'), /^ReplyError: ERR increment would produce NaN or Infinity$/);
  await assert.rejects(db.call('INCRBYFLOAT', 'f', 'nan'), /^ReplyError: ERR value is not a valid float$/);
  await db.call('SET', 'f', 'text');
  await assert.rejects(db.call('INCRBYFLOAT', 'f', '1'), /^ReplyError: ERR value is not a valid float$/);
  await db.close();
});

test('APPEND / STRLEN / GETRANGE / SETRANGE, binary safe', async () => {
  const db = await open();
  assert.equal(await db.call('APPEND', 'k', 'Hello'), 5);
  assert.equal(await db.call('APPEND', 'k', ' World'), 11);
  assert.equal(await db.call('STRLEN', 'k'), 11);
  assert.equal(await db.call('GETRANGE', 'k', '-5', '-1'), 'World');
  assert.equal(await db.call('GETRANGE', 'k', '5', '1'), '');
  assert.equal(await db.call('GETRANGE', 'k', '0', '100'), 'Hello World');
  assert.equal(await db.call('SETRANGE', 'k', '6', 'Redis'), 11);
  assert.equal(await db.call('GET', 'k'), 'Hello Redis');
  assert.equal(await db.call('SETRANGE', 'pad', '3', 'x'), 4);
  assert.deepEqual(await callRaw(db, 'GET', 'pad'), Buffer.from('\0\0\0x', 'latin1'));
  await assert.rejects(db.call('SETRANGE', 'k', '-1', 'x'), /^ReplyError: ERR offset is out of range$/);
  const bin = Buffer.from([0, 255, 13, 10, 128]);
  await db.call('SET', Buffer.from([1, 0, 2]), bin);
  assert.deepEqual(await callRaw(db, 'GET', Buffer.from([1, 0, 2])), bin);
  await db.close();
});

test('INCR and DECR agree with INCRBY 1 / -1 on any stored text (the number path and the BigInt path)', async () => {
  const db = await open();
  // Texts around the 15-character edge of the number path, and what string2ll refuses.
  const digits = fc.stringMatching(/^-?[0-9]{1,20}$/);
  const edges = fc.constantFrom('0', '-0', '007', '+1', ' 1', '1 ', '', '-', '999999999999999', '-99999999999999', '1000000000000000',
    '9223372036854775807', '-9223372036854775808', '9223372036854775806', 'abc', '1e3', '12a');
  await fc.assert(
    fc.asyncProperty(fc.oneof(digits, edges), fc.boolean(), async (stored, up) => {
      await db.call('SET', 'a', stored);
      await db.call('SET', 'b', stored);
      const fast = await db.call(up ? 'INCR' : 'DECR', 'a').catch((err: Error) => err.message);
      const slow = await db.call(up ? 'INCRBY' : 'DECRBY', 'b', '1').catch((err: Error) => err.message);
      assert.deepEqual(fast, slow, `${up ? 'INCR' : 'DECR'} of ${JSON.stringify(stored)}`);
      assert.deepEqual(await db.call('GET', 'a'), await db.call('GET', 'b'));
    }),
    { numRuns: 400 },
  );
  await db.close();
});

test('expiry arguments give the same deadline on the number path and the BigInt path, and the same errors', async () => {
  const { db, clock } = await openWithClock();
  const INT64_MAX = 2n ** 63n - 1n;
  // Texts around the number path's edges (15 digits, 10^12) and what Redis refuses.
  const digits = fc.stringMatching(/^-?[0-9]{1,20}$/);
  const edges = fc.constantFrom('0', '-0', '-1', '007', '+1', '1', '999999999999', '1000000000000', '999999999999999',
    '1000000000000000', '9223372036854775', '9223372036854776', '9223372036854775807', '9223372036854775808', '1e3', '');
  const NOT_INTEGER = 'ERR value is not an integer or out of range';
  const INVALID = "ERR invalid expire time in 'set' command";
  const model = (text: string, unit: 'EX' | 'PX' | 'EXAT' | 'PXAT'): bigint | string => {
    if (!/^(0|-?[1-9][0-9]*)$/.test(text)) return NOT_INTEGER;
    let ms = BigInt(text);
    if (ms > INT64_MAX || ms < -INT64_MAX - 1n) return NOT_INTEGER;
    const seconds = unit === 'EX' || unit === 'EXAT';
    if (ms <= 0n || (seconds && ms > INT64_MAX / 1000n)) return INVALID;
    if (seconds) ms *= 1000n;
    if (unit === 'EX' || unit === 'PX') ms += BigInt(clock.now);
    return ms > INT64_MAX ? INVALID : ms;
  };
  await fc.assert(
    fc.asyncProperty(fc.oneof(digits, edges), fc.constantFrom('EX', 'PX', 'EXAT', 'PXAT') as fc.Arbitrary<'EX' | 'PX' | 'EXAT' | 'PXAT'>, async (text, unit) => {
      await db.call('DEL', 'k');
      const expected = model(text, unit);
      const reply = await db.call('SET', 'k', 'v', unit, text).catch((err: Error) => err.message);
      if (typeof expected === 'string') {
        assert.equal(reply, expected, `SET ${unit} ${JSON.stringify(text)}`);
        return;
      }
      assert.equal(reply, 'OK', `SET ${unit} ${text}`);
      // A deadline already past deletes the key at once (EXAT/PXAT in the past).
      const when = expected <= BigInt(clock.now) ? -2 : Number(expected);
      assert.equal(await db.call('PEXPIRETIME', 'k'), when, `SET ${unit} ${text}`);
    }),
    { numRuns: 600 },
  );
  await db.close();
});
