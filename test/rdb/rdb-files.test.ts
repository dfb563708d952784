// RDB files between redis-server 7.0 and `sluice server`, both ways: redis-server's SAVE loads
// into sluice (started with --dir and no AOF) and reads the same; sluice's SAVE loads into
// redis-server and reads the same; a Redis 7 appendonlydir whose base is an RDB file
// (aof-use-rdb-preamble yes, Redis's default) loads into sluice. Also SAVE/BGSAVE/LASTSAVE,
// dbfilename and a corrupt file.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { populate, snapshot } from '../support/rdb-fixtures.js';
import { startRedisServer, startSluiceServer, spawnUntil, CLI_MAIN } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { client, using, withDir } from './servers.js';

/** The fixture in db 0 plus a key in db 3; returns a snapshot reader over both. */
async function fill(c: Redis): Promise<(c: Redis) => Promise<unknown[]>> {
  const keys = await populate(c);
  await c.select(3);
  await c.set('in-db-3', 'x');
  await c.select(0);
  return async (other: Redis) => {
    const main = await snapshot(other, keys);
    await other.select(3);
    const three = await snapshot(other, ['in-db-3']);
    await other.select(0);
    return [...main, ...three, await other.dbsize()];
  };
}

test('a dump.rdb saved by redis-server loads into sluice server and reads the same', async () => {
  await withDir(async (dir) => {
    const redis = await startRedisServer(['--dir', dir]);
    const r = await client(redis.port);
    const read = await fill(r);
    const expected = await read(r);
    assert.equal(await r.save(), 'OK');
    r.disconnect();
    await redis.stop();

    await using(await startSluiceServer(['--dir', dir, '--appendonly', 'no']), async (s) => {
      assert.deepEqual(await read(s), expected);
      const info = await s.info('persistence');
      assert.match(info, /rdb_last_load_keys_loaded:20\r\n/);
      assert.match(info, /aof_enabled:0/);
    });
  });
});

test('a dump.rdb saved by sluice server loads into redis-server and reads the same', async () => {
  await withDir(async (dir) => {
    const sluice = await startSluiceServer(['--dir', dir, '--appendonly', 'no', '--dbfilename', 'mine.rdb', '--enable-protected-configs', 'local']);
    const s = await client(sluice.port);
    const read = await fill(s);
    const expected = await read(s);
    const before = Number(await s.lastsave());
    assert.equal(await s.save(), 'OK');
    assert.ok(existsSync(join(dir, 'mine.rdb')));
    assert.equal(await s.bgsave(), 'Background saving started');
    assert.ok(Number(await s.lastsave()) >= before);
    const info = await s.info('persistence');
    assert.match(info, /rdb_saves:2\r\n/);
    assert.match(info, /rdb_changes_since_last_save:0\r\n/);
    assert.match(info, /rdb_last_bgsave_status:ok\r\n/);
    await assert.rejects(s.config('SET', 'dbfilename', 'a/b.rdb'), /dbfilename can't be a path, just a filename/);
    s.disconnect();
    await sluice.stop();
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('temp-')), []);

    await using(await startRedisServer(['--dir', dir, '--dbfilename', 'mine.rdb']), async (r) => {
      assert.deepEqual(await read(r), expected);
    });
  });
});

test('a Redis 7 appendonlydir whose base is an RDB file loads into sluice server', async () => {
  await withDir(async (dir) => {
    const redis = await startRedisServer(['--dir', dir, '--appendonly', 'yes', '--aof-use-rdb-preamble', 'yes']);
    const r = await client(redis.port);
    const read = await fill(r);
    await r.bgrewriteaof();
    await waitFor(async () => /aof_rewrite_in_progress:0\r\n[\s\S]*aof_rewrite_scheduled:0/.test(await r.info('persistence')) &&
      readdirSync(join(dir, 'appendonlydir')).some((f) => f.endsWith('.base.rdb')), 'the rewrite');
    // Writes after the rewrite go to the incr file, as commands.
    await r.set('after-rewrite', 'yes');
    await r.xadd('mine:stream', '7-7', 'k', 'v');
    const expected = [await read(r), await r.get('after-rewrite'), await r.xrange('mine:stream', '-', '+')];
    r.disconnect();
    await redis.stop();

    await using(await startSluiceServer(['--dir', dir]), async (s) => {
      assert.deepEqual([await read(s), await s.get('after-rewrite'), await s.xrange('mine:stream', '-', '+')], expected);
    });
  });
});

test('a dump.rdb with a wrong checksum refuses to start, naming the file', async () => {
  await withDir(async (dir) => {
    const redis = await startRedisServer(['--dir', dir]);
    const r = await client(redis.port);
    await r.set('k', 'v');
    await r.save();
    r.disconnect();
    await redis.stop();
    const file = join(dir, 'dump.rdb');
    const data = readFileSync(file);
    data[data.length - 1] ^= 0xff;
    writeFileSync(file, data);
    await assert.rejects(
      spawnUntil(process.execPath, [CLI_MAIN, 'server', '--port', '0', '--dir', dir, '--appendonly', 'no'], /ready on/),
      /Wrong RDB checksum/,
    );
  });
});
