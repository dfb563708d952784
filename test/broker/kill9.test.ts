// kill -9 of a real worker process: `sluice demo` starts worker child processes, SIGKILLs one
// while it holds pending entries, and the survivors claim them. Checked from the outside too.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import type { Value } from '../../src/client/connection.js';
import { groupLag } from '../../src/broker/metrics.js';
import { Producer } from '../../src/broker/producer.js';
import { CLI, describeEach, redisServer, sluiceServer } from './backends.js';
import { waitFor } from '../support/wait.js';

function runDemo(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'demo', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const ORDERS = 3000;

describeEach([redisServer, sluiceServer], (name) => `kill -9 on ${name}`, (b) => {
  test('a SIGKILLed worker process loses no order', async () => {
    const { code, out } = await runDemo(['--orders', String(ORDERS), '--workers', '3', '--url', b.url!, '--claim-idle-ms', '500', '--timeout-ms', '60000']);
    assert.equal(code, 0, out);
    const killed = out.match(/SIGKILLed worker-1 \(pid \d+\) mid-flight, holding (\d+) pending entries/);
    assert.ok(killed, out);
    assert.ok(Number(killed[1]) > 0, out);
    assert.match(out, /recovered: worker-1's \d+ entries were claimed/);
    assert.match(out, new RegExp(`^receipts ${ORDERS} distinct ${ORDERS} pending 0$`, 'm'));
    // Independently of the demo's own report:
    const conn = await b.connect();
    assert.equal(Number(await conn.call('HLEN', 'demo:receipts')), ORDERS);
    assert.equal(Number(await conn.call('SCARD', 'demo:handled')), ORDERS);
    const [pending] = (await conn.call('XPENDING', 'demo:orders', 'fulfilment')) as Value[];
    assert.equal(Number(pending), 0);
    await conn.close();
  });

  test('SIGTERM: the worker process stops reading, finishes in-flight work, acks and exits 0', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'demo:orders', 'demo:receipts', 'demo:handled', 'demo:handled-count');
    await conn.call('XGROUP', 'CREATE', 'demo:orders', 'fulfilment', '0', 'MKSTREAM');
    await new Producer(conn, { stream: 'demo:orders' }).addMany(Array.from({ length: 5000 }, (_, i) => ({ orderId: `order-${i}` })));
    const child = spawn(process.execPath, [CLI, 'demo', '--role', 'worker', '--url', b.url!, '--consumer', 'term-1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await new Promise<void>((r) => child.stdout.on('data', (c: Buffer) => c.toString().includes('ready') && r()));
    await waitFor(async () => Number(await conn.call('HLEN', 'demo:receipts')) >= 300, 'some receipts');
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
    const mine = (await conn.call('XPENDING', 'demo:orders', 'fulfilment', '-', '+', 100, 'term-1')) as Value[];
    assert.deepEqual(mine, []);
    const receipts = Number(await conn.call('HLEN', 'demo:receipts'));
    assert.equal(Number(await conn.call('GET', 'demo:handled-count')), receipts, 'each handled once');
    const [group] = await groupLag(conn, 'demo:orders');
    assert.equal(group!.pending, 0);
    assert.equal(group!.entriesRead, receipts, 'everything delivered was handled');
    await conn.close();
  });
});

describe('sluice demo with no --url (its own sluice server with AOF)', () => {
  test('prints receipts N distinct N pending 0 and exits 0', async () => {
    const { code, out } = await runDemo(['--orders', '3000', '--claim-idle-ms', '500', '--timeout-ms', '60000']);
    assert.equal(code, 0, out);
    assert.match(out, /^sluice server on redis:\/\//m);
    assert.match(out, /SIGKILLed worker-1 \(pid \d+\) mid-flight, holding [1-9]\d* pending entries/);
    assert.match(out, /^receipts 3000 distinct 3000 pending 0$/m);
  });
});
