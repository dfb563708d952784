// Disk errors: with a file layer that fails on demand (ENOSPC on write, EIO on fsync), writes
// are refused with Redis's MISCONF text instead of being acknowledged, reads keep working, a
// write whose bytes could not be logged is answered at once with MISCONF (never acknowledged)
// and its bytes reach the log once the disk takes them, and everything recovers when a later
// write succeeds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EmbeddedDatabase, open } from '../../src/client/embedded.js';
import { openOnFs } from '../support/fault-fs.js';
import { FlakyFs } from './flaky-fs.js';
import { persistenceInfo, withTempDir } from './helpers.js';
import { waitFor } from '../support/wait.js';

function openFlaky(dir: string, appendfsync: 'always' | 'everysec'): Promise<[EmbeddedDatabase, FlakyFs]> {
  return openOnFs(dir, appendfsync, new FlakyFs());
}

/** A call whose reply is watched: acknowledged() tells whether a success has arrived yet. */
function watched<T>(call: Promise<T>): { reply: Promise<T>; acknowledged: () => boolean } {
  let arrived = false;
  const reply = call.then((r) => {
    arrived = true;
    return r;
  });
  reply.catch(() => {}); // a rejection is asserted by the test
  return { reply, acknowledged: () => arrived };
}

async function writeStatus(db: EmbeddedDatabase): Promise<string> {
  return persistenceInfo((await db.call('INFO', 'persistence')) as string).aof_last_write_status!;
}

for (const policy of ['always', 'everysec'] as const) {
  test(`appendfsync ${policy}: ENOSPC refuses writes with MISCONF, keeps reads, recovers`, async () => {
    await withTempDir(`enospc-${policy}`, async (dir) => {
      const [db, fs] = await openFlaky(dir, policy);
      assert.equal(await db.call('SET', 'a', '1'), 'OK');
      fs.writeError = 'ENOSPC';
      fs.partialBytes = 7; // the failing write gets part of the record onto the disk first
      const pending = watched(db.call('SET', 'b', '2'));
      // (A read issued before the failure is known waits with the write: replies never
      // overtake bytes logged before them. Reads after it is known go straight through.)
      await waitFor(() => fs.failures > 0, 'a failed write');
      assert.equal(await writeStatus(db), 'err');
      await assert.rejects(db.call('SET', 'c', '3'), (err: Error) => {
        assert.equal(err.message, 'MISCONF Errors writing to the AOF file: No space left on device');
        return true;
      });
      await assert.rejects(db.call('HSET', 'h', 'f', 'v'), /^ReplyError: MISCONF/);
      assert.equal(await db.call('GET', 'a'), '1');
      assert.equal(await db.call('GET', 'c'), null);
      assert.equal(pending.acknowledged(), false, 'a write that is not in the log must not be acknowledged');
      await assert.rejects(pending.reply, /^ReplyError: MISCONF Errors writing to the AOF file: No space left on device$/);
      fs.writeError = null;
      await waitFor(async () => (await writeStatus(db)) === 'ok', 'aof_last_write_status:ok');
      assert.equal(await db.call('SET', 'c', '3'), 'OK');
      await db.close();
      const reopened = await open({ dir, appendfsync: policy });
      assert.deepEqual(await reopened.call('MGET', 'a', 'b', 'c', 'h'), ['1', '2', '3', null]);
      await reopened.close();
    });
  });
}

test('appendfsync always: EIO on fsync fails the reply and refuses writes until fsync succeeds', async () => {
  await withTempDir('eio', async (dir) => {
    const [db, fs] = await openFlaky(dir, 'always');
    await db.call('SET', 'a', '1');
    fs.fsyncError = 'EIO';
    const pending = watched(db.call('SET', 'b', '2'));
    await waitFor(() => fs.failures > 0, 'a failed write');
    assert.equal(await writeStatus(db), 'err');
    await assert.rejects(db.call('SET', 'c', '3'), /^ReplyError: MISCONF Errors writing to the AOF file: Input\/output error$/);
    assert.equal(await db.call('GET', 'b'), '2'); // executed in memory, reads see it
    assert.equal(pending.acknowledged(), false);
    await assert.rejects(pending.reply, /^ReplyError: MISCONF Errors writing to the AOF file: Input\/output error$/);
    fs.fsyncError = null;
    await waitFor(async () => (await writeStatus(db)) === 'ok', 'aof_last_write_status:ok');
    assert.equal(await db.call('SET', 'c', '3'), 'OK');
    await db.close();
    const reopened = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await reopened.call('MGET', 'a', 'b', 'c'), ['1', '2', '3']);
    await reopened.close();
  });
});

test('a rewrite that hits a disk error fails cleanly and leaves the old log in force', async () => {
  await withTempDir('rewrite-enospc', async (dir) => {
    const [db, fs] = await openFlaky(dir, 'everysec');
    for (let i = 0; i < 100; i++) await db.call('SET', `k${i}`, `v${i}`);
    fs.writeError = 'ENOSPC';
    await db.call('BGREWRITEAOF');
    await waitFor(async () => persistenceInfo((await db.call('INFO', 'persistence')) as string).aof_rewrite_in_progress === '0', 'the rewrite to end');
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
  });
});

test('appendfsync everysec: while writes still fail, the fsync of what was written does not clear the error', async () => {
  await withTempDir('enospc-everysec-fsync', async (dir) => {
    const [db, fs] = await openFlaky(dir, 'everysec');
    assert.equal(await db.call('SET', 'a', '1'), 'OK');
    fs.writeError = 'ENOSPC';
    fs.partialBytes = 7; // the disk takes part of the record, then is full
    await assert.rejects(db.call('SET', 'b', '2'), /^ReplyError: MISCONF/);
    // The once-a-second fsync syncs those 7 bytes and succeeds, while the retried write of the
    // rest keeps failing: the log still lacks SET b, so the error stands.
    await waitFor(() => fs.fsyncs >= 1 && fs.failures >= 3, 'an fsync and three failed writes', 10_000, 20);
    assert.equal(await writeStatus(db), 'err');
    await assert.rejects(db.call('SET', 'c', '3'), /^ReplyError: MISCONF Errors writing to the AOF file: No space left on device$/);
    fs.writeError = null;
    await waitFor(async () => (await writeStatus(db)) === 'ok', 'aof_last_write_status:ok');
    assert.equal(await db.call('SET', 'c', '3'), 'OK');
    await db.close();
    const reopened = await open({ dir, appendfsync: 'everysec' });
    assert.deepEqual(await reopened.call('MGET', 'a', 'b', 'c'), ['1', '2', '3']);
    await reopened.close();
  });
});
