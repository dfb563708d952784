// `sluice server` holds V8's young generation at its starting size (src/cli/young-generation.ts):
// a server that keeps data would otherwise grow it to 32 MB of RSS it never gives back. The
// operator's own semi-space flag wins. Both read through INFO memory's v8_new_space_size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCommand } from '../../src/resp/encoder.js';
import { CLI_MAIN, spawnUntil } from '../support/processes.js';
import { RespClient } from './resp-client.js';

async function newSpaceSize(c: RespClient): Promise<number> {
  const info = await c.call('INFO', 'memory');
  assert.equal(info.t, 'bulk');
  const m = /v8_new_space_size:(\d+)/.exec(String(info.v));
  assert.ok(m, 'INFO memory has v8_new_space_size');
  return Number(m[1]);
}

/**
 * 200k XADDs and 200k set members in pipelines of 1,000: the members are heap objects that
 * survive scavenges, enough for V8 to grow its new space (to 32 MB when left alone).
 */
async function fill(c: RespClient): Promise<void> {
  for (let i = 0; i < 200_000; i += 1000) {
    const batch: Buffer[] = [];
    for (let j = i; j < i + 1000; j++) {
      batch.push(encodeCommand(['XADD', 'orders', '*', 'order_id', `order-${j}`, 'total', String(j % 997)]));
      batch.push(encodeCommand(['SADD', 'customers', `customer-${j}`]));
    }
    c.send(Buffer.concat(batch));
    for (let j = 0; j < 1000; j++) {
      assert.equal((await c.read()).t, 'bulk');
      assert.deepEqual(await c.read(), { t: 'int', v: 1n });
    }
  }
}

/** Starts `node [nodeFlags] sluice server`, fills it, and reads the new space before and after. */
async function growth(nodeFlags: string[]): Promise<{ before: number; after: number }> {
  const server = await spawnUntil(process.execPath, [...nodeFlags, CLI_MAIN, 'server', '--port', '0'], /ready on [^\s:]+:(\d+)\n/);
  const c = await RespClient.connect(Number(server.match[1]));
  try {
    const before = await newSpaceSize(c);
    await fill(c);
    return { before, after: await newSpaceSize(c) };
  } finally {
    c.close();
    await server.stop('SIGKILL');
  }
}

test('the young generation stays at its starting size while the server fills up', async () => {
  const { before, after } = await growth([]);
  assert.equal(after, before, `new space ${before} -> ${after} bytes`);
});

test("the operator's semi-space flag wins (and the same load grows the space then)", async () => {
  const { before, after } = await growth(['--semi-space-growth-factor=2']);
  assert.ok(after > before, `new space ${before} -> ${after} bytes`);
});
