// Redis's request limits, sent to sluice server and redis-server 7.0.15 alike: the inline limit
// (also when the newline came in the same read), proto-max-bulk-len and
// client-query-buffer-limit as CONFIG parameters with memory units, and the connection closed
// after every protocol error. Then the memory a never-finished 200 MB bulk costs, and that it
// is given back once the client leaves.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { waitFor } from '../support/wait.js';
import { startRedisProcess, startSluiceProcess, stopAll, type ServerProcess } from './processes.js';
import { RespClient, error, simple, type Wire } from './resp-client.js';

after(stopAll);

/** Sends raw bytes on a fresh connection; the bytes that came back and whether it was closed. */
function exchange(port: number, data: Buffer | string, waitMs = 1500): Promise<{ reply: string; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1', () => s.write(data));
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve({ reply: Buffer.concat(chunks).toString('latin1'), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('error', () => {});
    s.on('close', () => finish(true));
  });
}

async function both(...flags: string[]): Promise<ServerProcess[]> {
  return [await startSluiceProcess(...flags), await startRedisProcess(...flags)];
}

async function config(port: number, ...args: string[]): Promise<Wire> {
  const c = await RespClient.connect(port);
  try {
    return await c.call('CONFIG', ...args);
  } finally {
    c.close();
  }
}

test('an inline request over 64 KiB is refused and the connection closed, newline or not', async () => {
  const servers = await both();
  for (const input of ['PING ' + 'x'.repeat(100_000) + '\r\n', 'PING ' + 'x'.repeat(100_000)]) {
    const [a, b] = await Promise.all(servers.map((s) => exchange(s.port, input)));
    assert.deepEqual(a, { reply: '-ERR Protocol error: too big inline request\r\n', closed: true });
    assert.deepEqual(a, b);
  }
});

test('an inline request over 64 KiB sent at once is accepted up to the same length as Redis', async () => {
  const servers = await both();
  // Total bytes, '\r\n' included: Redis takes such a line in two reads, 16 KiB then 65526.
  for (const total of [65_540, 70_000, 81_910, 81_911, 90_000]) {
    const input = `ECHO ${'x'.repeat(total - 7)}\r\n`;
    const [a, b] = await Promise.all(servers.map((s) => exchange(s.port, input + 'QUIT\r\n')));
    assert.equal(a.reply.slice(0, 60), b.reply.slice(0, 60), `${total} bytes`);
    assert.deepEqual(a, b, `${total} bytes`);
    assert.equal(a.reply.startsWith('-ERR Protocol error: too big inline request'), total > 81_910, `${total} bytes`);
  }
});

test('every protocol error closes the connection after its reply, as Redis', async () => {
  const servers = await both();
  for (const input of ['*1\r\nx\r\n', '*x\r\n', 'SET a "b\r\n', '*1\r\n$-5\r\n', `*1\r\n$${'9'.repeat(30)}\r\n`]) {
    const [a, b] = await Promise.all(servers.map((s) => exchange(s.port, input + '*1\r\n$4\r\nPING\r\n')));
    assert.equal(a.closed, true, `closed after ${JSON.stringify(input)}`);
    assert.match(a.reply, /^-ERR Protocol error: [^\r]+\r\n$/);
    assert.deepEqual(a, b, JSON.stringify(input));
  }
});

test('proto-max-bulk-len and client-query-buffer-limit take memory units; CONFIG SET errors as Redis', async () => {
  const servers = await both();
  const sets: string[][] = [
    ['proto-max-bulk-len', '1kb'],
    ['proto-max-bulk-len', '1x'],
    ['proto-max-bulk-len', '1.5mb'],
    ['proto-max-bulk-len', '1G'],
    ['client-query-buffer-limit', '100'],
    ['client-query-buffer-limit', '2MB'],
    ['maxmemory', '-1'],
    ['maxmemory', '3k'],
  ];
  const defaults = await Promise.all(servers.map((s) => config(s.port, 'GET', '*-limit')));
  for (const [name, value] of sets) {
    const replies = await Promise.all(servers.map((s) => config(s.port, 'SET', name!, value!)));
    assert.deepEqual(replies[0], replies[1], `CONFIG SET ${name} ${value}`);
    const after = await Promise.all(servers.map((s) => config(s.port, 'GET', name!)));
    assert.deepEqual(after[0], after[1], `CONFIG GET ${name} after ${value}`);
  }
  // The defaults of every "*-limit" parameter both have (Redis has more of them).
  const pairs = (w: Wire): Map<string, string> => {
    const items = (w as { v: Array<{ v: string }> }).v;
    const out = new Map<string, string>();
    for (let i = 0; i + 1 < items.length; i += 2) out.set(items[i]!.v, items[i + 1]!.v);
    return out;
  };
  const [ours, theirs] = defaults.map(pairs);
  for (const [k, v] of ours!) assert.equal(v, theirs!.get(k), k);
  assert.equal(ours!.get('client-query-buffer-limit'), '1073741824');
  assert.equal(ours!.get('client-output-buffer-limit'), 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60');
});

test('a bulk longer than proto-max-bulk-len is a protocol error; CONFIG SET applies to connected clients', async () => {
  for (const server of await both()) {
    const c = await RespClient.connect(server.port);
    assert.deepEqual(await c.call('CONFIG', 'SET', 'proto-max-bulk-len', '1mb'), simple('OK'));
    assert.equal((await c.call('SET', 'k', 'x'.repeat(1024 * 1024))).t, 'simple');
    c.send(`*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${1024 * 1024 + 1}\r\n`);
    assert.deepEqual(await c.read(), error('ERR Protocol error: invalid bulk length'));
    await c.closedPromise;
  }
});

test('past client-query-buffer-limit the client is closed without a reply', async () => {
  for (const server of await both()) {
    assert.deepEqual(await config(server.port, 'SET', 'client-query-buffer-limit', '1mb'), simple('OK'));
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const data = Buffer.concat([Buffer.from('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10000000\r\n'), ...Array(40).fill(chunk)]);
    const r = await exchange(server.port, data, 3000);
    assert.deepEqual(r, { reply: '', closed: true }, server.name);
  }
});

/** Sends `mb` MiB of a bulk that never ends; returns the server's RSS while it holds them. */
async function holdUnfinishedBulk(server: ServerProcess, mb: number): Promise<{ during: number; socket: net.Socket }> {
  const socket = net.connect(server.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.on('error', () => {});
  socket.write(`*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${mb * 1024 * 1024 + 1000}\r\n`);
  const chunk = Buffer.alloc(1024 * 1024, 0x78);
  for (let i = 0; i < mb; i++) if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
  // Until the server has read everything (the socket's buffers are small next to 200 MB).
  await waitFor(() => socket.writableLength === 0, `the server to read ${mb} MiB`, 60_000, 20);
  await new Promise((r) => setTimeout(r, 500));
  return { during: server.rss(), socket };
}

test('a never-finished 200 MB bulk costs about its size in RSS, and is given back when the client leaves', async () => {
  const MB = 1024 * 1024;
  const figures: string[] = [];
  for (const server of await both()) {
    const before = server.rss();
    const { during, socket } = await holdUnfinishedBulk(server, 200);
    socket.destroy();
    let after = server.rss();
    for (let i = 0; i < 100 && after > before + 30 * MB; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = server.rss();
    }
    figures.push(`${server.name}: before ${Math.round(before / MB)} MB, holding ${Math.round(during / MB)} MB, after ${Math.round(after / MB)} MB`);
    assert.ok(during - before < 275 * MB, `${server.name} holds ${Math.round((during - before) / MB)} MB for a 200 MB bulk`);
    assert.ok(during - before > 190 * MB, `${server.name} really buffered the bulk`);
    assert.ok(after - before < 30 * MB, `${server.name} gave the memory back (${Math.round(after / MB)} MB now, ${Math.round(before / MB)} MB before)`);
    await server.kill();
  }
  console.error(`# RSS ${figures.join('; ')}`);
});
