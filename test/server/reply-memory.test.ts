// Memory a big reply took is given back once the reply is sent or its client is gone, side by
// side with redis-server 7.0: sluice kept ~640 MB of RSS after ten 60 MB XRANGE replies (a
// connection's encoder arena outlived the reply; the dropped Buffers waited for a collection
// that an idle server never starts). RSS is read from /proc; the bound is generous.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient } from './resp-client.js';

after(stopAll);

/** 10,000 entries of 4 KB: an XRANGE reply of ~40 MB. */
const ENTRIES = 10_000;
const REPLY = ENTRIES * 4096;
const CLIENTS = 6;


async function connected(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return socket;
}

for (const start of [startSluiceProcess, startRedisProcess]) {
  test(`${start.name}: big replies' memory is given back once their clients are gone`, { timeout: 90_000 }, async () => {
    const server = await start();
    const setup = await RespClient.connect(server.port);
    const value = 'x'.repeat(4096);
    for (let i = 0; i < ENTRIES; i += 500) {
      await Promise.all(Array.from({ length: 500 }, () => setup.call('XADD', 's', '*', 'f', value)));
    }
    setup.close();
    await sleep(1000);
    const baseline = server.rss();

    // Six clients that ask for the whole stream, never read, and leave.
    const idle: net.Socket[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const socket = await connected(server.port);
      socket.pause();
      socket.write('XRANGE s - +\r\n');
      idle.push(socket);
    }
    // Until the server holds the replies (most of each is past the socket buffers), then a
    // while for any collection that allocating them started.
    let peak = server.rss();
    for (let i = 0; i < 200 && peak < baseline + (CLIENTS - 1) * REPLY; i++) {
      await sleep(50);
      peak = server.rss();
    }
    assert.ok(peak >= baseline + (CLIENTS - 1) * REPLY, `the replies never piled up: ${peak >> 20} MB vs ${baseline >> 20} MB`);
    for (let i = 0; i < 20; i++) {
      await sleep(100);
      peak = Math.max(peak, server.rss());
    }
    for (const s of idle) s.destroy();

    // Most of it comes back (what malloc keeps in its free lists is a few tens of MB on both).
    // Up to 30 s: redis-server's jemalloc returns freed pages on a decay curve of about 10 s
    // (dirty_decay_ms), which a loaded CI machine stretches; 10 s once fell short there.
    const bound = baseline + (peak - baseline) / 3;
    let rss = server.rss();
    for (let i = 0; i < 300 && rss > bound; i++) {
      await sleep(100);
      rss = server.rss();
    }
    assert.ok(rss <= bound, `RSS stayed at ${rss >> 20} MB: ${baseline >> 20} MB before the replies, ${peak >> 20} MB with them`);
  });
}
