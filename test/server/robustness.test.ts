// Bugs in command handlers must not take the server down: a throwing handler gets an error
// reply, a reply that cannot be encoded drops only that connection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCommands } from '../../src/commands/index.js';
import { Instance } from '../../src/commands/core/instance.js';
import { command } from '../../src/commands/types.js';
import type { Reply } from '../../src/resp/reply.js';
import { startServer } from '../../src/server/server.js';
import { RespClient, error, simple } from './resp-client.js';

test('handler exceptions and unencodable replies never crash the server', async (t) => {
  const buggy = [
    command('boom', 1, [], null, () => {
      throw new TypeError('kaput');
    }),
    command('badreply', 1, [], null, () => [1, { not: 'a reply' }] as unknown as Reply),
    command('latebad', 1, [], null, () => Promise.resolve({ nope: true } as unknown as Reply)),
  ];
  const instance = new Instance([...allCommands, ...buggy]);
  const server = await startServer({ port: 0, instance });
  t.mock.method(console, 'error', () => {});
  try {
    const a = await RespClient.connect(server.port);
    assert.deepEqual(await a.call('BOOM'), error('ERR internal error: kaput'));
    assert.deepEqual(await a.call('PING'), simple('PONG'));
    const b = await RespClient.connect(server.port);
    b.send(['PING']);
    b.send(['BADREPLY']);
    await b.closedPromise;
    const c = await RespClient.connect(server.port);
    c.send(['LATEBAD']);
    await c.closedPromise;
    assert.deepEqual(await a.call('PING'), simple('PONG'));
    a.close();
  } finally {
    await server.close();
  }
});
