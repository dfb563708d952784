// List commands through the embedded client: replies, key deletion when a list empties, and
// the deterministic forms they log for the AOF.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open, ReplyError } from '../../src/client/embedded.js';
import { recordPropagation } from './keys-helpers.js';

test('push, range, pop with count; the key goes away with its last element', async () => {
  const db = await open();
  assert.equal(await db.call('RPUSH', 'l', 'a', 'b', 'c'), 3);
  assert.equal(await db.call('LPUSH', 'l', 'z'), 4);
  assert.deepEqual(await db.call('LRANGE', 'l', 0, -1), ['z', 'a', 'b', 'c']);
  assert.equal(await db.call('TYPE', 'l'), 'list');
  assert.deepEqual(await db.call('RPOP', 'l', 2), ['c', 'b']);
  assert.deepEqual(await db.call('LPOP', 'l', 5), ['z', 'a']);
  assert.equal(await db.call('EXISTS', 'l'), 0);
  assert.equal(await db.call('LPOP', 'l'), null);
  await assert.rejects(db.call('LSET', 'l', 0, 'x'), new ReplyError('ERR no such key'));
  await db.call('RPUSH', 'l', 'a');
  await assert.rejects(db.call('LSET', 'l', 1, 'x'), new ReplyError('ERR index out of range'));
  await db.close();
});

test('what list commands log: LMPOP as LPOP key n, BLMOVE as LMOVE, no-op LTRIM not at all', async () => {
  const db = await open();
  const log = recordPropagation(db);
  await db.call('RPUSH', 'l', 'a', 'b', 'c');
  await db.call('LMPOP', 2, 'none', 'l', 'LEFT', 'COUNT', 10);
  await db.call('RPUSH', 'l', 'a', 'b', 'c');
  await db.call('LTRIM', 'l', 0, -1);
  await db.call('LREM', 'l', 0, 'zz');
  await db.call('LINSERT', 'l', 'BEFORE', 'zz', 'x');
  await db.call('BLMOVE', 'l', 'm', 'left', 'Right', 0);
  await db.call('BRPOPLPUSH', 'l', 'm', 0);
  await db.call('BLMPOP', 0, 1, 'l', 'RIGHT', 'COUNT', 3);
  await db.call('BRPOP', 'm', 0);
  assert.deepEqual(log, [
    'RPUSH l a b c',
    'LPOP l 3',
    'RPUSH l a b c',
    'LMOVE l m left Right',
    'RPOPLPUSH l m',
    'RPOP l 1',
    'RPOP m',
  ]);
  await db.close();
});

test('WATCH sees list changes, including an LTRIM that removes nothing', async () => {
  const db = await open();
  await db.call('RPUSH', 'l', 'a');
  const s = db.session();
  await s.call('WATCH', 'l');
  await db.call('LTRIM', 'l', 0, -1);
  await s.call('MULTI');
  await s.call('LLEN', 'l');
  assert.equal(await s.call('EXEC'), null);
  await db.close();
});
