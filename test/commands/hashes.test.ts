// Hash commands through the embedded client.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { encodeReply } from '../../src/resp/encoder.js';
import { recordPropagation } from './keys-helpers.js';
import { callRaw } from '../../src/client/embedded-internals.js';

const WRONGTYPE = /^ReplyError: WRONGTYPE Operation against a key holding the wrong kind of value$/;

test('HSET / HGET / HMGET / HGETALL keep insertion order', async () => {
  const db = await open();
  assert.equal(await db.call('HSET', 'h', 'b', '2', 'a', '1'), 2);
  assert.equal(await db.call('HSET', 'h', 'b', '20', 'c', '3'), 1);
  assert.deepEqual(await db.call('HGETALL', 'h'), ['b', '20', 'a', '1', 'c', '3']);
  assert.equal(encodeReply(await callRaw(db, 'HGETALL', 'h'), 3).toString('latin1', 0, 2), '%3', 'HGETALL is a map (RESP3 %)');
  assert.deepEqual(await db.call('HKEYS', 'h'), ['b', 'a', 'c']);
  assert.deepEqual(await db.call('HVALS', 'h'), ['20', '1', '3']);
  assert.deepEqual(await db.call('HMGET', 'h', 'a', 'zz'), ['1', null]);
  assert.equal(await db.call('HGET', 'h', 'zz'), null);
  assert.equal(await db.call('HMSET', 'h', 'd', '4'), 'OK');
  assert.equal(await db.call('HSETNX', 'h', 'd', 'x'), 0);
  assert.equal(await db.call('HSETNX', 'h', 'e', '5'), 1);
  assert.equal(await db.call('HLEN', 'h'), 5);
  assert.equal(await db.call('HEXISTS', 'h', 'e'), 1);
  assert.equal(await db.call('HSTRLEN', 'h', 'b'), 2);
  assert.deepEqual(await db.call('HGETALL', 'nokey'), []);
  await assert.rejects(db.call('HSET', 'h', 'a', '1', 'b'), /^ReplyError: ERR wrong number of arguments for 'hset' command$/);
  await db.close();
});

test('HDEL deletes the key with its last field', async () => {
  const db = await open();
  await db.call('HSET', 'h', 'a', '1', 'b', '2');
  assert.equal(await db.call('HDEL', 'h', 'a', 'a', 'zz'), 1);
  assert.equal(await db.call('HDEL', 'h', 'b'), 1);
  assert.equal(await db.call('EXISTS', 'h'), 0);
  assert.equal(await db.call('HDEL', 'h', 'b'), 0);
  await db.close();
});

test('HINCRBY / HINCRBYFLOAT, with errors and the logged form', async () => {
  const db = await open();
  const log = recordPropagation(db);
  assert.equal(await db.call('HINCRBY', 'h', 'n', '5'), 5);
  assert.equal(await db.call('HINCRBY', 'h', 'n', '-7'), -2);
  await db.call('HSET', 'h', 'big', '9223372036854775807', 's', 'x');
  await assert.rejects(db.call('HINCRBY', 'h', 'big', '1'), /^ReplyError: ERR increment or decrement would overflow$/);
  await assert.rejects(db.call('HINCRBY', 'h', 's', '1'), /^ReplyError: ERR hash value is not an integer$/);
  await assert.rejects(db.call('HINCRBY', 'h', 'n', 'x'), /^ReplyError: ERR value is not an integer or out of range$/);
  assert.equal(await db.call('HINCRBYFLOAT', 'h', 'f', '0.1'), '0.1');
  assert.equal(await db.call('HINCRBYFLOAT', 'h', 'f', '0.2'), '0.3');
  await assert.rejects(db.call('HINCRBYFLOAT', 'h', 's', '1'), /^ReplyError: ERR hash value is not a float$/);
  await assert.rejects(db.call('HINCRBYFLOAT', 'h', 'f', 'inf'), /^ReplyError: ERR value is NaN or Infinity$/);
  assert.deepEqual(log.slice(-2), ['HSET h f 0.1', 'HSET h f 0.3']);
  await db.close();
});

test('WRONGTYPE from hash commands; the string is untouched', async () => {
  const db = await open();
  await db.call('SET', 's', 'v');
  for (const cmd of [['HSET', 's', 'f', 'v'], ['HGET', 's', 'f'], ['HGETALL', 's'], ['HDEL', 's', 'f'], ['HLEN', 's'], ['HINCRBY', 's', 'f', '1']]) {
    await assert.rejects(db.call(...cmd), WRONGTYPE, cmd.join(' '));
  }
  assert.equal(await db.call('GET', 's'), 'v');
  await db.close();
});
