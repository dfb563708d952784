// CLIENT LIST's buffer fields, side by side with redis-server 7.0: a client holding a large
// unsent reply shows it as omem (sluice said omem=0 for ~100 MB), and a half-received request
// shows in qbuf.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient } from './resp-client.js';

after(stopAll);

function field(line: string, name: string): number {
  const m = new RegExp(`(?:^| )${name}=(\\d+)`).exec(line);
  assert.ok(m, `${name} in ${line}`);
  return Number(m[1]);
}

async function lineOf(port: number, name: string): Promise<string> {
  const admin = await RespClient.connect(port);
  try {
    const reply = (await admin.call('CLIENT', 'LIST')) as { v: string };
    const line = reply.v.split('\n').find((l) => l.includes(` name=${name} `));
    assert.ok(line, `no client named ${name} in ${reply.v}`);
    return line;
  } finally {
    admin.close();
  }
}

/** A raw client that names itself, then sends `bytes` and never reads. */
async function rawClient(port: number, name: string, bytes: string): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.pause(); // reads nothing: replies pile up on the server
  socket.write(`CLIENT SETNAME ${name}\r\n${bytes}`);
  return socket;
}

for (const start of [startSluiceProcess, startRedisProcess]) {
  test(`${start.name}: a client that does not read shows its unsent replies as omem`, { timeout: 60_000 }, async () => {
    const server = await start();
    const setup = await RespClient.connect(server.port);
    await setup.call('SET', 'big', 'x'.repeat(48 * 1024 * 1024));
    setup.close();
    const reader = await rawClient(server.port, 'slow', 'GET big\r\n');
    // A 48 MiB reply: far more than the socket's buffers hold, so most stays on the server.
    let omem = 0;
    for (let i = 0; i < 100 && omem < 32 * 1024 * 1024; i++) {
      await sleep(50);
      omem = field(await lineOf(server.port, 'slow'), 'omem');
    }
    assert.ok(omem >= 32 * 1024 * 1024, `omem=${omem}`);
    assert.ok(field(await lineOf(server.port, 'slow'), 'tot-mem') >= omem);
    reader.destroy();
  });

  test(`${start.name}: a half-received request shows in qbuf`, { timeout: 30_000 }, async () => {
    const server = await start();
    const partial = await rawClient(server.port, 'partial', `*2\r\n$3\r\nGET\r\n$1000\r\n${'a'.repeat(500)}`);
    let qbuf = 0;
    for (let i = 0; i < 100 && qbuf === 0; i++) {
      await sleep(20);
      qbuf = field(await lineOf(server.port, 'partial'), 'qbuf');
    }
    assert.ok(qbuf >= 500 && qbuf < 1000, `qbuf=${qbuf}`);
    partial.destroy();
  });

  test(`${start.name}: the caller's own request is in its qbuf while CLIENT LIST / CLIENT INFO run`, async () => {
    const server = await start();
    const client = await RespClient.connect(server.port);
    try {
      // *2 $6 client $4 list: 26 bytes, as Redis's unit/introspection expects.
      for (const sub of ['LIST', 'INFO']) {
        const line = ((await client.call('CLIENT', sub)) as { v: string }).v;
        assert.equal(field(line, 'qbuf'), 26, `CLIENT ${sub}: ${line}`);
      }
      client.close();
      assert.equal(field(await lineOfIdleClient(server.port), 'qbuf'), 0, 'an idle client has nothing in its query buffer');
    } finally {
      client.close();
    }
  });
}

/** The CLIENT LIST line of a named client that sent nothing since. */
async function lineOfIdleClient(port: number): Promise<string> {
  const idle = await rawClient(port, 'idle', '');
  try {
    await sleep(50);
    return await lineOf(port, 'idle');
  } finally {
    idle.destroy();
  }
}
