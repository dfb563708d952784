// The TCP server, in-process on port 0, over raw RESP: ordering, pipelining, RESP3, protocol
// errors, blocking, AUTH, transactions across clients, limits and shutdown.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/server.js';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';
import { RespClient, type Wire, array, bulk, error, int, simple } from './resp-client.js';

let server: RunningServer;
before(async () => {
  server = await startServer({ port: 0 });
});
after(() => server.close());

const connect = () => RespClient.connect(server.port);

/** Runs `fn` against a server of its own, closed afterwards whatever happens. */
async function withServer(options: ServerOptions, fn: (server: RunningServer) => Promise<void>): Promise<void> {
  const server = await startServer(options);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

test('PING, inline commands and a pipelined batch answered in order', async () => {
  const c = await connect();
  assert.deepEqual(await c.call('PING'), simple('PONG'));
  c.send('PING hello\r\n');
  assert.deepEqual(await c.read(), bulk('hello'));
  // 1000 INCRs in one write: every reply, in order.
  const batch = Array.from({ length: 1000 }, () => '*2\r\n$4\r\nINCR\r\n$7\r\npipectr\r\n').join('');
  c.send(batch);
  for (let i = 1; i <= 1000; i++) assert.deepEqual(await c.read(), int(i));
  c.close();
});

test('a request split across many writes is reassembled', async () => {
  const c = await connect();
  const bytes = Buffer.from('*3\r\n$3\r\nSET\r\n$5\r\nsplit\r\n$10\r\n0123456789\r\n*2\r\n$3\r\nGET\r\n$5\r\nsplit\r\n');
  for (let i = 0; i < bytes.length; i++) c.send(bytes.subarray(i, i + 1));
  assert.deepEqual(await c.read(), simple('OK'));
  assert.deepEqual(await c.read(), bulk('0123456789'));
  c.close();
});

test('HELLO 3 switches the encoding from its own reply on; HELLO 2 back', async () => {
  const c = await connect();
  c.send([ 'GET', 'nosuchkey' ]);
  c.send(['HELLO', '3']);
  c.send(['GET', 'nosuchkey']);
  assert.deepEqual(await c.read(), bulk(null));
  const hello = await c.read();
  assert.equal(hello.t, 'map');
  const fields = new Map((hello as { v: Array<[Wire, Wire]> }).v.map(([k, v]) => [(k as { v: string }).v, v]));
  assert.deepEqual(fields.get('proto'), int(3));
  assert.deepEqual(fields.get('version'), bulk('7.0.15'));
  assert.deepEqual(await c.read(), { t: 'null' });
  assert.equal((await c.call('CLIENT', 'INFO')).t, 'verbatim');
  await c.call('HELLO', '2');
  assert.deepEqual(await c.call('GET', 'nosuchkey'), bulk(null));
  c.close();
});

test('a protocol error is replied, closes that connection only, after earlier commands ran', async () => {
  const other = await connect();
  const c = await connect();
  c.send('*1\r\n$4\r\nPING\r\n*x\r\n*1\r\n$4\r\nPING\r\n');
  assert.deepEqual(await c.read(), simple('PONG'));
  assert.deepEqual(await c.read(), error('ERR Protocol error: invalid multibulk length'));
  await c.closedPromise;
  assert.equal(c.queued, 0, 'nothing after the bad request is executed');
  assert.deepEqual(await other.call('PING'), simple('PONG'));
  other.close();
});

test('garbage on the socket never takes the server down', async () => {
  const watcher = await connect();
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 300 }), async (bytes) => {
      const c = await connect();
      c.send(Buffer.from(bytes));
      c.send('\r\n*1\r\n$4\r\nPING\r\n');
      c.close();
      assert.deepEqual(await watcher.call('PING'), simple('PONG'));
    }),
    { numRuns: 150 },
  );
  // Oversized and unbalanced requests too.
  const big = await connect();
  big.send('*1\r\n$999999999999\r\n');
  assert.deepEqual(await big.read(), error('ERR Protocol error: invalid bulk length'));
  await big.closedPromise;
  assert.deepEqual(await watcher.call('PING'), simple('PONG'));
  watcher.close();
});

test('a blocked client pauses only itself; later commands wait for its reply', async () => {
  const reader = await connect();
  const writer = await connect();
  reader.send(['XREAD', 'BLOCK', '0', 'STREAMS', 'blk', '$']);
  reader.send(['PING', 'after']);
  // The other client is served while the reader is parked.
  assert.deepEqual(await writer.call('PING'), simple('PONG'));
  const list = await writer.call('CLIENT', 'LIST');
  assert.match((list as { v: string }).v, /flags=b /);
  assert.equal(reader.queued, 0);
  const added = await writer.call('XADD', 'blk', '*', 'f', 'v');
  const id = (added as { v: string }).v;
  assert.deepEqual(await reader.read(), array([array([bulk('blk'), array([array([bulk(id), array([bulk('f'), bulk('v')])])])])]));
  assert.deepEqual(await reader.read(), bulk('after'));
  reader.close();
  writer.close();
});

test('CLIENT UNBLOCK and CLIENT KILL reach other connections', async () => {
  const a = await connect();
  const b = await connect();
  const idA = (await a.call('CLIENT', 'ID')) as { v: bigint };
  a.send(['XREAD', 'BLOCK', '0', 'STREAMS', 'unblk', '$']);
  // Wait until the server has parked it (CLIENT UNBLOCK returns 0 before that).
  const unblocked = async (): Promise<boolean> => ((await b.call('CLIENT', 'UNBLOCK', String(idA.v), 'ERROR')) as { v: bigint }).v === 1n;
  await waitFor(unblocked, 'CLIENT UNBLOCK of the parked XREAD', WAIT_LIMIT_MS, 0);
  assert.deepEqual(await a.read(), error('UNBLOCKED client unblocked via CLIENT UNBLOCK'));
  assert.deepEqual(await b.call('CLIENT', 'KILL', 'ID', String(idA.v)), int(1));
  await a.closedPromise;
  const addrOfB = ((await b.call('CLIENT', 'INFO')) as { v: string }).v.match(/ addr=(\S+) /)![1]!;
  assert.equal(addrOfB, `127.0.0.1:${b.socket.localPort}`);
  b.close();
});

test('QUIT replies OK and closes', async () => {
  const c = await connect();
  c.send(['QUIT']);
  c.send(['PING']);
  assert.deepEqual(await c.read(), simple('OK'));
  await c.closedPromise;
  assert.equal(c.queued, 0);
});

test('MULTI/EXEC/WATCH across two clients', async () => {
  const a = await connect();
  const b = await connect();
  await a.call('SET', 'tx', '1');
  assert.deepEqual(await a.call('WATCH', 'tx'), simple('OK'));
  await b.call('SET', 'tx', '2');
  await a.call('MULTI');
  assert.deepEqual(await a.call('SET', 'tx', '3'), simple('QUEUED'));
  assert.deepEqual(await a.call('EXEC'), array(null));
  assert.deepEqual(await b.call('GET', 'tx'), bulk('2'));
  await a.call('MULTI');
  await a.call('INCR', 'tx');
  await a.call('GET', 'tx');
  assert.deepEqual(await a.call('EXEC'), array([int(3), bulk('3')]));
  await a.call('MULTI');
  assert.deepEqual(await a.call('NOSUCH'), error("ERR unknown command 'NOSUCH', with args beginning with: "));
  assert.deepEqual(await a.call('EXEC'), error('EXECABORT Transaction discarded because of previous errors.'));
  a.close();
  b.close();
});

test('INFO counts connections and commands', async () => {
  const c = await connect();
  const info = ((await c.call('INFO', 'stats', 'clients')) as { v: string }).v;
  assert.match(info, /\r\ntotal_connections_received:\d+\r\n/);
  assert.match(info, /\r\nconnected_clients:[1-9]\d*\r\n/);
  assert.match(info, /\r\ntotal_net_input_bytes:[1-9]\d*\r\n/);
  c.close();
});

test('requirepass: NOAUTH until AUTH', async () => {
  await withServer({ port: 0, requirepass: 'sekret' }, async (locked) => {
    const c = await RespClient.connect(locked.port);
    assert.deepEqual(await c.call('PING'), error('NOAUTH Authentication required.'));
    assert.deepEqual(await c.call('AUTH', 'nope'), error('WRONGPASS invalid username-password pair or user is disabled.'));
    assert.deepEqual(await c.call('AUTH', 'sekret'), simple('OK'));
    assert.deepEqual(await c.call('PING'), simple('PONG'));
    c.close();
  });
});

test('maxclients refuses connections past the limit', async () => {
  await withServer({ port: 0 }, async (s) => {
    const first = await RespClient.connect(s.port);
    await first.call('CONFIG', 'SET', 'maxclients', '1');
    const second = await RespClient.connect(s.port);
    assert.deepEqual(await second.read(), error('ERR max number of clients reached'));
    await second.closedPromise;
    assert.deepEqual(await first.call('PING'), simple('PONG'));
    first.close();
  });
});

test('timeout closes idle clients but not blocked ones', async () => {
  await withServer({ port: 0 }, async (s) => {
    const idle = await RespClient.connect(s.port);
    const blocked = await RespClient.connect(s.port);
    blocked.send(['XREAD', 'BLOCK', '0', 'STREAMS', 'idle-s', '$']);
    await idle.call('CONFIG', 'SET', 'timeout', '1');
    await idle.closedPromise;
    assert.equal(blocked.closed, false);
    const probe = await RespClient.connect(s.port);
    await probe.call('XADD', 'idle-s', '*', 'a', 'b');
    assert.equal((await blocked.read()).t, 'array');
    probe.close();
    blocked.close();
  });
});

test('SHUTDOWN closes the server and runs the shutdown hooks', async () => {
  const s = await startServer({ port: 0 });
  const ran: string[] = [];
  s.onShutdown(async () => {
    ran.push('flush');
  });
  const c = await RespClient.connect(s.port);
  assert.deepEqual(await c.call('SHUTDOWN', 'FOO'), error('ERR syntax error'));
  c.send(['SHUTDOWN', 'NOSAVE']);
  await c.closedPromise;
  await s.closed;
  assert.equal(c.queued, 0, 'a successful SHUTDOWN sends no reply');
  assert.deepEqual(ran, ['flush']);
  await assert.rejects(RespClient.connect(s.port));
});

test('a slow reader of large replies gets them all, in order, while others are served', async () => {
  const c = await connect();
  const other = await connect();
  const value = 'x'.repeat(1 << 20);
  assert.deepEqual(await c.call('SET', 'big', value), simple('OK'));
  // Stop reading, then ask for ~64 MiB of replies: the server must buffer or pause, not fail.
  c.socket.pause();
  for (let i = 0; i < 64; i++) c.send(['GET', 'big']);
  c.send(['PING', 'last']);
  assert.deepEqual(await other.call('PING'), simple('PONG'));
  c.socket.resume();
  for (let i = 0; i < 64; i++) {
    const r = (await c.read()) as { t: string; v: string };
    assert.equal(r.t, 'bulk');
    assert.equal(r.v.length, value.length);
  }
  assert.deepEqual(await c.read(), bulk('last'));
  c.close();
  other.close();
});
