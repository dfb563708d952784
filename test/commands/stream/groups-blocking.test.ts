// Blocking XREADGROUP with two sessions of one embedded database: woken by XADD in FIFO order,
// failed with Redis 7.0's errors when the key or the group goes away, never blocking in MULTI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReplyError } from '../../../src/client/embedded.js';
import { groupDb } from './groups-helpers.js';
import { instanceBehind } from '../../../src/commands/core/instance-handles.js';

test('a blocked XREADGROUP is served by XADD and the entry becomes pending', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const reader = t.db.session();
  const pending = reader.call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>');
  assert.equal(instanceBehind(t.db).blockedClientCount(), 1);
  await t.call('XADD', 's', '1-1', 'f', 'v');
  assert.deepEqual(await pending, [['s', [['1-1', ['f', 'v']]]]]);
  assert.equal(instanceBehind(t.db).blockedClientCount(), 0);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [1, '1-1', '1-1', [['c', '1']]]);
  await t.db.close();
});

test('blocked on several streams, the reply names only the stream that got data', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 'a', 'g', '$', 'MKSTREAM');
  await t.call('XGROUP', 'CREATE', 'b', 'g', '$', 'MKSTREAM');
  const reader = t.db.session();
  const pending = reader.call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 5, 'BLOCK', 0, 'STREAMS', 'a', 'b', '>', '>');
  await t.call('XADD', 'b', '1-1', 'f', 'v');
  assert.deepEqual(await pending, [['b', [['1-1', ['f', 'v']]]]]);
  await t.db.close();
});

test('blocked readers of one group are served first come first served, COUNT each', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const first = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 1, 'BLOCK', 0, 'STREAMS', 's', '>');
  const second = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', 1, 'BLOCK', 0, 'STREAMS', 's', '>');
  await t.call('XADD', 's', '1-1', 'f', 'v');
  assert.deepEqual(await first, [['s', [['1-1', ['f', 'v']]]]]);
  // One entry, one reader: the other stays blocked until the next XADD.
  assert.equal(instanceBehind(t.db).blockedClientCount(), 1);
  await t.call('XADD', 's', '2-1', 'f', 'w');
  assert.deepEqual(await second, [['s', [['2-1', ['f', 'w']]]]]);
  await t.db.close();
});

test('deleting or overwriting the key unblocks with UNBLOCKED, destroying the group with NOGROUP', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const onDelete = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>');
  await t.call('DEL', 's');
  await assert.rejects(onDelete, new ReplyError('UNBLOCKED the stream key no longer exists'));

  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const onOverwrite = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>');
  await t.call('SET', 's', 'x');
  await assert.rejects(onOverwrite, new ReplyError('UNBLOCKED the stream key no longer exists'));

  await t.call('DEL', 's');
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const onDestroy = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>');
  await t.call('XGROUP', 'DESTROY', 's', 'g');
  await assert.rejects(onDestroy, new ReplyError('NOGROUP the consumer group this client was blocked on no longer exists'));
  await t.db.close();
});

test('inside MULTI, XREADGROUP BLOCK replies a null array at once', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const session = t.db.session();
  await session.call('MULTI');
  await session.call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>');
  assert.deepEqual(await session.call('EXEC'), [null]);
  assert.equal(instanceBehind(t.db).blockedClientCount(), 0);
  await t.db.close();
});

test('a block that times out replies null and creates no consumer', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  assert.equal(await t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 5, 'STREAMS', 's', '>'), null);
  assert.deepEqual(await t.call('XINFO', 'CONSUMERS', 's', 'g'), []);
  await t.db.close();
});

test('a blocked reader served by XADD propagates its claim like a direct read', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const pending = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>');
  t.log.length = 0;
  await t.call('XADD', 's', '1-1', 'f', 'v');
  await pending;
  assert.deepEqual(t.log, [
    'XADD s 1-1 f v',
    `XCLAIM s g c 0 1-1 TIME ${t.clock.now} RETRYCOUNT 1 FORCE JUSTID LASTID 1-1`,
  ]);
  await t.db.close();
});

test('FLUSHALL, FLUSHDB, SWAPDB and RENAME of another type onto the key fail a blocked XREADGROUP at once; XREAD keeps waiting', async () => {
  const t = await groupDb();
  for (const change of [['FLUSHALL'], ['FLUSHDB'], ['RENAME', 'str', 's'], ['SWAPDB', '0', '1']]) {
    await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    await t.call('SET', 'str', 'v');
    const blocked = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 5000, 'STREAMS', 's', '>'); // nil at the timeout if not woken
    await t.call(...change);
    await assert.rejects(blocked, (err: ReplyError) => err.message === 'UNBLOCKED the stream key no longer exists', change.join(' '));
    await t.call('FLUSHALL');
  }
  // A plain XREAD on a flushed key waits for the key to come back, as Redis 7.0.
  await t.call('XADD', 'x', '1-1', 'f', 'v');
  const reader = t.db.session();
  const waiting = reader.call('XREAD', 'BLOCK', 0, 'STREAMS', 'x', '$');
  await t.call('FLUSHALL');
  assert.equal(instanceBehind(t.db).blockedClientCount(), 1);
  await t.call('XADD', 'x', '2-1', 'f', 'w');
  assert.deepEqual(await waiting, [['x', [['2-1', ['f', 'w']]]]]);
  await t.db.close();
});

test('an error that ends a block counts in INFO errorstats and the command\'s failed_calls (XGROUP DESTROY -> NOGROUP)', async () => {
  const t = await groupDb();
  await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
  const blocked = t.db.session().call('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 5000, 'STREAMS', 's', '>');
  await t.call('XGROUP', 'DESTROY', 's', 'g');
  await assert.rejects(blocked, /^ReplyError: NOGROUP|NOGROUP/);
  assert.match(String(await t.call('INFO', 'errorstats')), /errorstat_NOGROUP:count=1\r?\n/);
  assert.match(String(await t.call('INFO', 'commandstats')), /cmdstat_xreadgroup:calls=1,.*,rejected_calls=0,failed_calls=1\r?\n/);
  await t.db.close();
});
