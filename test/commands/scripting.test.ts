// The scripting commands where sluice, having no Lua engine, answers in its own documented way
// (the rest is compared byte for byte with redis-server in test/differential/scripting.cases.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open, ReplyError } from '../../src/client/embedded.js';
import { MapReply } from '../../src/resp/reply.js';
import { recordPropagation } from './keys-helpers.js';
import { callRaw } from '../../src/client/embedded-internals.js';

test('EVAL and SCRIPT LOAD with a body say scripting is not supported', async () => {
  const db = await open();
  await assert.rejects(db.call('EVAL', 'return 1', 0), new ReplyError('ERR sluice does not support Lua scripting: EVAL cannot run scripts'));
  await assert.rejects(db.call('EVAL_RO', 'return 1', 1, 'k'), /sluice does not support Lua scripting/);
  await assert.rejects(db.call('SCRIPT', 'LOAD', 'return 1'), /sluice does not support Lua scripting: SCRIPT LOAD/);
  await db.close();
});

test('FUNCTION LOAD of well-formed metadata fails as Redis does for a missing engine', async () => {
  const db = await open();
  await assert.rejects(db.call('FUNCTION', 'LOAD', "#!lua name=mylib\nredis.register_function('f', function() return 1 end)"), new ReplyError("ERR Engine 'lua' not found"));
  await assert.rejects(db.call('FUNCTION', 'LOAD', 'REPLACE', '#!LUA name=x\n'), new ReplyError("ERR Engine 'LUA' not found"));
  assert.deepEqual(await db.call('FUNCTION', 'LIST'), []);
  await db.close();
});

test('FUNCTION STATS: no running script and an empty engines map', async () => {
  const db = await open();
  const stats = await callRaw(db, 'FUNCTION', 'STATS');
  assert.ok(stats instanceof MapReply);
  assert.deepEqual(stats.entries[0], ['running_script', null]);
  assert.equal(stats.entries[1]![0], 'engines');
  assert.deepEqual(stats.entries[1]![1], new MapReply([]));
  await db.close();
});

test('FUNCTION DUMP is the empty payload redis-server produces, and RESTORE takes it back', async () => {
  const db = await open();
  const payload = (await callRaw(db, 'FUNCTION', 'DUMP')) as Buffer;
  assert.equal(payload.toString('hex'), '0a005d9b5c400f7fa2da');
  for (const policy of [[], ['FLUSH'], ['append'], ['REPLACE']]) {
    assert.equal(await db.call('FUNCTION', 'RESTORE', payload, ...policy), 'OK');
  }
  const corrupt = Buffer.from(payload);
  corrupt[9] ^= 1;
  await assert.rejects(db.call('FUNCTION', 'RESTORE', corrupt), new ReplyError('ERR DUMP payload version or checksum are wrong'));
  // A library dumped by redis-server 7.0.15: valid, but there is no engine to load it into.
  const redisDump = Buffer.from(
    "\xf5@F#!lua name=mylib\nredis.register_function('f', function() return 1 end)\n\x00\xc51\xde\xfcO\xf4E\x99",
    'latin1',
  );
  await assert.rejects(db.call('FUNCTION', 'RESTORE', redisDump), new ReplyError("ERR Engine 'lua' not found"));
  await db.close();
});

test('FUNCTION FLUSH, SCRIPT FLUSH and RESTORE of nothing log nothing to the AOF', async () => {
  const db = await open();
  const log = recordPropagation(db);
  await db.call('FUNCTION', 'FLUSH');
  await db.call('SCRIPT', 'FLUSH', 'SYNC');
  await db.call('FUNCTION', 'RESTORE', (await callRaw(db, 'FUNCTION', 'DUMP')) as Buffer);
  await db.call('SET', 'k', 'v');
  assert.deepEqual(log, ['SET k v']);
  await db.close();
});
