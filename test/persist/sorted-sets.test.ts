// Sorted sets through the AOF: replayed after a restart, rewritten as ZADD chunks of 64
// pairs in score order (as Redis's rewriteSortedSetObject), rewritten while clients write, and
// the directory sluice wrote loads in redis-server 7 with the same members and scores.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedis } from '../../bench/servers.js';
import { open, type EmbeddedDatabase } from '../../src/client/embedded.js';
import { aofDir, baseFiles, removeDir, tempDir, waitForRewrite } from './helpers.js';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';

const BIG = 300;

async function workload(db: EmbeddedDatabase): Promise<void> {
  await db.call('ZADD', 'small', '1', 'a', '2.5', 'b', '-inf', 'lo', 'inf', 'hi', '0.1', 'tenth');
  await db.call('ZINCRBY', 'small', '0.2', 'tenth');
  const members: string[] = [];
  for (let i = 0; i < BIG; i++) members.push(String((i * 37) % 101), `member:${i}`);
  await db.call('ZADD', 'big', ...members);
  await db.call('ZADD', 'big', '1e300', 'huge', '5e-324', 'denormal', '0.30000000000000004', 'inexact');
  await db.call('ZREMRANGEBYSCORE', 'big', '(50', '60');
  await db.call('ZREMRANGEBYRANK', 'big', '-10', '-6');
  await db.call('ZPOPMAX', 'big', '3');
  await db.call('ZADD', 'long', '1', 'x'.repeat(100), '2', 'y');
  await db.call('ZADD', 'lex', '0', 'a', '0', 'b', '0', 'c', '0', 'd');
  await db.call('ZREMRANGEBYLEX', 'lex', '(a', '[b');
  await db.call('ZADD', 'ttl', '1', 'a');
  await db.call('PEXPIRE', 'ttl', '3600000');
  await db.call('SELECT', '3');
  await db.call('ZADD', 'other-db', '7', 'seven');
  await db.call('SELECT', '0');
  // A blocked BZPOPMIN served by a ZADD is logged as the ZPOPMIN it did.
  const blocked = db.session().call('BZPOPMIN', 'queue', '0');
  await db.call('ZADD', 'queue', '3', 'job3', '1', 'job1', '2', 'job2');
  assert.deepEqual(await blocked, ['queue', 'job1', '1']);
  await db.call('BZPOPMAX', 'queue', '0');
}

/** Every sorted set of databases 0 and 3, with scores and absolute expiry. */
async function dumpZsets(db: EmbeddedDatabase): Promise<Record<string, unknown>> {
  const s = db.session();
  const out: Record<string, unknown> = {};
  try {
    for (const index of [0, 3]) {
      await s.call('SELECT', index);
      for (const key of ((await s.call('KEYS', '*')) as string[]).sort()) {
        assert.equal(await s.call('TYPE', key), 'zset', key);
        out[`${index}:${key}`] = [await s.call('ZRANGE', key, '0', '-1', 'WITHSCORES'), await s.call('PEXPIRETIME', key)];
      }
    }
  } finally {
    s.close();
  }
  return out;
}

test('sorted sets survive a restart (AOF replay) and a rewrite, written as ZADD chunks of 64', async () => {
  const dir = tempDir('zsets');
  try {
    const db = await open({ dir, appendfsync: 'always' });
    await workload(db);
    const expected = await dumpZsets(db);
    assert.ok((expected['0:big'] as [string[]])[0].length / 2 > 200);
    assert.deepEqual((expected['0:queue'] as [string[]])[0], ['job2', '2']);
    await db.close();

    const restarted = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await dumpZsets(restarted), expected);
    await restarted.call('BGREWRITEAOF');
    await waitForRewrite(restarted);
    await restarted.close();

    const base = readFileSync(join(aofDir(dir), baseFiles(dir)[0]!), 'latin1');
    const zaddsOfBig = base.split('*').filter((cmd) => /^\d+\r\n\$4\r\nZADD\r\n\$3\r\nbig\r\n/.test(cmd));
    const bigSize = (expected['0:big'] as [string[]])[0].length / 2;
    assert.equal(zaddsOfBig.length, Math.ceil(bigSize / 64));
    assert.ok(zaddsOfBig[0]!.startsWith(`${2 + 64 * 2}\r\n`), 'full chunks of 64 score-member pairs');
    assert.ok(base.includes('$23\r\n4.9406564584124654e-324\r\n$8\r\ndenormal\r\n'), 'scores as %.17g');
    assert.ok(base.includes('$19\r\n0.30000000000000004\r\n$7\r\ninexact\r\n'), '17 significant digits');

    const rewritten = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await dumpZsets(rewritten), expected);
    await rewritten.close();
  } finally {
    removeDir(dir);
  }
});

test('a rewrite with clients adding, popping and removing meanwhile ends in the same state', async () => {
  const dir = tempDir('zsets-rewrite');
  try {
    const db = await open({ dir, appendfsync: 'no' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    for (let k = 0; k < 200; k++) {
      const members: string[] = [];
      for (let i = 0; i < 100; i++) members.push(String(i), `k${k}m${i}`);
      await db.call('ZADD', `z${k}`, ...members);
    }
    await db.call('BGREWRITEAOF');
    let step = 0;
    for (;; step++) {
      const key = `z${(step * 7) % 200}`;
      if (step % 4 === 0) await db.call('ZADD', key, String(step), `new${step}`);
      else if (step % 4 === 1) await db.call('ZPOPMIN', key, '2');
      else if (step % 4 === 2) await db.call('ZINCRBY', key, '0.5', `k${(step * 7) % 200}m50`);
      else await db.call('ZREMRANGEBYSCORE', key, '90', '(95');
      if (step % 10 === 0) {
        await new Promise((r) => setImmediate(r));
        if (((await db.call('INFO', 'persistence')) as string).includes('aof_rewrite_in_progress:0')) break;
      }
    }
    assert.ok(step >= 10, `only ${step} writes ran during the rewrite`);
    await waitForRewrite(db);
    const expected = await dumpZsets(db);
    await db.close();
    const reopened = await open({ dir, appendfsync: 'no' });
    assert.deepEqual(await dumpZsets(reopened), expected);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});

test('redis-server 7 loads the sorted sets sluice wrote (base and incr files)', async () => {
  const dir = tempDir('zsets-interop');
  try {
    const db = await open({ dir, appendfsync: 'always' });
    await workload(db);
    await db.call('BGREWRITEAOF');
    await waitForRewrite(db);
    await db.call('ZADD', 'small', '42', 'after-rewrite');
    const expected = await dumpZsets(db);
    await db.close();

    const server = await startRedis(['--dir', dir, '--appendonly', 'yes', '--aof-use-rdb-preamble', 'no']);
    const redis = new Redis({ port: server.port, lazyConnect: true });
    try {
      await redis.connect();
      await waitFor(async () => (await redis.info('persistence')).includes('loading:0'), 'redis-server to load the AOF', WAIT_LIMIT_MS, 20);
      for (const [id, value] of Object.entries(expected)) {
        const [index, key] = [Number(id.slice(0, id.indexOf(':'))), id.slice(id.indexOf(':') + 1)];
        await redis.select(index);
        assert.deepEqual([((await redis.call('ZRANGE', key, '0', '-1', 'WITHSCORES')) as unknown[]).flat(), await redis.call('PEXPIRETIME', key)], value, id);
      }
    } finally {
      redis.disconnect();
      await server.stop();
    }
  } finally {
    removeDir(dir);
  }
});
