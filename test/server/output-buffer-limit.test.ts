// client-output-buffer-limit, side by side with redis-server 7.0.15: a client that does not read
// its replies is disconnected at the hard limit, or after more than the soft seconds at the
// soft limit; with the default (normal 0 0 0) it is never disconnected, and sluice bounds its
// output by no longer reading from it (back-pressure), so it gets every reply once it reads.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { encodeCommand } from '../../src/resp/encoder.js';
import { waitFor } from '../support/wait.js';
import { startRedisProcess, startSluiceProcess, stopAll, type ServerProcess } from './processes.js';
import { RespClient, simple } from './resp-client.js';

after(stopAll);

const VALUE = 'x'.repeat(512 * 1024);

async function prepare(server: ServerProcess, limit: string | null): Promise<void> {
  const c = await RespClient.connect(server.port);
  assert.deepEqual(await c.call('SET', 'big', VALUE), simple('OK'));
  if (limit !== null) assert.deepEqual(await c.call('CONFIG', 'SET', 'client-output-buffer-limit', limit), simple('OK'));
  c.close();
}

/**
 * A client that sends GET big every 20 ms and reads nothing; resolves with the milliseconds
 * until the server closed it, or null if it was still open after `maxMs`.
 */
function nonReader(port: number, maxMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    socket.pause(); // never reads
    socket.on('error', () => {});
    const get = encodeCommand(['GET', 'big']);
    const timer = setInterval(() => socket.write(Buffer.concat(Array(8).fill(get))), 20);
    const finish = (ms: number | null) => {
      clearInterval(timer);
      clearTimeout(deadline);
      socket.destroy();
      resolve(ms);
    };
    const deadline = setTimeout(() => finish(null), maxMs);
    socket.on('close', () => finish(Date.now() - started));
  });
}

test('hard limit: a client that does not read is disconnected', async () => {
  for (const server of [await startSluiceProcess(), await startRedisProcess()]) {
    await prepare(server, 'normal 4mb 0 0');
    const closedAfter = await nonReader(server.port, 5000);
    assert.ok(closedAfter !== null && closedAfter < 3000, `${server.name} closed the client (${closedAfter} ms)`);
    const other = await RespClient.connect(server.port);
    assert.deepEqual(await other.call('PING'), simple('PONG'));
    other.close();
  }
});

test('soft limit: disconnected only after more than the soft seconds over it', async () => {
  for (const server of [await startSluiceProcess(), await startRedisProcess()]) {
    await prepare(server, 'normal 0 2mb 1');
    const closedAfter = await nonReader(server.port, 6000);
    assert.ok(closedAfter !== null, `${server.name} closed the client`);
    assert.ok(closedAfter >= 1000 && closedAfter < 4500, `${server.name} closed it after ${closedAfter} ms`);
  }
});

test('default limits: never disconnected; sluice holds its output bounded and delivers it all', async () => {
  const server = await startSluiceProcess();
  await prepare(server, null);
  const socket = net.connect(server.port, '127.0.0.1');
  socket.pause();
  await new Promise((r) => socket.once('connect', r));
  // 300 MB of replies: a server that buffered them all would grow by at least that much; RSS
  // is noisy (GC timing, a busy machine), so the bound is on growth and well below 300 MB.
  const requests = 600;
  const before = server.rss();
  socket.write(Buffer.concat(Array(requests).fill(encodeCommand(['GET', 'big']))));
  await new Promise((r) => setTimeout(r, 1500));
  const grown = server.rss() - before;
  assert.ok(socket.readyState === 'open', 'still connected');
  assert.ok(grown < 200 * 1024 * 1024, `RSS grew ${grown} bytes while 300 MB of replies are unread`);
  let received = 0;
  const want = requests * (VALUE.length + `$${VALUE.length}\r\n\r\n`.length);
  socket.on('data', (d: Buffer) => (received += d.length));
  socket.resume();
  await waitFor(() => received >= want, `${want} bytes of replies`, 60_000, 20);
  assert.equal(received, want);
  socket.destroy();
});
