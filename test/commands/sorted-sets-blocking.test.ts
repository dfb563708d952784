// BZPOPMIN / BZPOPMAX with several sessions of one embedded database: woken by ZADD from
// another client in FIFO order, timing out with a null array, never blocking inside MULTI,
// and logged as the ZPOPMIN/ZPOPMAX that was served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { recordPropagation } from './keys-helpers.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

test('a blocked BZPOPMIN is woken by ZADD from another client and pops the lowest', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const pending = db.session().call('BZPOPMIN', 'z', '0');
  assert.equal(instanceBehind(db).blockedClientCount(), 1);
  await db.call('ZADD', 'z', '5', 'high', '1', 'low');
  assert.deepEqual(await pending, ['z', 'low', '1']);
  assert.equal(instanceBehind(db).blockedClientCount(), 0);
  assert.deepEqual(await db.call('ZRANGE', 'z', '0', '-1'), ['high']);
  assert.deepEqual(log, ['ZADD z 5 high 1 low', 'ZPOPMIN z']);
  await db.close();
});

test('blocked clients are served first come first served, one member each', async () => {
  const db = await open();
  const first = db.session().call('BZPOPMAX', 'z', '0');
  const second = db.session().call('BZPOPMAX', 'z', '0');
  const third = db.session().call('BZPOPMAX', 'z', '0');
  await db.call('ZADD', 'z', '1', 'a', '2', 'b');
  assert.deepEqual(await first, ['z', 'b', '2']);
  assert.deepEqual(await second, ['z', 'a', '1']);
  assert.equal(instanceBehind(db).blockedClientCount(), 1, 'nothing left for the third');
  assert.equal(await db.call('EXISTS', 'z'), 0, 'the popped-empty key is gone');
  await db.call('ZADD', 'z', '3', 'c');
  assert.deepEqual(await third, ['z', 'c', '3']);
  await db.close();
});

test('blocked on several keys, the reply names the key that got members', async () => {
  const db = await open();
  const pending = db.session().call('BZPOPMIN', 'a', 'b', '0');
  await db.call('ZADD', 'b', '7', 'm');
  assert.deepEqual(await pending, ['b', 'm', '7']);
  await db.close();
});

test('the timeout replies a null array; a fractional timeout in seconds', async () => {
  const db = await open();
  const started = Date.now();
  assert.equal(await db.session().call('BZPOPMIN', 'z', '0.05'), null);
  assert.ok(Date.now() - started >= 45, 'waited about 50 ms');
  assert.equal(instanceBehind(db).blockedClientCount(), 0);
  await db.close();
});

test('inside MULTI an empty BZPOPMIN replies a null array at once; a non-empty one pops', async () => {
  const db = await open();
  await db.call('MULTI');
  await db.call('BZPOPMIN', 'z', '0');
  await db.call('ZADD', 'z', '1', 'a');
  await db.call('BZPOPMIN', 'z', '0');
  assert.deepEqual(await db.call('EXEC'), [null, 1, ['z', 'a', '1']]);
  assert.equal(instanceBehind(db).blockedClientCount(), 0);
  await db.close();
});

test('a key set to another type keeps the client blocked; a later sorted set serves it', async () => {
  const db = await open();
  const pending = db.session().call('BZPOPMIN', 'k', '0');
  await db.call('SET', 'k', 'string');
  assert.equal(instanceBehind(db).blockedClientCount(), 1);
  await db.call('DEL', 'k');
  await db.call('ZADD', 'k', '2', 'x');
  assert.deepEqual(await pending, ['k', 'x', '2']);
  await db.close();
});

test('ZADD inside MULTI serves the blocked client after EXEC, with the final state', async () => {
  const db = await open();
  const pending = db.session().call('BZPOPMIN', 'z', '0');
  await db.call('MULTI');
  await db.call('ZADD', 'z', '5', 'a');
  await db.call('ZADD', 'z', '1', 'b');
  await db.call('EXEC');
  assert.deepEqual(await pending, ['z', 'b', '1']);
  await db.close();
});
