// CONFIG SET appendonly yes|no on a running `sluice server`: turning it on writes the current
// data as a new base (a rewrite, as Redis's startAppendOnly) and logs every later write, so a
// restart with the directory brings everything back; turning it off stops the appends (files
// stay as they were). INFO persistence follows; DEBUG LOADAOF reads back what the files hold.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { RespClient, bulk, int, simple, type Wire } from '../server/resp-client.js';
import { startSluiceServer } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { aofDir, persistenceInfo, withTempDir } from './helpers.js';

async function persistence(c: RespClient): Promise<Record<string, string>> {
  const reply = (await c.call('INFO', 'persistence')) as { v: string };
  return persistenceInfo(reply.v);
}

function aofBytes(dir: string): number {
  return readdirSync(aofDir(dir)).reduce((n, f) => n + statSync(join(aofDir(dir), f)).size, 0);
}

test('CONFIG SET appendonly yes: the current data becomes the base, later writes are logged, a restart loads them', async () => {
  await withTempDir('aof-on', async (dir) => {
    let server = await startSluiceServer(['--dir', dir, '--appendonly', 'no', '--enable-debug-command', 'yes']);
    let c = await RespClient.connect(server.port);
    try {
      await c.call('XADD', 's', '1-1', 'before', 'on');
      await c.call('XGROUP', 'CREATE', 's', 'g', '0');
      await c.call('SET', 'k', 'v');
      assert.equal((await persistence(c)).aof_enabled, '0');
      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'yes'), simple('OK'));
      assert.deepEqual(await c.call('CONFIG', 'GET', 'appendonly'), { t: 'array', v: [bulk('appendonly'), bulk('yes')] });
      assert.equal((await persistence(c)).aof_enabled, '1');
      await waitFor(async () => (await persistence(c)).aof_rewrite_in_progress === '0', 'the rewrite that turns the AOF on');
      const after = await persistence(c);
      assert.equal(after.aof_rewrites, '1');
      assert.equal(after.aof_last_bgrewrite_status, 'ok');
      const manifest = readFileSync(join(aofDir(dir), 'appendonly.aof.manifest'), 'utf8');
      assert.match(manifest, /appendonly\.aof\.\d+\.base\.aof seq \d+ type b/);
      // The file logged to while the rewrite ran is gone once the new base is in the manifest.
      assert.deepEqual(readdirSync(aofDir(dir)).filter((f) => f.startsWith('temp-')), []);
      await c.call('XADD', 's', '2-2', 'after', 'on');
      await c.call('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>');
      // Turning it on again is a no-op; so is a second SET to the same value.
      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'yes'), simple('OK'));
      // DEBUG LOADAOF empties the dataset and loads it back from the files.
      assert.deepEqual(await c.call('DEBUG', 'LOADAOF'), simple('OK'));
      assert.deepEqual(await c.call('XLEN', 's'), int(2));
      c.close();
      await server.stop();

      server = await startSluiceServer(['--dir', dir]);
      c = await RespClient.connect(server.port);
      assert.deepEqual(await c.call('GET', 'k'), bulk('v'));
      assert.deepEqual(await c.call('XLEN', 's'), int(2));
      const pending = (await c.call('XPENDING', 's', 'g')) as { v: Wire[] };
      assert.deepEqual(pending.v[0], int(2));
    } finally {
      c.close();
      await server.stop();
    }
  });
});

test('CONFIG SET appendonly no: no more appends, INFO says off; on again rewrites the data written meanwhile', async () => {
  await withTempDir('aof-off', async (dir) => {
    let server = await startSluiceServer(['--dir', dir, '--appendfsync', 'always']);
    let c = await RespClient.connect(server.port);
    try {
      await c.call('SET', 'logged', '1');
      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'no'), simple('OK'));
      const off = await persistence(c);
      assert.equal(off.aof_enabled, '0');
      assert.equal(off.aof_rewrite_in_progress, '0');
      const size = aofBytes(dir);
      await c.call('SET', 'not-logged', '1');
      await c.call('XADD', 's', '*', 'f', 'v');
      assert.equal(aofBytes(dir), size);
      assert.deepEqual(await c.call('BGREWRITEAOF'), { t: 'error', v: 'ERR persistence is not enabled: start sluice with a data directory (--dir)' });
      // With the AOF off, SAVE and BGSAVE write dump.rdb in dir, as Redis does.
      assert.deepEqual(await c.call('SAVE'), simple('OK'));
      assert.ok(existsSync(join(dir, 'dump.rdb')), 'SAVE wrote no dump.rdb');
      assert.deepEqual(await c.call('BGSAVE'), simple('Background saving started'));

      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'yes'), simple('OK'));
      await waitFor(async () => (await persistence(c)).aof_rewrite_in_progress === '0', 'the rewrite that turns the AOF on');
      c.close();
      await server.stop();

      server = await startSluiceServer(['--dir', dir]);
      c = await RespClient.connect(server.port);
      assert.deepEqual(await c.call('MGET', 'logged', 'not-logged'), { t: 'array', v: [bulk('1'), bulk('1')] });
      assert.deepEqual(await c.call('XLEN', 's'), int(1));
      c.close();
      await server.stop();

      // The RDB file those saves wrote is what a start without the AOF loads.
      server = await startSluiceServer(['--dir', dir, '--appendonly', 'no']);
      c = await RespClient.connect(server.port);
      assert.deepEqual(await c.call('MGET', 'logged', 'not-logged'), { t: 'array', v: [bulk('1'), bulk('1')] });
    } finally {
      c.close();
      await server.stop();
    }
  });
});

test('DEBUG LOADAOF while the rewrite that turns the AOF on is still running: it completes first, nothing is lost', async () => {
  await withTempDir('aof-loadaof', async (dir) => {
    let server = await startSluiceServer(['--dir', dir, '--appendonly', 'no', '--enable-debug-command', 'yes']);
    let c = await RespClient.connect(server.port);
    try {
      // Enough keys for the rewrite to take several slices.
      for (let batch = 0; batch < 30; batch++) {
        const argv = ['MSET'];
        for (let i = 0; i < 1000; i++) argv.push(`k${batch}:${i}`, 'v'.repeat(20));
        c.send(argv);
      }
      for (let batch = 0; batch < 30; batch++) assert.deepEqual(await c.read(), simple('OK'));
      // One pipeline: the rewrite starts, a write lands while it runs, LOADAOF reads the files.
      c.send(['CONFIG', 'SET', 'appendonly', 'yes']);
      c.send(['SET', 'during', 'rewrite']);
      c.send(['DEBUG', 'LOADAOF']);
      c.send(['DBSIZE']);
      assert.deepEqual(await c.read(), simple('OK'));
      assert.deepEqual(await c.read(), simple('OK'));
      assert.deepEqual(await c.read(), simple('OK'));
      assert.deepEqual(await c.read(), int(30001));
      assert.equal((await persistence(c)).aof_rewrite_in_progress, '0');
      c.close();
      await server.stop();
      server = await startSluiceServer(['--dir', dir]);
      c = await RespClient.connect(server.port);
      assert.deepEqual(await c.call('DBSIZE'), int(30001));
      assert.deepEqual(await c.call('GET', 'during'), bulk('rewrite'));
    } finally {
      c.close();
      await server.stop();
    }
  });
});

test('the directory stays locked while the AOF is on and is released when it is turned off', async () => {
  await withTempDir('aof-lock', async (dir) => {
    const server = await startSluiceServer(['--dir', dir, '--appendonly', 'no']);
    const c = await RespClient.connect(server.port);
    try {
      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'yes'), simple('OK'));
      await assert.rejects(startSluiceServer(['--dir', dir]), /in use by pid/);
      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'no'), simple('OK'));
      const other = await startSluiceServer(['--dir', dir]);
      // The other process holds it now: turning it back on here fails as Redis's does, with the reason logged.
      assert.deepEqual(await c.call('CONFIG', 'SET', 'appendonly', 'yes'), {
        t: 'error',
        v: "ERR CONFIG SET failed (possibly related to argument 'appendonly') - Unable to turn on AOF. Check server logs.",
      });
      assert.deepEqual(await c.call('CONFIG', 'GET', 'appendonly'), { t: 'array', v: [bulk('appendonly'), bulk('no')] });
      await other.stop();
      assert.match(server.stderr(), /could not turn the append-only file on: .*in use by pid/);
    } finally {
      c.close();
      await server.stop();
    }
  });
});

test('embedded open({dir}): CONFIG SET appendonly no stops logging; DEBUG RELOAD keeps the data', async () => {
  await withTempDir('aof-embedded', async (dir) => {
    let db = await open({ dir });
    await db.call('XADD', 's', '1-1', 'f', 'v');
    await db.call('XGROUP', 'CREATE', 's', 'g', '0');
    assert.equal(await db.call('DEBUG', 'RELOAD'), 'OK');
    assert.equal(await db.call('XLEN', 's'), 1);
    assert.equal(await db.call('CONFIG', 'SET', 'appendonly', 'no'), 'OK');
    await db.call('XADD', 's', '2-2', 'f', 'v');
    await db.close();
    db = await open({ dir });
    try {
      assert.equal(await db.call('XLEN', 's'), 1);
      assert.deepEqual(((await db.call('XINFO', 'GROUPS', 's')) as unknown[][]).length, 1);
    } finally {
      await db.close();
    }
  });
});
