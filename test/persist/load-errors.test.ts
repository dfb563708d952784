// A well-formed command that fails while the AOF loads (an XADD with a bad id): with
// propagation-error-behavior ignore (the default) it is skipped and the rest loads, with panic
// the load is refused naming the command, file and offset, as redis-server 7.0.15 (which loads
// past it, or aborts). Both sluice and redis-server load the same directory here.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { runCli } from '../cli/helpers.js';
import { startRedisProcess, stopAll } from '../server/processes.js';
import { RespClient, array, bulk } from '../server/resp-client.js';
import { removeDir, tempDir } from './helpers.js';

after(stopAll);

/** A Redis 7 AOF directory whose one incr file has a failing XADD between two SETs. */
function corruptDir(): { dir: string; offset: number } {
  const dir = tempDir('load-errors');
  mkdirSync(join(dir, 'appendonlydir'));
  writeFileSync(join(dir, 'appendonlydir', 'appendonly.aof.manifest'), 'file appendonly.aof.1.incr.aof seq 1 type i\n');
  const first = encodeCommand(['SET', 'a', '1']);
  const bad = encodeCommand(['XADD', 's', '0-0', 'f', 'v']);
  const last = encodeCommand(['SET', 'b', '2']);
  writeFileSync(join(dir, 'appendonlydir', 'appendonly.aof.1.incr.aof'), Buffer.concat([first, bad, last]));
  return { dir, offset: first.length };
}

test('ignore (default): the failing command is skipped, the rest loads (embedded and redis-server)', async () => {
  const { dir } = corruptDir();
  try {
    const db = await open({ dir });
    assert.deepEqual(await db.call('MGET', 'a', 'b'), ['1', '2']);
    assert.equal(await db.call('EXISTS', 's'), 0);
    assert.equal(await db.call('CONFIG', 'GET', 'propagation-error-behavior').then((r) => (r as string[])[1]), 'ignore');
    await db.close();
    const { dir: redisDir } = corruptDir();
    const redis = await startRedisProcess('--dir', redisDir, '--appendonly', 'yes');
    const c = await RespClient.connect(redis.port);
    assert.deepEqual(await c.call('MGET', 'a', 'b'), array([bulk('1'), bulk('2')]));
    c.close();
    assert.match(redis.output(), /This server is sending an error to its AOF-loading-client: 'The ID specified in XADD must be greater than 0-0' after processing the command 'xadd'/);
    await redis.kill();
    removeDir(redisDir);
  } finally {
    removeDir(dir);
  }
});

test('panic: the load is refused (embedded open, sluice server) as redis-server aborts', async () => {
  const { dir, offset } = corruptDir();
  try {
    await assert.rejects(open({ dir, config: { 'propagation-error-behavior': 'panic' } }), (err: Error) => {
      assert.match(err.message, /panicked sending an error to its AOF-loading-client after processing the command 'xadd'/);
      assert.match(err.message, /The ID specified in XADD must be greater than 0-0/);
      assert.match(err.message, new RegExp(`appendonly\\.aof\\.1\\.incr\\.aof, byte offset ${offset}`));
      return true;
    });
    const cli = await runCli(['server', '--port', '0', '--dir', dir, '--propagation-error-behavior', 'panic']);
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /panicked sending an error to its AOF-loading-client/);
    assert.equal(cli.stdout, '', 'never ready');
    await assert.rejects(startRedisProcess('--dir', dir, '--appendonly', 'yes', '--propagation-error-behavior', 'panic'), /panicked sending an error to its AOF-loading-client after processing the command 'xadd'/);
    // Nothing was changed by the refused loads: the default still loads it.
    const db = await open({ dir });
    assert.deepEqual(await db.call('MGET', 'a', 'b'), ['1', '2']);
    await db.close();
  } finally {
    removeDir(dir);
  }
});

test('propagation-error-behavior: CONFIG SET and the flag take Redis\'s values only', async () => {
  const db = await open();
  await assert.rejects(db.call('CONFIG', 'SET', 'propagation-error-behavior', 'x'), /argument\(s\) must be one of the following: ignore, panic, panic-on-replicas/);
  assert.equal(await db.call('CONFIG', 'SET', 'propagation-error-behavior', 'PANIC'), 'OK');
  assert.deepEqual(await db.call('CONFIG', 'GET', 'propagation-error-behavior'), ['propagation-error-behavior', 'panic']);
  await db.close();
  const cli = await runCli(['server', '--port', '0', '--propagation-error-behavior', 'sometimes']);
  assert.notEqual(cli.code, 0);
  assert.match(cli.stderr, /--propagation-error-behavior: argument\(s\) must be one of the following/);
});
