// Fault injection on the client side, against a real `sluice server --dir --appendfsync always`:
// 300 clients at once, of which some disconnect in the middle of a command (half a request),
// right after sending a write (before its reply), or while blocked in XREADGROUP. The server
// never executes a half-received command, forgets every gone client, keeps serving the others
// (each gets an answer or a closed socket), and after kill -9 holds every acknowledged write.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { encodeCommand } from '../../src/resp/encoder.js';
import { removeDir, tempDir } from '../persist/helpers.js';
import { startSluiceProcess, stopAll } from '../server/processes.js';
import { RespClient } from '../server/resp-client.js';
import { Acks, assertAllAcked, random, seedFromEnv, writer } from './workload.js';

after(stopAll);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connects, sends `data`, then drops the connection after `ms` without reading anything. */
function sendAndVanish(port: number, data: Buffer, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(data);
      setTimeout(() => {
        s.destroy();
        resolve();
      }, ms);
    });
    s.on('error', () => resolve());
  });
}

async function connectedClients(port: number): Promise<number> {
  const c = await RespClient.connect(port);
  const info = String(((await c.call('INFO', 'clients')) as { v: string }).v);
  c.close();
  return Number(/connected_clients:(\d+)/.exec(info)![1]);
}

test('300 clients, some vanishing mid-command: answers or closed sockets, no half command run, no acked write lost', async () => {
  const rand = random(seedFromEnv());
  const dir = tempDir('fault-clients');
  try {
    const server = await startSluiceProcess('--dir', dir, '--appendfsync', 'always');
    const setup = await RespClient.connect(server.port);
    await setup.call('XGROUP', 'CREATE', 'jobs', 'g', '$', 'MKSTREAM');
    setup.close();

    const acks = new Acks();
    let stop = false;
    const tasks: Array<Promise<unknown>> = [];
    const halfSent: string[] = [];
    for (let i = 0; i < 300; i++) {
      const kind = i % 5;
      if (kind === 0) {
        // Half a request: the header says 3 arguments, the value never completes.
        const key = `half:${i}`;
        halfSent.push(key);
        const whole = encodeCommand(['SET', key, 'v'.repeat(100)]);
        tasks.push(sendAndVanish(server.port, whole.subarray(0, Math.floor(whole.length * (0.2 + rand() * 0.7))), Math.floor(rand() * 200)));
      } else if (kind === 1) {
        // A complete write, gone before its reply: it may or may not have run (never asserted).
        tasks.push(sendAndVanish(server.port, encodeCommand(['XADD', 'gone', '*', 'i', String(i)]), Math.floor(rand() * 5)));
      } else if (kind === 2) {
        // Blocked in XREADGROUP, then gone.
        tasks.push(sendAndVanish(server.port, encodeCommand(['XREADGROUP', 'GROUP', 'g', `c${i}`, 'BLOCK', '0', 'STREAMS', 'jobs', '>']), 50 + Math.floor(rand() * 300)));
      } else {
        tasks.push(writer(server.port, `c${i}`, acks, () => stop, { maxReplyMs: 3000 }));
      }
    }
    await sleep(1200);
    stop = true;
    await Promise.all(tasks);
    assert.deepEqual(acks.unexpected, [], 'every command of the staying clients was answered');
    assert.ok(acks.total > 100, `writes were acknowledged (${acks.total})`);

    // Every vanished client is forgotten; half-received commands never ran.
    for (let i = 0; i < 50 && (await connectedClients(server.port)) > 1; i++) await sleep(50);
    assert.equal(await connectedClients(server.port), 1);
    const c = await RespClient.connect(server.port);
    assert.deepEqual(await c.call('EXISTS', ...halfSent), { t: 'int', v: 0n });
    // A consumer that vanished while blocked is not served: a new entry stays unread.
    await c.call('XADD', 'jobs', '*', 'after', '1');
    await sleep(50);
    const pending = (await c.call('XPENDING', 'jobs', 'g')) as { v: Array<{ v: unknown }> };
    assert.equal(pending.v[0]!.v, 0n);
    c.close();

    await server.kill();
    const restarted = await startSluiceProcess('--dir', dir);
    await assertAllAcked(restarted.port, acks, 'after kill -9');
    const r = await RespClient.connect(restarted.port);
    assert.deepEqual(await r.call('EXISTS', ...halfSent), { t: 'int', v: 0n });
    r.close();
    await restarted.kill();
  } finally {
    removeDir(dir);
  }
});
