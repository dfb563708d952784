// `sluice server` as a real process: prints one ready line, serves, and exits 0 on SHUTDOWN
// and on SIGTERM.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI_MAIN, startSluiceServer } from '../support/processes.js';
import { RespClient, error, simple } from './resp-client.js';

async function startCli(...extra: string[]): Promise<{ child: ChildProcess; port: number; stdout: () => string }> {
  const server = await startSluiceServer(extra);
  assert.match(server.stdout(), /^ready on 127\.0\.0\.1:(\d+)\n$/, 'ready line');
  return server;
}

test('SHUTDOWN makes sluice server exit 0', async () => {
  const { child, port, stdout } = await startCli();
  const exited = once(child, 'exit');
  const c = await RespClient.connect(port);
  assert.deepEqual(await c.call('SET', 'k', 'v'), simple('OK'));
  c.send(['SHUTDOWN']);
  const [code, signal] = await exited;
  assert.equal(signal, null);
  assert.equal(code, 0);
  assert.equal(stdout().split('\n').filter(Boolean).length, 1, 'exactly one line on stdout');
});

test('SIGTERM makes sluice server exit 0', async () => {
  const { child, port } = await startCli('--requirepass', 'pw');
  const c = await RespClient.connect(port);
  assert.deepEqual(await c.call('PING'), error('NOAUTH Authentication required.'));
  assert.deepEqual(await c.call('AUTH', 'pw'), simple('OK'));
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  assert.equal(code, 0);
  await c.closedPromise;
});

test('bad flags exit non-zero with a message', async () => {
  const child = spawn(process.execPath, [CLI_MAIN, 'server', '--appendfsync', 'sometimes'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = await once(child, 'exit');
  assert.equal(code, 1);
  assert.match(err, /--appendfsync must be one of always, everysec, no/);
});

test('--dir: data written before SIGTERM is there after a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-cli-'));
  try {
    for (const fsync of ['always', 'everysec']) {
      const first = await startCli('--dir', dir, '--appendfsync', fsync);
      const c = await RespClient.connect(first.port);
      assert.deepEqual(await c.call('SET', `k-${fsync}`, 'kept'), simple('OK'));
      const exited = once(first.child, 'exit');
      first.child.kill('SIGTERM');
      assert.equal((await exited)[0], 0);
      const second = await startCli('--dir', dir);
      const d = await RespClient.connect(second.port);
      assert.deepEqual(await d.call('GET', `k-${fsync}`), { t: 'bulk', v: 'kept' });
      assert.match(((await d.call('INFO', 'persistence')) as { v: string }).v, /aof_enabled:1/);
      const done = once(second.child, 'exit');
      d.send(['SHUTDOWN']);
      assert.equal((await done)[0], 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
