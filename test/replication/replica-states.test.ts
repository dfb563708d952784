// A replica's link states as ROLE and INFO show them, compared with redis-server 7.0 as replica
// of the same fake primary: "handshake" from the PING to PSYNC's reply (a primary waiting out
// repl-diskless-sync-delay holds that reply; Redis's replication.tcl waits for this word), then
// "sync" with master_sync_in_progress:1 once +FULLRESYNC came and the RDB is on its way.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { installed, startRedisServer, startSluiceServer, type Spawned } from '../support/processes.js';
import { pollFor } from '../support/wait.js';
import { field, info } from './helpers.js';

/** A primary that answers the handshake, holds PSYNC's reply until `release()`, then sends +FULLRESYNC and no RDB. */
async function holdingPrimary(): Promise<{ port: number; release(): void; close(): void }> {
  const held: Socket[] = [];
  let released = false;
  const fullResync = (s: Socket): void => void s.write(`+FULLRESYNC ${'b'.repeat(40)} 0\r\n`);
  const server = createServer((socket) => {
    let text = '';
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (/PSYNC/i.test(text)) {
        text = '';
        held.push(socket);
        if (released) fullResync(socket);
      } else if (text.endsWith('\r\n') && text.split('\r\n').length - 1 >= 2 * Number(/^\*(\d+)/.exec(text)?.[1] ?? 0) + 1) {
        socket.write(/PING/i.test(text) ? '+PONG\r\n' : '+OK\r\n');
        text = '';
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    release: () => {
      released = true;
      for (const s of held) fullResync(s);
    },
    close: () => {
      for (const s of held) s.destroy();
      server.close();
    },
  };
}

const servers: Spawned[] = [];
after(async () => {
  for (const s of servers) await s.stop();
});

test('ROLE says handshake until PSYNC is answered, then sync (master_sync_in_progress:1), as redis-server', { skip: !installed('redis-server') && 'redis-server is not installed' }, async () => {
  const primary = await holdingPrimary();
  const sluice = await startSluiceServer();
  const redis = await startRedisServer();
  servers.push(sluice, redis);
  const clients = [new Redis(sluice.port, { lazyConnect: true }), new Redis(redis.port, { lazyConnect: true })];
  try {
    const states: string[][] = [];
    for (const c of clients) await c.replicaof('127.0.0.1', primary.port);
    for (const c of clients) {
      const role = await pollFor(async () => {
        const r = (await c.call('ROLE')) as unknown[];
        return r[3] === 'handshake' ? r : undefined;
      }, 'ROLE says handshake');
      assert.deepEqual(role.slice(0, 4), ['slave', '127.0.0.1', primary.port, 'handshake']);
      states.push([field(await info(c), 'master_sync_in_progress')!]);
    }
    primary.release();
    for (const [i, c] of clients.entries()) {
      await pollFor(async () => (((await c.call('ROLE')) as unknown[])[3] === 'sync' ? true : undefined), 'ROLE says sync');
      states[i]!.push(field(await info(c), 'master_sync_in_progress')!);
    }
    assert.deepEqual(states[0], ['0', '1']);
    assert.deepEqual(states[0], states[1]);
  } finally {
    for (const c of clients) {
      await c.replicaof('NO', 'ONE').catch(() => undefined);
      c.disconnect();
    }
    primary.close();
  }
});
