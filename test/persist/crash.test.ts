// Real processes, real files: `sluice server --appendfsync always` is SIGKILLed while clients
// write; every acknowledged XADD is there after a restart. A torn tail is cut off with a warning
// on stderr; corruption in the middle makes the server refuse to start, naming the offset.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { encodeCommand } from '../../src/resp/encoder.js';
import { CLI_MAIN, type SluiceServer, startSluiceServer } from '../support/processes.js';
import { incrFile, withTempDir } from './helpers.js';

function startServer(dir: string): Promise<SluiceServer> {
  return startSluiceServer(['--dir', dir, '--appendfsync', 'always']);
}

function client(port: number): Redis {
  return new Redis({ port, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false, lazyConnect: true });
}

test('kill -9 under load: every acknowledged XADD survives the restart', async () => {
  await withTempDir('crash', async (dir) => {
    const server = await startServer(dir);
    const acked: string[] = [];
    const writers = Array.from({ length: 4 }, () => client(server.port));
    await Promise.all(writers.map((w) => w.connect()));
    let killed = false;
    const loops = writers.map(async (w, wi) => {
      for (let i = 0; !killed; i++) {
        try {
          const id = (await w.xadd('events', '*', 'writer', String(wi), 'seq', String(i))) as string;
          acked.push(id);
          if (acked.length === 400) {
            killed = true;
            server.child.kill('SIGKILL');
          }
        } catch {
          return; // the server is gone
        }
      }
    });
    await Promise.all(loops);
    await server.exited();
    for (const w of writers) w.disconnect();
    assert.ok(acked.length >= 400);

    const restarted = await startServer(dir);
    const r = client(restarted.port);
    await r.connect();
    try {
      const entries = (await r.xrange('events', '-', '+')) as Array<[string, string[]]>;
      const present = new Set(entries.map((e) => e[0]));
      const lost = acked.filter((id) => !present.has(id));
      assert.deepEqual(lost, [], 'acknowledged entries lost');
      // Each writer's sequence is gap-free up to what it saw acknowledged.
      for (let wi = 0; wi < 4; wi++) {
        const seqs = entries.filter((e) => e[1][1] === String(wi)).map((e) => Number(e[1][3]));
        assert.deepEqual(seqs, seqs.map((_, i) => i));
      }
      // The restarted server keeps accepting writes with increasing ids.
      const next = (await r.xadd('events', '*', 'after', 'restart')) as string;
      assert.ok(!present.has(next));
    } finally {
      r.disconnect();
      await restarted.stop();
    }
  });
});

test('a torn tail is cut off with a warning; corruption in the middle refuses to start', async () => {
  await withTempDir('crash-torn', async (dir) => {
    const server = await startServer(dir);
    const r = client(server.port);
    await r.connect();
    for (let i = 0; i < 20; i++) await r.xadd('s', `${i + 1}-0`, 'i', String(i));
    r.disconnect();
    await server.stop('SIGKILL');

    // A record cut mid-write, as a crash during write(2) leaves it.
    const file = incrFile(dir);
    const good = readFileSync(file);
    const torn = encodeCommand(['XADD', 's', '21-0', 'i', '20']).subarray(0, 17);
    appendFileSync(file, torn);
    const restarted = await startServer(dir);
    assert.match(restarted.stderr(), /short read while loading the AOF file appendonly\.aof\.1\.incr\.aof/);
    const c = client(restarted.port);
    await c.connect();
    assert.equal(await c.xlen('s'), 20);
    assert.equal(await c.xadd('s', '21-0', 'i', '20'), '21-0');
    c.disconnect();
    await restarted.stop('SIGKILL');

    // Damage a record in the middle: the server must not start.
    const now = readFileSync(file);
    assert.ok(now.length > good.length);
    // The start of the record that added 10-0 (the command name is logged as the client sent it).
    const at = now.lastIndexOf('*', now.indexOf('$4\r\n10-0\r\n'));
    assert.ok(at > 0);
    const bad = Buffer.from(now);
    bad[at] = 0x3f;
    writeFileSync(file, bad);
    const child = spawn(process.execPath, [CLI_MAIN, 'server', '--port', '0', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const [code] = (await once(child, 'close')) as [number | null]; // after stdout/stderr ended
    assert.notEqual(code, 0);
    assert.doesNotMatch(stdout, /ready on/);
    assert.match(stderr, new RegExp(`appendonly\\.aof\\.1\\.incr\\.aof at byte offset ${at}\\b`));
  });
});
