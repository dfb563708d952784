// bench/lean-server.js stands for Node's floor beside sluice and redis-server in the benches, so
// its figures mean something only if it answers exactly one reply per request (a reply too many
// lets redis-benchmark count requests it never sent) and logs what a real server would.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startLean } from '../../bench/servers.js';
import { encodeCommand } from '../../src/resp/encoder.js';

/** Sends `chunks` one turn apart (so requests arrive split) and returns the first `length` reply bytes. */
async function exchange(port: number, chunks: Buffer[], length: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let got = Buffer.alloc(0);
  const done = new Promise<void>((resolve) =>
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= length) resolve();
    }),
  );
  for (const c of chunks) {
    socket.write(c);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await done;
  // Nothing more may follow: a reply too many would show here.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  return got.toString('latin1');
}

const ID = '$15\r\n1700000000000-0\r\n';

test('the lean server answers each request once, however its bytes arrive', async () => {
  const server = await startLean();
  try {
    const xadd = encodeCommand(['XADD', 's', '*', 'f', '*']); // '*' inside arguments is no request
    const ping = encodeCommand(['PING']);
    const config = encodeCommand(['CONFIG', 'GET', 'save']);
    const all = Buffer.concat([xadd, ping, Buffer.from('PING\r\n'), config, xadd]);
    const split = [all.subarray(0, 7), all.subarray(7, 30), all.subarray(30)];
    const expected = `${ID}+PONG\r\n+PONG\r\n*0\r\n${ID}`;
    assert.equal(await exchange(server.port, split, expected.length), expected);
  } finally {
    await server.stop();
  }
});

test('under appendfsync always the lean server logs the bytes of each XADD, not of PING', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lean-'));
  const server = await startLean(['--appendfsync', 'always', '--dir', dir]);
  try {
    const a = encodeCommand(['XADD', 'orders', '*', 'id', '1']);
    const b = encodeCommand(['XADD', 'orders', '*', 'id', '2']);
    const ping = encodeCommand(['PING']);
    assert.equal(await exchange(server.port, [Buffer.concat([a, ping]), b], ID.length * 2 + 7), `${ID}+PONG\r\n${ID}`);
    // The replies went out after the turn's write and fdatasync: the file holds both now.
    assert.equal(readFileSync(join(dir, 'lean.aof'), 'latin1'), Buffer.concat([a, b]).toString('latin1'));
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
