// Sorted-set commands through the embedded client: replies in both protocols, what each
// command propagates to the AOF, WATCH, and the keyspace commands on sorted sets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { Encoder } from '../../src/resp/encoder.js';
import type { Reply } from '../../src/resp/reply.js';
import { recordPropagation } from './keys-helpers.js';
import { callRaw } from '../../src/client/embedded-internals.js';

test('ZADD, ZSCORE, ZRANGE WITHSCORES, ZRANK, ZCOUNT, ZREM', async () => {
  const db = await open();
  assert.equal(await db.call('ZADD', 'z', '1', 'a', '2', 'b', '1.5', 'c', '+inf', 'top'), 4);
  assert.equal(await db.call('ZADD', 'z', 'CH', '3', 'a', '2', 'b', '0', 'd'), 2);
  assert.deepEqual(await db.call('ZRANGE', 'z', '0', '-1', 'WITHSCORES'), ['d', '0', 'c', '1.5', 'b', '2', 'a', '3', 'top', 'inf']);
  assert.equal(await db.call('ZSCORE', 'z', 'c'), '1.5');
  assert.deepEqual(await db.call('ZMSCORE', 'z', 'a', 'nope'), ['3', null]);
  assert.equal(await db.call('ZRANK', 'z', 'b'), 2);
  assert.equal(await db.call('ZREVRANK', 'z', 'b'), 2);
  assert.equal(await db.call('ZCOUNT', 'z', '(1.5', '+inf'), 3);
  assert.deepEqual(await db.call('ZRANGEBYSCORE', 'z', '(0', '3', 'LIMIT', '1', '2'), ['b', 'a']);
  assert.deepEqual(await db.call('ZRANGE', 'z', '+inf', '2', 'BYSCORE', 'REV'), ['top', 'a', 'b']);
  assert.equal(await db.call('ZINCRBY', 'z', '0.25', 'c'), '1.75');
  assert.equal(await db.call('ZREM', 'z', 'a', 'b', 'c', 'd', 'top'), 5);
  assert.equal(await db.call('EXISTS', 'z'), 0, 'the last ZREM deletes the key');
  await db.close();
});

test('RESP3: scores are doubles, WITHSCORES and ZPOPMIN COUNT reply pairs', async () => {
  const db = await open();
  const s = db.session();
  await s.call('ZADD', 'z', '1', 'a', '2.5', 'b', '-inf', 'c');
  const resp3 = async (...args: string[]): Promise<string> => {
    const reply = (await callRaw(s, ...args)) as Reply;
    return new Encoder(3).write(reply).take().toString('latin1');
  };
  assert.equal(await resp3('ZSCORE', 'z', 'b'), ',2.5\r\n');
  assert.equal(await resp3('ZSCORE', 'z', 'c'), ',-inf\r\n');
  await s.call('HELLO', '3');
  assert.equal(await resp3('ZRANGE', 'z', '0', '1', 'WITHSCORES'), '*2\r\n*2\r\n$1\r\nc\r\n,-inf\r\n*2\r\n$1\r\na\r\n,1\r\n');
  assert.equal(await resp3('ZPOPMAX', 'z'), '*2\r\n$1\r\nb\r\n,2.5\r\n', 'without COUNT: flat');
  assert.equal(await resp3('ZPOPMIN', 'z', '1'), '*1\r\n*2\r\n$1\r\nc\r\n,-inf\r\n', 'with COUNT: nested');
  s.close();
  await db.close();
});

test('what is propagated: writes as given, no-ops nothing, BZPOPMIN as ZPOPMIN', async () => {
  const db = await open();
  const log = recordPropagation(db);
  await db.call('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c');
  await db.call('ZADD', 'z', 'NX', '5', 'a');
  await db.call('ZADD', 'z', '1', 'a');
  await db.call('ZINCRBY', 'z', '0.5', 'a');
  await db.call('ZREM', 'z', 'nope');
  await db.call('ZREMRANGEBYSCORE', 'z', '100', '200');
  await db.call('BZPOPMIN', 'empty', 'z', '0');
  await db.call('BZPOPMAX', 'z', '0');
  await db.call('ZPOPMIN', 'z', '5');
  await db.call('ZPOPMIN', 'z', '5');
  assert.deepEqual(log, ['ZADD z 1 a 2 b 3 c', 'ZINCRBY z 0.5 a', 'ZPOPMIN z', 'ZPOPMAX z', 'ZPOPMIN z 5']);
  await db.close();
});

test('WATCH sees ZADD/ZREM/ZPOPMIN changes but not no-ops', async () => {
  const db = await open();
  const watcher = db.session();
  const other = db.session();
  await db.call('ZADD', 'z', '1', 'a');
  const attempt = async (change: string[]): Promise<unknown> => {
    await watcher.call('WATCH', 'z');
    await other.call(...change);
    await watcher.call('MULTI');
    await watcher.call('ZCARD', 'z');
    return watcher.call('EXEC');
  };
  assert.deepEqual(await attempt(['ZADD', 'z', '1', 'a']), [1], 'same score: no change');
  assert.equal(await attempt(['ZADD', 'z', '2', 'a']), null);
  assert.deepEqual(await attempt(['ZREM', 'z', 'nope']), [1]);
  assert.equal(await attempt(['ZINCRBY', 'z', '1', 'b']), null);
  assert.equal(await attempt(['ZPOPMIN', 'z']), null);
  watcher.close();
  other.close();
  await db.close();
});

test('keyspace commands on a sorted set: TYPE, RENAME, EXPIRE, DEL, SCAN TYPE', async () => {
  const db = await open();
  await db.call('ZADD', 'z', '1', 'a');
  assert.equal(await db.call('TYPE', 'z'), 'zset');
  assert.equal(await db.call('RENAME', 'z', 'y'), 'OK');
  assert.deepEqual(await db.call('ZRANGE', 'y', '0', '-1', 'WITHSCORES'), ['a', '1']);
  assert.equal(await db.call('PEXPIRE', 'y', '100000'), 1);
  assert.ok((await db.call('PTTL', 'y')) as number > 0);
  await db.call('SET', 'str', 'v');
  assert.deepEqual(await db.call('SCAN', '0', 'TYPE', 'zset'), ['0', ['y']]);
  await assert.rejects(db.call('ZADD', 'str', '1', 'a'), /^ReplyError: WRONGTYPE/);
  assert.equal(await db.call('DEL', 'y'), 1);
  await db.close();
});

test('ZSCAN over a big set returns every member once across calls, with members changing meanwhile', async () => {
  const db = await open();
  const members: string[] = [];
  for (let i = 0; i < 1000; i++) members.push(String(i % 10), `m${i}`);
  await db.call('ZADD', 'big', ...members);
  const seen = new Map<string, number>();
  let cursor = '0';
  let calls = 0;
  do {
    const [next, pairs] = (await db.call('ZSCAN', 'big', cursor, 'COUNT', '50')) as [string, string[]];
    for (let i = 0; i < pairs.length; i += 2) seen.set(pairs[i]!, (seen.get(pairs[i]!) ?? 0) + 1);
    // Churn: new members and removed ones; those present throughout must still come once.
    await db.call('ZADD', 'big', '5', `new${calls}`);
    await db.call('ZREM', 'big', `m${999 - calls}`);
    cursor = next;
    calls++;
  } while (cursor !== '0');
  assert.ok(calls > 10, 'COUNT 50 over 1000 members takes several calls');
  for (let i = 0; i < 1000 - calls; i++) assert.equal(seen.get(`m${i}`), 1, `m${i}`);
  for (const n of seen.values()) assert.equal(n, 1);
  await db.close();
});
