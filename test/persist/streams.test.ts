// Streams through the AOF: entries, ids, groups and pending entries survive a restart and a
// rewrite (compared with XINFO STREAM FULL); a 50,000-entry stream restarts; and the files are
// the Redis 7 layout: redis-server 7 loads a directory sluice wrote, with the same state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { open, type EmbeddedDatabase, type Value } from '../../src/client/embedded.js';
import { type RedisServer, startRedisServer } from '../support/processes.js';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';
import { dump, removeDir, scrubTimes, tempDir, waitForRewrite, withTempDir, reopenedDump } from './helpers.js';

async function streamWorkload(db: EmbeddedDatabase): Promise<void> {
  for (let i = 0; i < 300; i++) await db.call('XADD', 'orders', '*', 'n', i, 'payload', `p${i}`);
  await db.call('XADD', 'orders', '9999999999999-5', 'explicit', 'id');
  await db.call('XGROUP', 'CREATE', 'orders', 'billing', '0');
  await db.call('XGROUP', 'CREATE', 'orders', 'shipping', '$', 'ENTRIESREAD', '301');
  const read = (await db.call('XREADGROUP', 'GROUP', 'billing', 'w1', 'COUNT', 50, 'STREAMS', 'orders', '>')) as [string, [string, string[]][]][];
  const ids = read[0]![1].map((e) => e[0]);
  await db.call('XACK', 'orders', 'billing', ...ids.slice(0, 20));
  await db.call('XREADGROUP', 'GROUP', 'billing', 'w2', 'COUNT', 10, 'STREAMS', 'orders', '>');
  await db.call('XCLAIM', 'orders', 'billing', 'w3', 0, ids[30]!, ids[31]!);
  await db.call('XGROUP', 'CREATECONSUMER', 'orders', 'billing', 'idle');
  // Delete acknowledged entries (a deleted pending entry is dropped by XCLAIM on replay, as in Redis).
  await db.call('XDEL', 'orders', ids[0]!, ids[1]!);
  await db.call('XTRIM', 'other', 'MAXLEN', 0);
  for (let i = 0; i < 5; i++) await db.call('XADD', 'capped', 'MAXLEN', '3', '*', 'i', i);
  await db.call('XADD', 'empty', '1-1', 'a', 'b');
  await db.call('XDEL', 'empty', '1-1');
}

test('streams with groups and pending entries survive a restart and a rewrite', async () => {
  await withTempDir('streams', async (dir) => {
    const db = await open({ dir, appendfsync: 'always' });
    await streamWorkload(db);
    const expected = await dump(db);
    await db.close();

    const restarted = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await dump(restarted), expected);
    await restarted.call('BGREWRITEAOF');
    await waitForRewrite(restarted);
    assert.deepEqual(await dump(restarted), expected);
    await restarted.close();

    const rewritten = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await dump(rewritten), expected);
    // The stream keeps working after the rewrite: ids keep increasing, the group continues.
    const next = (await rewritten.call('XADD', 'orders', '*', 'after', 'rewrite')) as string;
    assert.ok(next.localeCompare('9999999999999-5', undefined, { numeric: true }) > 0, next);
    await rewritten.close();
  });
});

test('a 50,000-entry stream restarts with every entry', async () => {
  await withTempDir('big-stream', async (dir) => {
    const n = 50_000;
    const db = await open({ dir, appendfsync: 'no' });
    for (let i = 0; i < n; i++) await db.call('XADD', 'big', `${i + 1}-0`, 'i', i, 'data', 'x'.repeat(20));
    await db.call('XGROUP', 'CREATE', 'big', 'g', '0');
    await db.call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 1000, 'STREAMS', 'big', '>');
    const expected = scrubTimes(await db.call('XINFO', 'STREAM', 'big', 'FULL', 'COUNT', 0));
    await db.close();
    const reopened = await open({ dir, appendfsync: 'no' });
    assert.equal(await reopened.call('XLEN', 'big'), n);
    assert.deepEqual(scrubTimes(await reopened.call('XINFO', 'STREAM', 'big', 'FULL', 'COUNT', 0)), expected);
    assert.deepEqual(await reopened.call('XRANGE', 'big', '25000', '25000'), [['25000-0', ['i', '24999', 'data', 'x'.repeat(20)]]]);
    // And through a rewrite.
    await reopened.call('BGREWRITEAOF');
    await waitForRewrite(reopened);
    await reopened.close();
    const rewritten = await open({ dir, appendfsync: 'no' });
    assert.deepEqual(scrubTimes(await rewritten.call('XINFO', 'STREAM', 'big', 'FULL', 'COUNT', 0)), expected);
    await rewritten.close();
  });
});

/** redis-server (CI installs it: a missing one fails these tests) on this data directory, with its AOF loaded. */
async function startRedis(dir: string): Promise<[RedisServer, Redis]> {
  const server = await startRedisServer(['--dir', dir, '--appendonly', 'yes', '--aof-use-rdb-preamble', 'no']);
  const redis = new Redis({ port: server.port, lazyConnect: true });
  await redis.connect(); // "Ready to accept connections" comes after the AOF is loaded
  return [server, redis];
}

/** Removes `name` and its value from every flat key/value array. */
function withoutField(v: Value, name: string): Value {
  if (!Array.isArray(v)) return v;
  const out: Value[] = [];
  for (let i = 0; i < v.length; i++) {
    if (v[i] === name) i++;
    else out.push(withoutField(v[i]!, name));
  }
  return out;
}

test('redis-server 7 loads the directory sluice wrote (Redis 7 multi-part AOF layout)', async () => {
  const dir = tempDir('interop');
  try {
    const db = await open({ dir, appendfsync: 'always' });
    await streamWorkload(db);
    await db.call('SET', 'str', 'value', 'PX', 3_600_000);
    await db.call('HSET', 'h', 'a', '1', 'b', '2');
    await db.call('SELECT', 5);
    await db.call('SADD', 'set', 'x', 'y', '3');
    await db.call('SELECT', 0);
    await db.call('BGREWRITEAOF');
    await waitForRewrite(db);
    await db.call('XADD', 'orders', '*', 'in', 'incr'); // one command in the incr file too
    const expected = await dump(db);
    await db.close();

    const [server, redis] = await startRedis(dir);
    try {
      for (const [id, entry] of Object.entries(expected)) {
        const [dbIndex, key] = [Number(id.slice(0, id.indexOf(':'))), id.slice(id.indexOf(':') + 1)];
        await redis.select(dbIndex);
        const e = entry as { type: string; value: unknown; expireAt: number };
        assert.equal(await redis.type(key), e.type, id);
        assert.equal(await redis.call('PEXPIRETIME', key), e.expireAt, id);
        if (e.type === 'stream') {
          const info = scrubTimes((await redis.call('XINFO', 'STREAM', key, 'FULL')) as never);
          // active-time is a Redis 7.2 field sluice adds; 7.0 does not have it.
          assert.deepEqual(info, withoutField(e.value as never, 'active-time'), id);
        }
      }
      await redis.select(0);
      assert.deepEqual(await redis.hgetall('h'), { a: '1', b: '2' });
    } finally {
      redis.disconnect();
      await server.stop('SIGKILL');
    }
  } finally {
    removeDir(dir);
  }
});

test('a big stream is rewritten in slices while it is appended to, trimmed, deleted from and consumed', async () => {
  await withTempDir('stream-slices', async (dir) => {
    const db = await open({ dir, appendfsync: 'no' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    // A padded value makes the slices many whatever the machine's speed: a slice ends at its
    // time budget or at 1 MB of output, and 30,000 entries of ~230 bytes are 7 MB.
    const pad = 'p'.repeat(200);
    for (let i = 0; i < 30_000; i++) await db.call('XADD', 'big', `${i + 1}-0`, 'i', i, 'pad', pad);
    // Trims and deletions stay below the group's entries: a pending entry that is deleted is
    // dropped by a rewrite (XCLAIM of a missing entry), in Redis 7.0 as here.
    await db.call('XGROUP', 'CREATE', 'big', 'g', '20000-0');
    await db.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 100, 'STREAMS', 'big', '>');
    for (let i = 0; i < 50; i++) await db.call('SET', `small${i}`, i);
    const other = db.session();
    await db.call('BGREWRITEAOF');
    // Let the first slices write the head of the stream, so trims and XDELs hit written entries.
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    let during = 0;
    for (let step = 0; ; step++) {
      switch (step % 8) {
        case 0:
          await db.call('XADD', 'big', '*', 'during', step);
          break;
        case 1:
          await db.call('XDEL', 'big', `${1 + (step % 10_000)}-0`, `${15_000 - (step % 1000)}-0`);
          break;
        case 2:
          await db.call('XTRIM', 'big', 'MINID', `${1 + Math.min(10_000, Math.floor(step / 4))}-0`);
          break;
        case 3: {
          const got = (await other.call('XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', 3, 'STREAMS', 'big', '>')) as [string, [string, string[]][]][] | null;
          const ids = got?.[0]?.[1].map((e) => e[0]) ?? [];
          if (ids.length > 1) await other.call('XACK', 'big', 'g', ids[0]!);
          break;
        }
        case 4:
          await db.call('XADD', 'big', 'MAXLEN', '=', String(25_000 - (step % 100)), '*', 'capped', step);
          break;
        case 5:
          await db.call('MULTI');
          await db.call('XADD', 'big', '*', 'tx', step);
          await db.call('SET', `small${step % 50}`, `tx${step}`);
          await db.call('EXEC');
          break;
        case 6:
          await db.call('PEXPIRE', 'big', 3_600_000 + step);
          await db.call('XGROUP', 'CREATECONSUMER', 'big', 'g', `consumer${step}`);
          break;
        default:
          await db.call('XSETID', 'big', (await db.call('XINFO', 'STREAM', 'big') as Value[])[7] as string);
      }
      during++;
      if (step % 8 === 7) {
        await new Promise((r) => setImmediate(r));
        const info = (await db.call('INFO', 'persistence')) as string;
        if (info.includes('aof_rewrite_in_progress:0')) break;
      }
    }
    assert.ok(during >= 16, `only ${during} commands ran during the rewrite`);
    const expected = await dump(db);
    other.close();
    await db.close();
    assert.deepEqual(await reopenedDump(dir, 'no'), expected);
  });
});

test('sluice loads the directory redis-server 7 wrote (incr log and a rewritten base)', async () => {
  await withTempDir('from-redis', async (dir) => {
    const [server, redis] = await startRedis(dir);
    const expected: Record<string, unknown> = {};
    try {
      for (let i = 0; i < 200; i++) await redis.xadd('orders', '*', 'n', String(i));
      await redis.xgroup('CREATE', 'orders', 'g', '0');
      await redis.xreadgroup('GROUP', 'g', 'c1', 'COUNT', '20', 'STREAMS', 'orders', '>');
      await redis.set('str', 'v', 'PX', 3_600_000);
      await redis.hset('h', 'a', '1');
      await redis.multi().sadd('set', 'x', 'y').incr('counter').exec();
      await redis.bgrewriteaof();
      await waitFor(async () => (await redis.info('persistence')).includes('aof_rewrite_in_progress:0'), "redis-server's AOF rewrite", WAIT_LIMIT_MS, 20);
      await redis.xadd('orders', '*', 'after', 'rewrite'); // into the new incr file
      await redis.select(3);
      await redis.set('in-db-3', 'yes');
      await redis.select(0);
      expected.orders = scrubTimes((await redis.call('XINFO', 'STREAM', 'orders', 'FULL')) as never);
      expected.str = await redis.call('PEXPIRETIME', 'str');
    } finally {
      redis.disconnect();
      await server.stop('SIGTERM'); // redis-server flushes and fsyncs its AOF before exiting
    }
    const db = await open({ dir, appendfsync: 'always' });
    try {
      assert.deepEqual(withoutField(scrubTimes(await db.call('XINFO', 'STREAM', 'orders', 'FULL')), 'active-time'), expected.orders);
      assert.equal(await db.call('PEXPIRETIME', 'str'), expected.str);
      assert.deepEqual(await db.call('HGETALL', 'h'), ['a', '1']);
      assert.deepEqual(((await db.call('SMEMBERS', 'set')) as string[]).sort(), ['x', 'y']);
      assert.equal(await db.call('GET', 'counter'), '1');
      await db.call('SELECT', 3);
      assert.equal(await db.call('GET', 'in-db-3'), 'yes');
    } finally {
      await db.close();
    }
  });
});
