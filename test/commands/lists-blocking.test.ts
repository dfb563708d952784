// Blocking list pops with several sessions of one embedded database: woken by a push from
// another client, served first come first served, BLMOVE chains, timeouts, MULTI, and what each
// served pop propagates to the AOF (the plain command it amounts to, never the blocking one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open, ReplyError } from '../../src/client/embedded.js';
import { recordPropagation } from './keys-helpers.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

test('BLPOP is woken by a push from another client, and the pop is logged as LPOP', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const pending = db.session().call('BLPOP', 'q', 0);
  assert.equal(instanceBehind(db).blockedClientCount(), 1);
  assert.equal(await db.call('RPUSH', 'q', 'a', 'b'), 2);
  assert.deepEqual(await pending, ['q', 'a']);
  assert.equal(instanceBehind(db).blockedClientCount(), 0);
  assert.deepEqual(await db.call('LRANGE', 'q', 0, -1), ['b']);
  assert.deepEqual(log, ['RPUSH q a b', 'LPOP q']);
  await db.close();
});

test('two blocked clients are served in the order they blocked, one element each', async () => {
  const db = await open();
  const first = db.session().call('BRPOP', 'q', 0);
  const second = db.session().call('BRPOP', 'q', 0);
  assert.equal(await db.call('LPUSH', 'q', 'x'), 1);
  assert.deepEqual(await first, ['q', 'x']);
  assert.equal(instanceBehind(db).blockedClientCount(), 1, 'one element, one client served');
  assert.equal(await db.call('EXISTS', 'q'), 0);
  await db.call('LPUSH', 'q', 'y', 'z');
  assert.deepEqual(await second, ['q', 'y']);
  await db.close();
});

test('a client blocked on several keys is served from the key that became ready', async () => {
  const db = await open();
  const pending = db.session().call('BLPOP', 'a', 'b', 'c', 0);
  const tx = db.session();
  await tx.call('MULTI');
  await tx.call('RPUSH', 'c', 'from-c');
  await tx.call('RPUSH', 'a', 'from-a');
  await tx.call('EXEC');
  // c was signalled first inside the transaction, as Redis's ready-key order.
  assert.deepEqual(await pending, ['c', 'from-c']);
  assert.deepEqual(await db.call('LRANGE', 'a', 0, -1), ['from-a']);
  await db.close();
});

test('BLMPOP pops up to COUNT and is logged as LPOP key n', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const pending = db.session().call('BLMPOP', 0, 2, 'a', 'b', 'RIGHT', 'COUNT', 5);
  await db.call('RPUSH', 'b', '1', '2', '3');
  assert.deepEqual(await pending, ['b', ['3', '2', '1']]);
  assert.deepEqual(log, ['RPUSH b 1 2 3', 'RPOP b 3']);
  await db.close();
});

test('BLMOVE wake-ups chain: a move into a list serves the client blocked on it', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const mover = db.session().call('BLMOVE', 'a', 'b', 'LEFT', 'RIGHT', 0);
  const mover2 = db.session().call('BRPOPLPUSH', 'b', 'c', 0);
  const reader = db.session().call('BLPOP', 'c', 0);
  await db.call('RPUSH', 'a', 'v');
  assert.equal(await mover, 'v');
  assert.equal(await mover2, 'v');
  assert.deepEqual(await reader, ['c', 'v']);
  assert.equal(await db.call('DBSIZE'), 0);
  assert.deepEqual(log, ['RPUSH a v', 'LMOVE a b left right', 'RPOPLPUSH b c', 'LPOP c']);
  await db.close();
});

test('a blocked BLMOVE whose destination became another type fails with WRONGTYPE and pops nothing', async () => {
  const db = await open();
  const mover = db.session().call('BLMOVE', 'a', 'dst', 'LEFT', 'RIGHT', 0);
  await db.call('SET', 'dst', 'x');
  await db.call('RPUSH', 'a', 'v');
  await assert.rejects(mover, new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'));
  assert.deepEqual(await db.call('LRANGE', 'a', 0, -1), ['v']);
  await db.close();
});

test('a key of another type does not serve list clients; they stay blocked', async () => {
  const db = await open();
  const pending = db.session().call('BLPOP', 'k', 0);
  await db.call('SET', 'k', 'x');
  assert.equal(instanceBehind(db).blockedClientCount(), 1);
  await db.call('DEL', 'k');
  await db.call('RPUSH', 'k', 'v');
  assert.deepEqual(await pending, ['k', 'v']);
  await db.close();
});

test('timeouts: null array for every blocking list command after the timeout', async () => {
  const db = await open();
  const started = Date.now();
  assert.equal(await db.call('BLPOP', 'q', '0.05'), null);
  assert.ok(Date.now() - started >= 45, 'waited for the timeout');
  assert.equal(await db.call('BLMOVE', 'q', 'r', 'LEFT', 'LEFT', '0.02'), null);
  assert.equal(await db.call('BLMPOP', '0.02', 1, 'q', 'LEFT'), null);
  assert.equal(instanceBehind(db).blockedClientCount(), 0);
  await assert.rejects(db.call('BLPOP', 'q', '-1'), new ReplyError('ERR timeout is negative'));
  await assert.rejects(db.call('BLPOP', 'q', 'x'), new ReplyError('ERR timeout is not a float or out of range'));
  await db.close();
});

test('inside MULTI the blocking pops do not block and the EXEC logs plain pops', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const s = db.session();
  await s.call('MULTI');
  await s.call('BLPOP', 'q', 0);
  await s.call('RPUSH', 'q', 'a', 'b');
  await s.call('BRPOP', 'q', 0);
  await s.call('BLMOVE', 'q', 'r', 'LEFT', 'LEFT', 0);
  assert.deepEqual(await s.call('EXEC'), [null, 2, ['q', 'b'], 'a']);
  assert.deepEqual(log, ['RPUSH q a b', 'RPOP q', 'LMOVE q r LEFT LEFT']);
  await db.close();
});

test('a disconnected blocked client is forgotten; the next one gets the element', async () => {
  const db = await open();
  const leaving = db.session();
  void leaving.call('BLPOP', 'q', 0);
  const staying = db.session().call('BLPOP', 'q', 0);
  leaving.close();
  await db.call('RPUSH', 'q', 'v');
  assert.deepEqual(await staying, ['q', 'v']);
  await db.close();
});
