// Lists through the AOF: what list commands (blocking ones served later included) log replays
// to the same state, and a rewrite writes each list as RPUSH commands of at most 64 elements.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { aofDir, baseFiles, dump, removeDir, tempDir, waitForRewrite } from './helpers.js';

/** A mix of every list write, blocking pops served by later pushes included. */
async function writeLists(db: Awaited<ReturnType<typeof open>>): Promise<void> {
  await db.call('RPUSH', 'big', ...Array.from({ length: 200 }, (_, i) => `e${i}`));
  await db.call('LPUSH', 'big', 'head');
  await db.call('LINSERT', 'big', 'AFTER', 'e10', 'ins');
  await db.call('LSET', 'big', '-1', 'last');
  await db.call('LREM', 'big', '1', 'e5');
  await db.call('LTRIM', 'big', '1', '-3');
  await db.call('LPOP', 'big', '2');
  await db.call('RPOP', 'big');
  await db.call('RPUSH', 'src', 'a', 'b', 'c', 'd');
  await db.call('LMOVE', 'src', 'dst', 'LEFT', 'RIGHT');
  await db.call('RPOPLPUSH', 'src', 'dst');
  await db.call('LMPOP', '2', 'nokey', 'src', 'LEFT', 'COUNT', '1');
  await db.call('BLPOP', 'src', '0');
  await db.call('RPUSH', 'bin', Buffer.from([0, 255, 13, 10]), '');
  await db.call('RPUSH', 'ttl', 'x');
  await db.call('EXPIRE', 'ttl', '10000');
  await db.call('SELECT', '3');
  await db.call('RPUSH', 'other-db', 'v');
  await db.call('SELECT', '0');
  const blocked = [
    db.session().call('BLPOP', 'q', 0),
    db.session().call('BLMOVE', 'q2', 'moved', 'RIGHT', 'LEFT', 0),
    db.session().call('BLMPOP', 0, 1, 'q3', 'RIGHT', 'COUNT', 2),
  ];
  await db.call('RPUSH', 'q', 'q-a', 'q-b');
  await db.call('RPUSH', 'q2', 'm1', 'm2');
  await db.call('RPUSH', 'q3', 'x', 'y', 'z');
  await Promise.all(blocked);
}

test('list commands replay from the AOF to the same state', async () => {
  const dir = tempDir('lists-aof');
  try {
    const db = await open({ dir, appendfsync: 'always' });
    await writeLists(db);
    const expected = await dump(db);
    assert.deepEqual((expected['0:q'] as { value: unknown }).value, ['q-b']);
    assert.deepEqual((expected['0:moved'] as { value: unknown }).value, ['m2']);
    assert.deepEqual((expected['0:q3'] as { value: unknown }).value, ['x']);
    await db.close();
    const reopened = await open({ dir });
    assert.deepEqual(await dump(reopened), expected);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});

test('a rewrite writes lists as RPUSH chunks and loads back identical', async () => {
  const dir = tempDir('lists-rewrite');
  try {
    const db = await open({ dir, appendfsync: 'everysec' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    await writeLists(db);
    const expected = await dump(db);
    await db.call('BGREWRITEAOF');
    const info = await waitForRewrite(db);
    assert.equal(info.aof_last_bgrewrite_status, 'ok');
    await db.close();

    const base = readFileSync(join(aofDir(dir), baseFiles(dir)[0]!), 'latin1');
    const rpushes = base.split('*').filter((cmd) => cmd.includes('\r\nRPUSH\r\n$3\r\nbig\r\n'));
    // 195 elements: chunks of 64, 64, 64 and 3 (Redis's AOF_REWRITE_ITEMS_PER_CMD).
    assert.deepEqual(rpushes.map((cmd) => Number(cmd.slice(0, cmd.indexOf('\r\n'))) - 2), [64, 64, 64, 3]);
    assert.ok(!base.includes('BLPOP') && !base.includes('LMOVE'));

    const reopened = await open({ dir });
    assert.deepEqual(await dump(reopened), expected);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});
