// A connection's replies are encoded into an arena and handed to the socket as views of it
// (socket-connection.ts flush). These check the bytes stay right whether the writes complete at
// once (a reading client) or back up (a client that does not read, so the socket still holds
// earlier replies while new ones are encoded): an arena reused too early shows here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { startServer } from '../../src/server/server.js';
import { encodeCommand } from '../../src/resp/encoder.js';

async function withStream<T>(fn: (port: number) => Promise<T>): Promise<T> {
  const server = await startServer({ port: 0 });
  try {
    const socket = net.connect(server.port, '127.0.0.1');
    await once(socket, 'connect');
    const batch: Buffer[] = [];
    for (let i = 1; i <= 300; i++) batch.push(encodeCommand(['XADD', 's', `${i}-1`, 'field', `value-${i}-${'v'.repeat(100)}`, 'n', String(i * 7)]));
    socket.write(Buffer.concat(batch));
    await readBytes(socket, (b) => b.toString('latin1').split('\r\n').length > 300);
    socket.destroy();
    return await fn(server.port);
  } finally {
    await server.close();
  }
}

/** Collects what the socket receives until `done` says it is complete. */
function readBytes(socket: net.Socket, done: (bytes: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      bytes = Buffer.concat([bytes, chunk]);
      if (done(bytes)) {
        socket.off('data', onData);
        resolve(bytes);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

async function oneReply(port: number, argv: string[]): Promise<Buffer> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(encodeCommand(argv));
  // Replies of XRANGE here end with a value that is not a prefix of anything: wait for it.
  const reply = await readBytes(socket, (b) => b.includes('\r\n$4\r\n2100\r\n'));
  socket.destroy();
  return reply;
}

const XRANGE = ['XRANGE', 's', '-', '+', 'COUNT', '300'];

test('replies stay byte-exact when each one is written whole and the arena is reused', async () => {
  await withStream(async (port) => {
    const expected = await oneReply(port, XRANGE);
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    for (let i = 0; i < 100; i++) {
      socket.write(encodeCommand(XRANGE));
      assert.deepEqual(await readBytes(socket, (b) => b.length >= expected.length), expected, `reply ${i}`);
    }
    socket.destroy();
  });
});

test('replies stay byte-exact when they back up in a client that does not read', async () => {
  await withStream(async (port) => {
    // Replies that differ (each starts further on), so a reused arena would show in the bytes.
    const commands = Array.from({ length: 200 }, (_, i) => ['XRANGE', 's', `${(i % 150) + 1}-1`, '+', 'COUNT', '300']);
    const expected: Buffer[] = [];
    for (const argv of commands) expected.push(await oneReply(port, argv));
    const total = expected.reduce((n, b) => n + b.length, 0);
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.pause();
    // Sent a few ms apart, so each is a batch of its own, and far more than the socket
    // buffers hold (about 6 MB of replies).
    for (const argv of commands) {
      socket.write(encodeCommand(argv));
      await new Promise((r) => setTimeout(r, 3));
    }
    await new Promise((r) => setTimeout(r, 100));
    const all = readBytes(socket, (b) => b.length >= total);
    socket.resume();
    const bytes = await all;
    assert.equal(bytes.length, total);
    let at = 0;
    for (let i = 0; i < expected.length; i++) {
      assert.ok(bytes.subarray(at, at + expected[i]!.length).equals(expected[i]!), `reply ${i}`);
      at += expected[i]!.length;
    }
    socket.destroy();
  });
});
