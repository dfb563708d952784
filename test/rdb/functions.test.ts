// Function libraries between redis-server 7.0 and `sluice server`, and across sluice's own
// persistence: FUNCTION DUMP payloads restore both ways (and are byte for byte redis-server's
// with rdbcompression no); dump.rdb files with libraries load both ways; SAVE + restart, DEBUG
// RELOAD, an AOF restart and DEBUG LOADAOF (FUNCTION LOAD/DELETE/FLUSH/RESTORE logged), BGREWRITEAOF (the
// libraries at the head of the new base), BGSAVE, SHUTDOWN and a full sync to a replica keep them;
// replication and append-only directories carry them between redis-server and sluice both ways.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedisServer, startSluiceServer, type Spawned } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { crc64 } from '../../src/rdb/crc64.js';
import { client, using, withDir } from './servers.js';

const LIB_A = "#!lua name=liba\nredis.register_function('fa', function(keys, args) return 'a:' .. (args[1] or '') end)\n";
// Long enough for redis-server to LZF-compress it in payloads and files (rdbcompression yes).
const LIB_B = `#!lua name=libb\n${"-- padding padding padding padding\n".repeat(8)}redis.register_function{function_name='fb', callback=function() return 'b' end, flags={'no-writes'}}\n`;

/** The libraries as FUNCTION LIST WITHCODE shows them, in name order (the order is a hash's in Redis). */
async function libraries(c: Redis): Promise<unknown[]> {
  const list = (await c.call('FUNCTION', 'LIST', 'WITHCODE')) as unknown[][];
  return list.map((l) => JSON.stringify(l)).sort();
}

/** Both libraries loaded and callable. */
async function assertBoth(c: Redis): Promise<void> {
  assert.equal(await c.call('FCALL', 'fa', 0, 'x'), 'a:x');
  assert.equal(await c.call('FCALL_RO', 'fb', 0), 'b');
  assert.deepEqual(await c.call('FUNCTION', 'STATS'), ['running_script', null, 'engines', ['LUA', ['libraries_count', 2, 'functions_count', 2]]]);
}

test('FUNCTION DUMP payloads restore both ways between redis-server and sluice server', async () => {
  const redis = await startRedisServer();
  const sluice = await startSluiceServer();
  const r = await client(redis.port);
  const s = await client(sluice.port);
  try {
    await r.call('FUNCTION', 'LOAD', LIB_A);
    await r.call('FUNCTION', 'LOAD', LIB_B);
    // redis-server compresses LIB_B's code (rdbcompression yes, its default): sluice reads LZF.
    const fromRedis = (await r.callBuffer('FUNCTION', 'DUMP')) as Buffer;
    assert.equal(await s.call('FUNCTION', 'RESTORE', fromRedis), 'OK');
    await assertBoth(s);
    assert.deepEqual(await libraries(s), await libraries(r));
    // APPEND (the default) fails on a library of the same name and changes nothing.
    await assert.rejects(s.call('FUNCTION', 'RESTORE', fromRedis), /^ReplyError: ERR Library (liba|libb) already exists$/);
    await assert.rejects(s.call('FUNCTION', 'RESTORE', fromRedis, 'APPEND'), /already exists/);
    assert.equal(await s.call('FUNCTION', 'RESTORE', fromRedis, 'REPLACE'), 'OK');
    await assertBoth(s);

    const fromSluice = (await s.callBuffer('FUNCTION', 'DUMP')) as Buffer;
    await r.call('FUNCTION', 'FLUSH');
    assert.equal(await r.call('FUNCTION', 'RESTORE', fromSluice), 'OK');
    await assertBoth(r);
    assert.deepEqual(await libraries(r), await libraries(s));

    // One library, rdbcompression no on both: the same bytes.
    for (const c of [r, s]) {
      await c.call('FUNCTION', 'FLUSH');
      await c.call('CONFIG', 'SET', 'rdbcompression', 'no');
      await c.call('FUNCTION', 'LOAD', LIB_B);
    }
    assert.deepEqual(await s.callBuffer('FUNCTION', 'DUMP'), await r.callBuffer('FUNCTION', 'DUMP'));
  } finally {
    r.disconnect();
    s.disconnect();
    await redis.stop();
    await sluice.stop();
  }
});

test('FUNCTION RESTORE FLUSH / APPEND / REPLACE and their errors are redis-server\'s', async () => {
  const redis = await startRedisServer();
  const sluice = await startSluiceServer();
  const r = await client(redis.port);
  const s = await client(sluice.port);
  const other = "#!lua name=other\nredis.register_function('fa', function() return 'other' end)";
  try {
    const outcome = async (c: Redis): Promise<unknown[]> => {
      const out: unknown[] = [];
      const step = async (...args: Array<string | Buffer>): Promise<void> => {
        out.push(await c.call(...(args as [string, ...Array<string | Buffer>])).catch((e: Error) => e.message));
      };
      await c.call('FUNCTION', 'FLUSH');
      await c.call('FUNCTION', 'LOAD', LIB_A);
      await c.call('FUNCTION', 'LOAD', LIB_B);
      const both = (await c.callBuffer('FUNCTION', 'DUMP')) as Buffer;
      await c.call('FUNCTION', 'DELETE', 'libb');
      await c.call('FUNCTION', 'LOAD', 'REPLACE', LIB_A.replace("'a:'", "'A:'"));
      await step('FUNCTION', 'RESTORE', both, 'BAD');
      await step('FUNCTION', 'RESTORE', both, 'APPEND');
      out.push(await libraries(c));
      await step('FUNCTION', 'RESTORE', both, 'replace');
      out.push(await c.call('FCALL', 'fa', 0, 'y'), await libraries(c));
      await c.call('FUNCTION', 'DELETE', 'liba');
      await c.call('FUNCTION', 'LOAD', other);
      // A function name another library holds fails the join, REPLACE or not.
      await step('FUNCTION', 'RESTORE', both, 'REPLACE');
      out.push(await libraries(c));
      await step('FUNCTION', 'RESTORE', both, 'FLUSH');
      out.push(await libraries(c));
      // A DUMP of a key is no function payload.
      await c.set('k', 'v');
      await step('FUNCTION', 'RESTORE', (await c.callBuffer('DUMP', 'k')) as Buffer);
      const corrupt = Buffer.from(both);
      corrupt[3] = corrupt[3]! ^ 0xff;
      await step('FUNCTION', 'RESTORE', corrupt);
      await step('FUNCTION', 'RESTORE', both, 'FLUSH', 'x');
      // Payloads of libraries that do not load: each entry's error, nothing changed.
      const payload = (...codes: string[]): Buffer => {
        const body = Buffer.concat([
          ...codes.map((c) => Buffer.concat([Buffer.from([245, c.length]), Buffer.from(c)])),
          Buffer.from([10, 0]),
        ]);
        const crc = Buffer.alloc(8);
        crc.writeBigUInt64LE(crc64(body));
        return Buffer.concat([body, crc]);
      };
      await step('FUNCTION', 'RESTORE', payload('#!lua name=empty\nreturn 1'));
      await step('FUNCTION', 'RESTORE', payload('#!lua name=bad-name\nreturn 1'), 'FLUSH');
      await step('FUNCTION', 'RESTORE', payload('#!lua name=x\nredis.register_function("x1",function() end)', '#!lua name=x\nreturn 1'));
      await step('FUNCTION', 'RESTORE', payload('#!lua name=y\nreturn +'));
      await step('FUNCTION', 'RESTORE', payload('#!nosuch name=z\nreturn 1'));
      await step('FUNCTION', 'RESTORE', Buffer.concat([Buffer.from([245, 60]), payload('#!lua name=z\nreturn 1').subarray(2)]));
      out.push(await libraries(c));
      return out;
    };
    assert.deepEqual(await outcome(s), await outcome(r));
  } finally {
    r.disconnect();
    s.disconnect();
    await redis.stop();
    await sluice.stop();
  }
});

test('dump.rdb files with libraries load both ways between redis-server and sluice server', async () => {
  await withDir(async (dir) => {
    const redis = await startRedisServer(['--dir', dir, '--dbfilename', 'redis.rdb']);
    await using(redis, async (r) => {
      await r.call('FUNCTION', 'LOAD', LIB_A);
      await r.call('FUNCTION', 'LOAD', LIB_B);
      await r.set('k', 'v');
      await r.save();
    });
    await using(await startSluiceServer(['--dir', dir, '--appendonly', 'no', '--dbfilename', 'redis.rdb']), async (s) => {
      await assertBoth(s);
      assert.equal(await s.get('k'), 'v');
    });
    // sluice's own file, saved under the name redis-server reads next.
    await using(await startSluiceServer(['--dir', dir, '--appendonly', 'no', '--dbfilename', 'sluice.rdb']), async (s) => {
      await s.call('FUNCTION', 'LOAD', LIB_A);
      await s.call('FUNCTION', 'LOAD', LIB_B);
      await s.set('k2', 'v2');
      await s.save();
    });
    // Written before the databases, as rdbSaveRio: right after the AUX fields.
    const file = readFileSync(join(dir, 'sluice.rdb'));
    assert.ok(file.indexOf('#!lua name=liba') < file.indexOf('k2'));
    await using(await startRedisServer(['--dir', dir, '--dbfilename', 'sluice.rdb']), async (r) => {
      await assertBoth(r);
      assert.equal(await r.get('k2'), 'v2');
    });
  });
});

test('sluice server keeps its libraries across SAVE + restart, DEBUG RELOAD and its options', async () => {
  await withDir(async (dir) => {
    const args = ['--dir', dir, '--appendonly', 'no', '--enable-debug-command', 'yes'];
    await using(await startSluiceServer(args), async (s) => {
      await s.call('FUNCTION', 'LOAD', LIB_A);
      await s.call('FUNCTION', 'LOAD', LIB_B);
      assert.equal(await s.call('DEBUG', 'RELOAD'), 'OK');
      await assertBoth(s);
      // NOFLUSH without MERGE: the libraries are already there, the load fails, nothing changes.
      await assert.rejects(s.call('DEBUG', 'RELOAD', 'NOFLUSH'), /Error trying to load the RDB/);
      assert.equal(await s.call('DEBUG', 'RELOAD', 'NOFLUSH', 'MERGE'), 'OK');
      await assertBoth(s);
      await s.call('FUNCTION', 'DELETE', 'libb');
      // NOSAVE loads the image the last RELOAD saved.
      assert.equal(await s.call('DEBUG', 'RELOAD', 'NOSAVE'), 'OK');
      await assertBoth(s);
      await s.save();
    });
    await using(await startSluiceServer(args), async (s) => assertBoth(s));
  });
});

test('with appendonly yes, FUNCTION LOAD/DELETE/FLUSH/RESTORE survive a restart, and BGREWRITEAOF writes the libraries first', async () => {
  await withDir(async (dir) => {
    const args = ['--dir', dir, '--appendonly', 'yes'];
    let payload: Buffer = Buffer.alloc(0);
    await using(await startSluiceServer(args), async (s) => {
      await s.call('FUNCTION', 'LOAD', LIB_A);
      await s.call('FUNCTION', 'LOAD', "#!lua name=gone\nredis.register_function('g', function() return 1 end)");
      await s.call('FUNCTION', 'DELETE', 'gone');
      await s.call('FUNCTION', 'LOAD', LIB_B);
      payload = (await s.callBuffer('FUNCTION', 'DUMP')) as Buffer;
      await s.call('FUNCTION', 'FLUSH');
      await s.call('FUNCTION', 'RESTORE', payload);
    });
    await using(await startSluiceServer(args), async (s) => {
      await assertBoth(s);
      assert.deepEqual(await s.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'gone'), []);
      await s.set('k', 'v');
      await s.call('BGREWRITEAOF');
      await waitFor(async () => /aof_rewrite_in_progress:0/.test(await s.info('persistence')) && readdirSync(join(dir, 'appendonlydir')).some((f) => f.includes('.base.')), 'the rewrite');
      await waitFor(async () => /aof_rewrite_in_progress:0/.test(await s.info('persistence')), 'the rewrite done');
    });
    const base = readdirSync(join(dir, 'appendonlydir')).find((f) => f.includes('.base.'))!;
    const text = readFileSync(join(dir, 'appendonlydir', base), 'latin1');
    assert.ok(text.startsWith('*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n'), 'FUNCTION LOAD before any SELECT, as rewriteFunctions');
    await using(await startSluiceServer([...args, '--enable-debug-command', 'yes']), async (s) => {
      await assertBoth(s);
      assert.equal(await s.get('k'), 'v');
      // DEBUG LOADAOF empties the dataset and the libraries (emptyData), then replays the files.
      await s.call('FUNCTION', 'DELETE', 'liba');
      await s.call('FUNCTION', 'LOAD', "#!lua name=late\nredis.register_function('late', function() return 1 end)");
      assert.equal(await s.call('DEBUG', 'LOADAOF'), 'OK');
      assert.deepEqual(((await s.call('FUNCTION', 'LIST')) as unknown[][]).map((l) => l[1]).sort(), ['late', 'libb']);
    });
  });
});

test('a full sync carries the primary\'s libraries to a replica, replacing the replica\'s own', async () => {
  const primary = await startSluiceServer(['--repl-diskless-sync-delay', '0']);
  const p = await client(primary.port);
  let replica: (Spawned & { port: number }) | null = null;
  let r: Redis | null = null;
  try {
    await p.call('FUNCTION', 'LOAD', LIB_A);
    await p.call('FUNCTION', 'LOAD', LIB_B);
    replica = await startSluiceServer([]);
    r = await client(replica.port);
    await r.call('FUNCTION', 'LOAD', "#!lua name=mine\nredis.register_function('mine', function() return 1 end)");
    await r.call('REPLICAOF', '127.0.0.1', String(primary.port));
    const rr = r;
    await waitFor(async () => /master_link_status:up/.test(await rr.info('replication')), 'the replica in sync');
    // fa may write: a read-only replica refuses it, as Redis; fb is no-writes.
    assert.deepEqual(await libraries(r), await libraries(p));
    assert.equal(await r.call('FCALL_RO', 'fb', 0), 'b');
    assert.deepEqual(await r.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'mine'), []);
    // Later FUNCTION commands reach it through the replication stream.
    await p.call('FUNCTION', 'DELETE', 'libb');
    await waitFor(async () => ((await rr.call('FUNCTION', 'LIST')) as unknown[]).length === 1, 'FUNCTION DELETE replicated');
  } finally {
    p.disconnect();
    r?.disconnect();
    await replica?.stop();
    await primary.stop();
  }
});

test('replication between redis-server and sluice server carries the libraries both ways', async () => {
  const redis = await startRedisServer(['--repl-diskless-sync-delay', '0']);
  const sluice = await startSluiceServer(['--repl-diskless-sync-delay', '0']);
  const r = await client(redis.port);
  const s = await client(sluice.port);
  const linked = (c: Redis) => async () => /master_link_status:up/.test(await c.info('replication'));
  try {
    // redis-server -> sluice: the full sync's RDB, then FUNCTION commands in the stream.
    await r.call('FUNCTION', 'LOAD', LIB_A);
    await r.call('FUNCTION', 'LOAD', LIB_B);
    await s.call('FUNCTION', 'LOAD', "#!lua name=mine\nredis.register_function('mine', function() return 1 end)");
    await s.call('REPLICAOF', '127.0.0.1', String(redis.port));
    await waitFor(linked(s), 'sluice in sync with redis-server');
    assert.deepEqual(await libraries(s), await libraries(r));
    await r.call('FUNCTION', 'DELETE', 'libb');
    await waitFor(async () => ((await s.call('FUNCTION', 'LIST')) as unknown[]).length === 1, 'FUNCTION DELETE replicated to sluice');
    await r.call('FUNCTION', 'RESTORE', (await s.callBuffer('FUNCTION', 'DUMP')) as Buffer, 'FLUSH');
    await r.call('FUNCTION', 'LOAD', LIB_B);
    await waitFor(async () => ((await s.call('FUNCTION', 'LIST')) as unknown[]).length === 2, 'FUNCTION LOAD replicated to sluice');
    assert.deepEqual(await libraries(s), await libraries(r));

    // sluice -> redis-server, after promoting sluice: redis-server loads sluice's RDB.
    await s.call('REPLICAOF', 'NO', 'ONE');
    await r.call('FUNCTION', 'FLUSH');
    await s.call('FUNCTION', 'DELETE', 'liba');
    await s.call('FUNCTION', 'LOAD', "#!lua name=fromsluice\nredis.register_function('fs', function() return 's' end)");
    await r.call('REPLICAOF', '127.0.0.1', String(sluice.port));
    await waitFor(linked(r), 'redis-server in sync with sluice');
    assert.deepEqual(await libraries(r), await libraries(s));
    assert.equal(await r.call('FCALL_RO', 'fb', 0), 'b');
    await s.call('FUNCTION', 'LOAD', LIB_A);
    await waitFor(async () => ((await r.call('FUNCTION', 'LIST')) as unknown[]).length === 3, 'FUNCTION LOAD replicated to redis-server');
    assert.deepEqual(await libraries(r), await libraries(s));
  } finally {
    r.disconnect();
    s.disconnect();
    await redis.stop();
    await sluice.stop();
  }
});

test("append-only directories with libraries load both ways: redis-server's RDB-preamble base, sluice's command base", async () => {
  await withDir(async (dir) => {
    const aof = ['--dir', dir, '--appendonly', 'yes'];
    await using(await startRedisServer(aof), async (r) => {
      await r.call('FUNCTION', 'LOAD', LIB_A);
      await r.call('BGREWRITEAOF');
      await waitFor(async () => /aof_rewrite_in_progress:0/.test(await r.info('persistence')) && /aof_rewrite_scheduled:0/.test(await r.info('persistence')), 'the rewrite');
      // After the rewrite: logged in the new incremental file.
      await r.call('FUNCTION', 'LOAD', LIB_B);
    });
    const base = readdirSync(join(dir, 'appendonlydir')).find((f) => f.includes('.base.'))!;
    assert.match(base, /\.base\.rdb$/);
    await using(await startSluiceServer(aof), async (s) => {
      await assertBoth(s);
      await s.call('FUNCTION', 'DELETE', 'liba');
      await s.call('BGREWRITEAOF');
      await waitFor(async () => /aof_rewrite_in_progress:0/.test(await s.info('persistence')) && readdirSync(join(dir, 'appendonlydir')).some((f) => f.endsWith('.base.aof')), 'sluice\'s rewrite');
      await s.call('FUNCTION', 'LOAD', LIB_A);
    });
    await using(await startRedisServer(aof), async (r) => assertBoth(r));
  });
});

test('BGSAVE and SHUTDOWN save the libraries in dump.rdb', async () => {
  await withDir(async (dir) => {
    const args = ['--dir', dir, '--appendonly', 'no'];
    await using(await startSluiceServer(args), async (s) => {
      await s.call('FUNCTION', 'LOAD', LIB_A);
      await s.call('BGSAVE');
      await waitFor(async () => /rdb_bgsave_in_progress:0/.test(await s.info('persistence')), 'the BGSAVE');
    });
    // Stopped without SHUTDOWN: what BGSAVE wrote.
    await using(await startSluiceServer(args), async (s) => {
      assert.deepEqual(((await s.call('FUNCTION', 'LIST')) as unknown[][]).map((l) => l[1]), ['liba']);
      await s.call('FUNCTION', 'LOAD', LIB_B);
      // SHUTDOWN saves when save points are configured, as Redis.
      await s.call('CONFIG', 'SET', 'save', '3600 1');
      await s.call('SHUTDOWN').catch(() => undefined);
    });
    await using(await startRedisServer(['--dir', dir]), async (r) => assertBoth(r));
  });
});
