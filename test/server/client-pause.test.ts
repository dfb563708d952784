// CLIENT PAUSE / UNPAUSE across connections, on the embedded engine (sessions), sluice server
// and redis-server 7.0.15 with the same script and the same expectations: under WRITE, reads are served while writes and
// may-replicate commands (PUBLISH) wait, counted as blocked clients, and run when unpaused; a key
// past its expiry reads as gone but stays in the dataset until the pause ends (no DEL is
// propagated meanwhile); a script or function declared no-writes runs, one that may write
// waits; under ALL every command waits until the pause times out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { open } from '../../src/client/embedded.js';
import { installed, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { waitFor, within } from '../support/wait.js';

/** SCRIPT LOAD's answer: the script's SHA. */
const sha = async (call: Call, body: string): Promise<string> => String(await call('SCRIPT', 'LOAD', body));

const field = (info: string, name: string): string | undefined => new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];

/** One connection's way to run a command (an ioredis client, or an embedded session). */
type Call = (...argv: string[]) => Promise<unknown>;

interface Backend {
  /** Three connections to one server, and how to stop it. */
  connections: [Call, Call, Call];
  stop: () => Promise<void>;
}

const overTcp = async (port: number, stop: () => Promise<void>): Promise<Backend> => {
  const clients = [0, 1, 2].map(() => new Redis(port, { lazyConnect: true }));
  const calls = clients.map((c) => (...argv: string[]) => c.call(argv[0]!, ...argv.slice(1)));
  return {
    connections: calls as [Call, Call, Call],
    stop: async () => {
      for (const c of clients) c.disconnect();
      await stop();
    },
  };
};

const backends: Array<{ name: string; start: () => Promise<Backend> }> = [
  {
    name: 'the embedded engine',
    start: async () => {
      const db = await open();
      const sessions = [0, 1, 2].map(() => db.session());
      return { connections: sessions.map((s) => (...argv: string[]) => s.call(...argv)) as [Call, Call, Call], stop: () => db.close() };
    },
  },
  {
    name: 'sluice server',
    start: async () => {
      const s: SluiceServer = await startSluiceServer();
      return overTcp(s.port, () => s.stop());
    },
  },
  {
    name: 'redis-server',
    start: async () => {
      const r: RedisServer = await startRedisServer();
      return overTcp(r.port, () => stopChild(r.child));
    },
  },
];

for (const backend of backends) {
  describe(`CLIENT PAUSE on ${backend.name}`, { skip: backend.name === 'redis-server' && !installed('redis-server') && 'redis-server is not installed' }, () => {
    let server: Backend;
    let admin: Call;
    let other: Call;
    let third: Call;

    before(async () => {
      server = await backend.start();
      [admin, other, third] = server.connections;
      await admin('FLUSHALL');
    });

    after(() => server?.stop());

    const blocked = async (): Promise<string | undefined> => field(String(await admin('INFO', 'clients')), 'blocked_clients');

    test('WRITE: reads served, writes and PUBLISH wait (blocked) and run once unpaused', async () => {
      await admin('SET', 'k', 'before');
      assert.equal(await admin('CLIENT', 'PAUSE', '60000', 'WRITE'), 'OK');
      assert.equal(await other('GET', 'k'), 'before');
      const write = other('SET', 'k', 'during');
      const publish = third('PUBLISH', 'ch', 'm');
      await waitFor(async () => (await blocked()) === '2', 'the write and the PUBLISH to wait');
      assert.match(String(await admin('CLIENT', 'LIST')), / flags=b /);
      assert.equal(await admin('GET', 'k'), 'before');
      assert.equal(await admin('CLIENT', 'UNPAUSE'), 'OK');
      assert.equal(await within(write, 'the write to run'), 'OK');
      assert.equal(await within(publish, 'the PUBLISH to run'), 0);
      assert.equal(await admin('GET', 'k'), 'during');
      assert.equal(await blocked(), '0');
    });

    test('WRITE: an expired key reads as gone but is kept until the pause ends', async () => {
            await admin('SET', 'short', 'v', 'PX', '50');
      assert.equal(await admin('CLIENT', 'PAUSE', '60000', 'WRITE'), 'OK');
      try {
        await waitFor(async () => (await admin('GET', 'short')) === null, 'the key to read as expired');
        assert.equal(await admin('EXISTS', 'short'), 0);
        assert.equal(await admin('DBSIZE'), 2, 'still in the dataset (k and short)');
        assert.equal(field(String(await admin('INFO', 'stats')), 'expired_keys'), '0');
      } finally {
        await admin('CLIENT', 'UNPAUSE');
      }
      await waitFor(async () => (await admin('DBSIZE')) === 1, 'the key to be expired after the pause');
      assert.equal(field(String(await admin('INFO', 'stats')), 'expired_keys'), '1');
    });

    test('WRITE: scripts and functions declared no-writes run; others, and EXEC of them, wait', async () => {
      await admin('FUNCTION', 'LOAD', 'REPLACE', "#!lua name=pauselib\nredis.register_function{function_name='reader', callback=function() return 'r' end, flags={'no-writes'}}\nredis.register_function('writer', function() return redis.call('SET', 'k', 'by-function') end)");
      const readOnlyScript = "#!lua flags=no-writes\nreturn 'read-only'";
      await admin('SCRIPT', 'LOAD', readOnlyScript);
      assert.equal(await admin('CLIENT', 'PAUSE', '60000', 'WRITE'), 'OK');
      try {
        assert.equal(await other('EVAL', "#!lua flags=no-writes\nreturn 'uncached'", '0'), 'uncached');
        assert.equal(await other('EVALSHA', await sha(admin, readOnlyScript), '0'), 'read-only');
        assert.equal(await other('FCALL', 'reader', '0'), 'r');
        const compat = other('EVAL', "return redis.call('SET', 'k', 'by-script')", '0');
        const writer = third('FCALL', 'writer', '0');
        await waitFor(async () => (await blocked()) === '2', 'the script without flags and the writing function to wait');
        assert.equal(await admin('GET', 'k'), 'during');
        await admin('CLIENT', 'UNPAUSE');
        assert.equal(await within(compat, 'the script to run'), 'OK');
        assert.equal(await within(writer, 'the function to run'), 'OK');
      } finally {
        await admin('CLIENT', 'UNPAUSE');
      }
      await admin('SET', 'k', 'during');
      await admin('FUNCTION', 'DELETE', 'pauselib');
    });

    test('ALL: every command waits until the pause times out', async () => {
      assert.equal(await admin('CLIENT', 'PAUSE', '200', 'ALL'), 'OK');
      const read = other('GET', 'k');
      const ping = third('PING');
      assert.equal(await within(read, 'the read to run after the pause'), 'during');
      assert.equal(await within(ping, 'PING to run after the pause'), 'PONG');
      assert.equal(await blocked(), '0');
    });
  });
}
