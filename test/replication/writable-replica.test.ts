// A writable replica (replica-read-only no), as Redis 7.0: keys its own clients give a TTL expire
// there (Redis's slaveKeysWithExpire), a key from the primary that expired reads as missing and
// is left for the primary's DEL, except that a local write meeting it removes it first.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startSluiceServer, type SluiceServer } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { caughtUp } from './helpers.js';

let primary: SluiceServer;
let replica: SluiceServer;
let p: Redis;
let r: Redis;

before(async () => {
  primary = await startSluiceServer(['--enable-debug-command', 'yes']);
  replica = await startSluiceServer(['--replicaof', `127.0.0.1 ${primary.port}`]);
  p = new Redis(primary.port, { lazyConnect: true });
  r = new Redis(replica.port, { lazyConnect: true });
  await r.config('SET', 'replica-read-only', 'no');
});

after(async () => {
  p?.disconnect();
  r?.disconnect();
  await replica?.stop();
  await primary?.stop();
});

test("keys a writable replica's own clients set with a TTL expire on the replica", async () => {
  await caughtUp(p, r);
  await r.select(5);
  await r.set('local1', '1', 'PX', '100');
  await r.set('local2', '2', 'PX', '100');
  assert.equal(await r.dbsize(), 2);
  await waitFor(async () => (await r.dbsize()) === 0, 'the local keys to expire on the replica');
  await r.select(0);
});

test("a primary's expired key reads as missing on the replica; a local write removes and re-creates it", async () => {
  await p.call('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
  await p.set('k1', '5', 'PX', '10');
  await p.set('k2', '5', 'PX', '10');
  await caughtUp(p, r);
  await waitFor(async () => (await r.exists('k1', 'k2')) === 0, 'the keys to read as expired');
  assert.equal(await r.dbsize(), 2); // still there: the primary has not deleted them
  assert.equal(await r.incr('k1'), 1); // the write removed the expired key first
  assert.equal(await r.ttl('k1'), -1);
  assert.equal(await r.get('k2'), null);
  assert.equal(await r.dbsize(), 2);
  await p.call('DEBUG', 'SET-ACTIVE-EXPIRE', '1');
});
