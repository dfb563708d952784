// Clients that pipeline without pause and never read, against sluice server and redis-server
// with --requirepass. An unauthenticated client is closed, its replies unsent, once more than
// 16 KiB of them wait (Redis 7.0.15 as shipped, with the CVE-2025-21605 fix: measured to the
// byte here); so 200 such clients cannot hold memory or delay anyone. An authenticated client
// runs at most 16 KiB of its requests per event-loop turn, as Redis reads 16 KiB per client and
// turn, so a pipeline of any length cannot keep the others waiting for more than that.
// bench/starvation.ts measures both side by side with redis-server.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { encodeCommand } from '../../src/resp/encoder.js';
import { startServer } from '../../src/server/server.js';
import { type ServerProcess, startRedisProcess, startSluiceProcess, stopAll } from '../server/processes.js';

after(stopAll);

const PING = '*1\r\n$4\r\nPING\r\n';

/** Sends n pipelined PINGs unauthenticated; what came back and whether the server closed, within `ms`. */
function unauthenticatedPipeline(port: number, n: number, ms = 1000): Promise<{ bytes: number; closed: boolean }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let bytes = 0;
    let closed = false;
    s.on('data', (d) => (bytes += d.length));
    s.on('error', () => {});
    s.on('close', () => (closed = true));
    s.on('connect', () => s.write(PING.repeat(n)));
    setTimeout(() => {
      s.destroy();
      resolve({ bytes, closed });
    }, ms);
  });
}

test('unauthenticated: 481 pipelined PINGs answered, 482 close the connection with nothing sent, as redis-server', async () => {
  for (const server of [await startRedisProcess('--requirepass', 'secret'), await startSluiceProcess('--requirepass', 'secret')]) {
    // 481 NOAUTH errors are 16,354 bytes; one more is past 16 KiB.
    assert.deepEqual(await unauthenticatedPipeline(server.port, 481), { bytes: 481 * 34, closed: false }, server.name);
    assert.deepEqual(await unauthenticatedPipeline(server.port, 482), { bytes: 0, closed: true }, server.name);
    assert.deepEqual(await unauthenticatedPipeline(server.port, 100_000), { bytes: 0, closed: true }, server.name);
  }
});

/** `count` clients pumping PINGs without reading for `ms`; the other client's worst PING time. */
async function flood(server: ServerProcess, count: number, ms: number): Promise<{ closedByServer: number; worstPingMs: number }> {
  const chunk = Buffer.from(PING.repeat(4681));
  let stopping = false;
  let closedByServer = 0;
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    s.on('close', () => {
      if (!stopping) closedByServer++;
    });
    s.on('connect', () => {
      s.pause();
      const pump = (): void => {
        while (!stopping && !s.destroyed) if (!s.write(chunk)) return void s.once('drain', pump);
      };
      pump();
    });
    sockets.push(s);
  }
  const legit = net.connect(server.port, '127.0.0.1');
  await new Promise((resolve) => legit.once('connect', resolve));
  let answered: (() => void) | null = null;
  legit.on('data', () => answered?.());
  const call = (command: Buffer | string) => new Promise<void>((resolve) => ((answered = resolve), legit.write(command)));
  await call(encodeCommand(['AUTH', 'secret']));
  let worstPingMs = 0;
  const started = Date.now();
  while (Date.now() - started < ms) {
    const t = performance.now();
    await call(PING);
    worstPingMs = Math.max(worstPingMs, performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  stopping = true;
  for (const s of sockets) s.destroy();
  legit.destroy();
  return { closedByServer, worstPingMs };
}

test('200 unauthenticated clients flooding PINGs: all closed by the server, another client answered at once, as on redis-server', async () => {
  for (const server of [await startRedisProcess('--requirepass', 'secret'), await startSluiceProcess('--requirepass', 'secret')]) {
    const { closedByServer, worstPingMs } = await flood(server, 200, 1500);
    assert.equal(closedByServer, 200, server.name);
    assert.ok(worstPingMs < 1000, `${server.name}: a PING took ${worstPingMs.toFixed(0)} ms`);
  }
});

test('a pipeline runs at most 16 KiB of requests per event-loop turn: others get theirs in between', async () => {
  // In process, so the test sees each turn of the server's event loop.
  const server = await startServer({ port: 0 });
  try {
    const counter = () => Number(server.instance.keyspace.db(0).values.get('c')?.toString() ?? 0);
    const incr = encodeCommand(['INCR', 'c']); // 21 bytes
    const total = 40_000;
    const client = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    client.pause(); // never reads
    client.write(Buffer.concat(Array.from({ length: total }, () => incr)));
    // Reads the counter once per turn (setImmediate runs once per turn, after the reads).
    let last = 0;
    let largestTurn = 0;
    const deadline = Date.now() + 20_000;
    while (last < total && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      const now = counter();
      largestTurn = Math.max(largestTurn, now - last);
      last = now;
    }
    assert.equal(last, total);
    // 16 KiB of 21-byte requests is 781 (a read of 64 KiB held 3,121).
    assert.ok(largestTurn <= Math.ceil((16 * 1024) / incr.length) + 1, `${largestTurn} requests in one turn`);
    client.destroy();
  } finally {
    await server.close();
  }
});
