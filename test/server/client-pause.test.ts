// CLIENT PAUSE / UNPAUSE across connections, on sluice server and on redis-server 7.0.15 with
// the same script and the same expectations: under WRITE, reads are served while writes and
// may-replicate commands (PUBLISH) wait, counted as blocked clients, and run when unpaused; a key
// past its expiry reads as gone but stays in the dataset until the pause ends (no DEL is
// propagated meanwhile); under ALL every command waits until the pause times out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { installed, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { waitFor, within } from '../support/wait.js';

const field = (info: string, name: string): string | undefined => new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];

const backends: Array<{ name: string; start: () => Promise<{ port: number; stop: () => Promise<void> }> }> = [
  {
    name: 'sluice server',
    start: async () => {
      const s: SluiceServer = await startSluiceServer();
      return { port: s.port, stop: () => s.stop() };
    },
  },
  {
    name: 'redis-server',
    start: async () => {
      const r: RedisServer = await startRedisServer();
      return { port: r.port, stop: () => stopChild(r.child) };
    },
  },
];

for (const backend of backends) {
  describe(`CLIENT PAUSE on ${backend.name}`, { skip: backend.name === 'redis-server' && !installed('redis-server') && 'redis-server is not installed' }, () => {
    let server: { port: number; stop: () => Promise<void> };
    let admin: Redis;
    let other: Redis;
    let third: Redis;

    before(async () => {
      server = await backend.start();
      admin = new Redis(server.port, { lazyConnect: true });
      other = new Redis(server.port, { lazyConnect: true });
      third = new Redis(server.port, { lazyConnect: true });
      await admin.flushall();
    });

    after(async () => {
      for (const c of [admin, other, third]) c?.disconnect();
      await server?.stop();
    });

    const blocked = async (): Promise<string | undefined> => field(String(await admin.info('clients')), 'blocked_clients');

    test('WRITE: reads served, writes and PUBLISH wait (blocked) and run once unpaused', async () => {
      await admin.set('k', 'before');
      assert.equal(await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE'), 'OK');
      assert.equal(await other.get('k'), 'before');
      const write = other.set('k', 'during');
      const publish = third.publish('ch', 'm');
      await waitFor(async () => (await blocked()) === '2', 'the write and the PUBLISH to wait');
      assert.match(String(await admin.call('CLIENT', 'LIST')), / flags=b /);
      assert.equal(await admin.get('k'), 'before');
      assert.equal(await admin.call('CLIENT', 'UNPAUSE'), 'OK');
      assert.equal(await within(write, 'the write to run'), 'OK');
      assert.equal(await within(publish, 'the PUBLISH to run'), 0);
      assert.equal(await admin.get('k'), 'during');
      assert.equal(await blocked(), '0');
    });

    test('WRITE: an expired key reads as gone but is kept until the pause ends', async () => {
      await admin.call('DEBUG', 'SET-ACTIVE-EXPIRE', '1').catch(() => undefined);
      await admin.set('short', 'v', 'PX', 50);
      assert.equal(await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE'), 'OK');
      try {
        await waitFor(async () => (await admin.get('short')) === null, 'the key to read as expired');
        assert.equal(await admin.exists('short'), 0);
        assert.equal(await admin.dbsize(), 2, 'still in the dataset (k and short)');
        assert.equal(field(String(await admin.info('stats')), 'expired_keys'), '0');
      } finally {
        await admin.call('CLIENT', 'UNPAUSE');
      }
      await waitFor(async () => (await admin.dbsize()) === 1, 'the key to be expired after the pause');
      assert.equal(field(String(await admin.info('stats')), 'expired_keys'), '1');
    });

    test('ALL: every command waits until the pause times out', async () => {
      assert.equal(await admin.call('CLIENT', 'PAUSE', '200', 'ALL'), 'OK');
      const read = other.get('k');
      const ping = third.ping();
      assert.equal(await within(read, 'the read to run after the pause'), 'during');
      assert.equal(await within(ping, 'PING to run after the pause'), 'PONG');
      assert.equal(await blocked(), '0');
    });
  });
}
