// Disk errors: with a file layer that fails on demand (ENOSPC on write, EIO on fsync), writes
// are refused with Redis's MISCONF text instead of being acknowledged, reads keep working, a
// write whose bytes could not be logged is answered at once with MISCONF (never acknowledged)
// and its bytes reach the log once the disk takes them, and everything recovers when a later
// write succeeds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmbeddedDatabase, open } from '../../src/client/embedded.js';
import { attachPersistence } from '../../src/persist/attach.js';
import { FlakyFs } from './flaky-fs.js';
import { persistenceInfo, removeDir, tempDir } from './helpers.js';

async function openFlaky(dir: string, appendfsync: 'always' | 'everysec'): Promise<[EmbeddedDatabase, FlakyFs]> {
  const fs = new FlakyFs();
  const db = new EmbeddedDatabase();
  await attachPersistence(db.instance, { dir, appendfsync, fs }, (fn) => db.onClose(fn));
  return [db, fs];
}

async function until(cond: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 10));
}

async function writeStatus(db: EmbeddedDatabase): Promise<string> {
  return persistenceInfo((await db.call('INFO', 'persistence')) as string).aof_last_write_status!;
}

for (const policy of ['always', 'everysec'] as const) {
  test(`appendfsync ${policy}: ENOSPC refuses writes with MISCONF, keeps reads, recovers`, async () => {
    const dir = tempDir(`enospc-${policy}`);
    try {
      const [db, fs] = await openFlaky(dir, policy);
      assert.equal(await db.call('SET', 'a', '1'), 'OK');
      fs.writeError = 'ENOSPC';
      fs.partialBytes = 7; // the failing write gets part of the record onto the disk first
      let acknowledged = false;
      const pending = db.call('SET', 'b', '2').then((r) => {
        acknowledged = true;
        return r;
      });
      pending.catch(() => {}); // its rejection is asserted below
      // (A read issued before the failure is known waits with the write: replies never
      // overtake bytes logged before them. Reads after it is known go straight through.)
      await until(() => fs.failures > 0);
      assert.equal(await writeStatus(db), 'err');
      await assert.rejects(db.call('SET', 'c', '3'), (err: Error) => {
        assert.equal(err.message, 'MISCONF Errors writing to the AOF file: No space left on device');
        return true;
      });
      await assert.rejects(db.call('HSET', 'h', 'f', 'v'), /^ReplyError: MISCONF/);
      assert.equal(await db.call('GET', 'a'), '1');
      assert.equal(await db.call('GET', 'c'), null);
      assert.equal(acknowledged, false, 'a write that is not in the log must not be acknowledged');
      await assert.rejects(pending, /^ReplyError: MISCONF Errors writing to the AOF file: No space left on device$/);
      fs.writeError = null;
      await until(async () => (await writeStatus(db)) === 'ok');
      assert.equal(await db.call('SET', 'c', '3'), 'OK');
      await db.close();
      const reopened = await open({ dir, appendfsync: policy });
      assert.deepEqual(await reopened.call('MGET', 'a', 'b', 'c', 'h'), ['1', '2', '3', null]);
      await reopened.close();
    } finally {
      removeDir(dir);
    }
  });
}

test('appendfsync always: EIO on fsync fails the reply and refuses writes until fsync succeeds', async () => {
  const dir = tempDir('eio');
  try {
    const [db, fs] = await openFlaky(dir, 'always');
    await db.call('SET', 'a', '1');
    fs.fsyncError = 'EIO';
    let acknowledged = false;
    const pending = db.call('SET', 'b', '2').then((r) => {
      acknowledged = true;
      return r;
    });
    pending.catch(() => {}); // its rejection is asserted below
    await until(() => fs.failures > 0);
    assert.equal(await writeStatus(db), 'err');
    await assert.rejects(db.call('SET', 'c', '3'), /^ReplyError: MISCONF Errors writing to the AOF file: Input\/output error$/);
    assert.equal(await db.call('GET', 'b'), '2'); // executed in memory, reads see it
    assert.equal(acknowledged, false);
    await assert.rejects(pending, /^ReplyError: MISCONF Errors writing to the AOF file: Input\/output error$/);
    fs.fsyncError = null;
    await until(async () => (await writeStatus(db)) === 'ok');
    assert.equal(await db.call('SET', 'c', '3'), 'OK');
    await db.close();
    const reopened = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await reopened.call('MGET', 'a', 'b', 'c'), ['1', '2', '3']);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});

test('a rewrite that hits a disk error fails cleanly and leaves the old log in force', async () => {
  const dir = tempDir('rewrite-enospc');
  try {
    const [db, fs] = await openFlaky(dir, 'everysec');
    for (let i = 0; i < 100; i++) await db.call('SET', `k${i}`, `v${i}`);
    fs.writeError = 'ENOSPC';
    await db.call('BGREWRITEAOF');
    await until(async () => persistenceInfo((await db.call('INFO', 'persistence')) as string).aof_rewrite_in_progress === '0');
    const info = persistenceInfo((await db.call('INFO', 'persistence')) as string);
    assert.equal(info.aof_last_bgrewrite_status, 'err');
    assert.equal(info.aof_rewrites, '0');
    fs.writeError = null;
    assert.equal(await db.call('SET', 'after', 'x'), 'OK');
    await db.close();
    const reopened = await open({ dir, appendfsync: 'everysec' });
    assert.equal(await reopened.call('GET', 'k99'), 'v99');
    assert.equal(await reopened.call('GET', 'after'), 'x');
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});
