// Set commands through the embedded client.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { SetReply } from '../../src/resp/reply.js';
import { callRaw } from '../../src/client/embedded-internals.js';

test('SADD / SREM / SCARD / SISMEMBER / SMISMEMBER', async () => {
  const db = await open();
  assert.equal(await db.call('SADD', 's', 'a', 'b', 'a'), 2);
  assert.equal(await db.call('SADD', 's', 'b', 'c'), 1);
  assert.equal(await db.call('SCARD', 's'), 3);
  assert.equal(await db.call('SISMEMBER', 's', 'a'), 1);
  assert.equal(await db.call('SISMEMBER', 's', 'z'), 0);
  assert.deepEqual(await db.call('SMISMEMBER', 's', 'a', 'z', 'c'), [1, 0, 1]);
  assert.deepEqual(await db.call('SMISMEMBER', 'nokey', 'a'), [0]);
  assert.equal(await db.call('SREM', 's', 'a', 'a', 'z'), 1);
  assert.equal(await db.call('SREM', 's', 'b', 'c'), 2);
  assert.equal(await db.call('EXISTS', 's'), 0, 'the last SREM deletes the key');
  await db.close();
});

test('SMEMBERS is a set reply; integer sets come sorted as an intset', async () => {
  const db = await open();
  await db.call('SADD', 'ints', '10', '-3', '7', '0');
  const raw = await callRaw(db, 'SMEMBERS', 'ints');
  assert.ok(raw instanceof SetReply);
  assert.deepEqual(await db.call('SMEMBERS', 'ints'), ['-3', '0', '7', '10']);
  await db.call('SADD', 'mixed', 'b', '1', 'a');
  assert.deepEqual(((await db.call('SMEMBERS', 'mixed')) as string[]).sort(), ['1', 'a', 'b']);
  assert.deepEqual(await db.call('SMEMBERS', 'nokey'), []);
  await db.close();
});

test('receipts idiom: SADD reports first sightings only', async () => {
  const db = await open();
  const ids = ['o1', 'o2', 'o1', 'o3', 'o2'];
  const firsts: string[] = [];
  for (const id of ids) if ((await db.call('SADD', 'receipts', id)) === 1) firsts.push(id);
  assert.deepEqual(firsts, ['o1', 'o2', 'o3']);
  assert.equal(await db.call('SCARD', 'receipts'), 3);
  await db.close();
});

test('WRONGTYPE from set commands', async () => {
  const db = await open();
  await db.call('HSET', 'h', 'f', 'v');
  for (const cmd of [['SADD', 'h', 'm'], ['SREM', 'h', 'm'], ['SCARD', 'h'], ['SISMEMBER', 'h', 'm'], ['SMEMBERS', 'h']]) {
    await assert.rejects(db.call(...cmd), /^ReplyError: WRONGTYPE/, cmd.join(' '));
  }
  await db.close();
});
