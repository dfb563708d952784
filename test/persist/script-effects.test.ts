// What a script leaves in the AOF, on sluice server with appendfsync always: a script that fails
// after writing leaves the writes it made as one whole MULTI/EXEC record (never half of one, never
// the EVAL), which redis-check-aof accepts and a restart replays to the same dataset; a script
// stopped by SHUTDOWN NOSAVE while it runs past busy-reply-threshold leaves nothing of itself.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { installed, runToExit, startSluiceServer, stopChild, type SluiceServer } from '../support/processes.js';
import { waitFor, within } from '../support/wait.js';
import { RespClient } from '../server/resp-client.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-script-aof-'));
  dirs.push(dir);
  return dir;
}

function start(dir: string): Promise<SluiceServer> {
  return startSluiceServer(['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--enable-debug-command', 'yes']);
}

/** Every AOF file of the directory, joined in name order (the base then the increments). */
function aofText(dir: string): string {
  const aofDir = join(dir, 'appendonlydir');
  return readdirSync(aofDir)
    .filter((f) => !f.endsWith('.manifest'))
    .sort()
    .map((f) => readFileSync(join(aofDir, f), 'latin1'))
    .join('');
}

async function checkAof(dir: string): Promise<void> {
  if (!installed('redis-check-aof')) return;
  const manifest = readdirSync(join(dir, 'appendonlydir')).find((f) => f.endsWith('.manifest'))!;
  const { code, output } = await runToExit('redis-check-aof', [join(dir, 'appendonlydir', manifest)], { timeoutMs: 20_000 });
  assert.equal(code, 0, output);
  assert.match(output, /is valid/, output);
}

test('a script that fails after writing: its writes in one whole MULTI/EXEC record, replayed to the same dataset', async () => {
  const dir = dataDir();
  let server = await start(dir);
  let c = await RespClient.connect(server.port);
  try {
    const failed = await c.call('EVAL', "redis.call('SET', KEYS[1], 'one') redis.call('INCR', KEYS[2]) error('boom')", '2', 'a', 'n');
    assert.equal(failed.t, 'error');
    assert.match(String((failed as { v: unknown }).v), /boom/);
    assert.deepEqual(await c.call('EVAL', "return redis.call('SET', KEYS[1], 'two')", '1', 'b'), { t: 'simple', v: 'OK' });
    const digest = await c.call('DEBUG', 'DIGEST');
    const aof = aofText(dir);
    assert.doesNotMatch(aof, /EVAL/i);
    const record = /\*1\r\n\$5\r\nMULTI\r\n([\s\S]*?)\*1\r\n\$4\r\nEXEC\r\n/.exec(aof);
    assert.ok(record !== null, aof);
    assert.match(record[1]!, /SET\r\n\$1\r\na\r\n\$3\r\none/);
    assert.match(record[1]!, /INCR\r\n\$1\r\nn/);
    assert.equal(aof.match(/MULTI/g)!.length, aof.match(/EXEC/g)!.length);
    await checkAof(dir);
    c.close();
    await stopChild(server.child, 'SIGKILL');
    server = await start(dir);
    c = await RespClient.connect(server.port);
    assert.deepEqual(await c.call('DEBUG', 'DIGEST'), digest);
    assert.deepEqual(await c.call('MGET', 'a', 'n', 'b'), {
      t: 'array',
      v: [{ t: 'bulk', v: 'one' }, { t: 'bulk', v: '1' }, { t: 'bulk', v: 'two' }],
    });
  } finally {
    c.close();
    await stopChild(server.child, 'SIGKILL');
  }
});

/**
 * Starts a script that writes, then spins past busy-reply-threshold; `stop` ends the server
 * meanwhile (its exit code is checked). Restarted, the server has what came before, nothing of
 * the script, and its AOF is valid.
 */
async function endedMidScript(stop: (server: SluiceServer, admin: RespClient) => void): Promise<void> {
  const dir = dataDir();
  let server = await start(dir);
  const admin = await RespClient.connect(server.port);
  const runner = await RespClient.connect(server.port);
  try {
    await admin.call('SET', 'before', 'kept');
    await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
    runner.send(['EVAL', "redis.call('SET', KEYS[1], 'half') while true do end", '1', 'x']);
    await waitFor(async () => (await admin.call('PING')).t === 'error', 'the script to be busy');
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    stop(server, admin);
    assert.equal(await within(exited, 'the server to exit'), 0);
    assert.doesNotMatch(aofText(dir), /half/);
    await checkAof(dir);
    server = await start(dir);
    const c = await RespClient.connect(server.port);
    assert.deepEqual(await c.call('MGET', 'before', 'x'), { t: 'array', v: [{ t: 'bulk', v: 'kept' }, { t: 'bulk', v: null }] });
    c.close();
  } finally {
    admin.close();
    runner.close();
    await stopChild(server.child, 'SIGKILL');
  }
}

test('a script past busy-reply-threshold ended by SHUTDOWN NOSAVE leaves nothing of itself in the AOF', async () => {
  await endedMidScript((_server, admin) => admin.send(['SHUTDOWN', 'NOSAVE']));
});

test('SIGTERM while a script runs past busy-reply-threshold: the server exits cleanly, without the script in its AOF', async () => {
  await endedMidScript((server) => server.child.kill('SIGTERM'));
});
