// The fsync policies, observed through a counting file layer: when a write's reply arrives its
// bytes are already in the file (all policies) and fsynced (always); the writes of one event
// loop turn share one fsync (group commit); everysec fsyncs in the background.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { EmbeddedDatabase } from '../../src/client/embedded.js';
import { nodeFs } from '../../src/persist/fs-layer.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { openOnFs, PassThroughFs } from '../support/fault-fs.js';
import { incrFile, withTempDir } from './helpers.js';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';

/**
 * nodeFs, counting fsyncs (on the event loop or in the thread pool) and the file size each one
 * made durable. With `delayMs`, every fsync takes that long (a slow disk).
 */
class CountingFs extends PassThroughFs {
  fsyncs = 0;
  /** Of which on the event loop (fsyncSync). */
  onLoop = 0;
  delayMs = 0;
  /** File size at each completed fsync. */
  syncedSizes: number[] = [];
  constructor(private readonly path: () => string) {
    super();
  }

  override async fsync(fd: number): Promise<void> {
    this.fsyncs++;
    const size = nodeFs.size(this.path());
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    await super.fsync(fd);
    this.syncedSizes.push(size);
  }

  override fsyncSync(fd: number): void {
    this.fsyncs++;
    this.onLoop++;
    const size = nodeFs.size(this.path());
    if (this.delayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.delayMs);
    super.fsyncSync(fd);
    this.syncedSizes.push(size);
  }
}

async function openCounting(dir: string, appendfsync: 'always' | 'everysec' | 'no'): Promise<[EmbeddedDatabase, CountingFs]> {
  const [db, fs] = await openOnFs(dir, appendfsync, new CountingFs(() => incrFile(dir)));
  await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
  return [db, fs];
}

for (const policy of ['always', 'everysec', 'no'] as const) {
  test(`appendfsync ${policy}: a write is in the file when its reply arrives`, async () => {
    await withTempDir(`policy-${policy}`, async (dir) => {
      const [db, fs] = await openCounting(dir, policy);
      const atOpen = fs.fsyncs; // opening syncs the files it creates
      for (let i = 0; i < 20; i++) {
        const value = `value-${i}`;
        assert.equal(await db.call('SET', `k${i}`, value), 'OK');
        const file = readFileSync(incrFile(dir));
        assert.ok(file.subarray(file.length - 40).includes(encodeCommand(['SET', `k${i}`, value])), `k${i} written before its reply`);
        if (policy === 'always') {
          assert.ok(fs.syncedSizes.length > 0 && fs.syncedSizes[fs.syncedSizes.length - 1]! >= file.length, `k${i} fsynced before its reply`);
        }
      }
      if (policy === 'no') assert.equal(fs.fsyncs, atOpen);
      await db.close();
    });
  });
}

test('appendfsync always: concurrent writes of one turn share an fsync (group commit)', async () => {
  await withTempDir('group-commit', async (dir) => {
    const [db, fs] = await openCounting(dir, 'always');
    const sessions = Array.from({ length: 200 }, () => db.session());
    const before = fs.fsyncs;
    const replies = await Promise.all(sessions.map((s, i) => s.call('SET', `g${i}`, String(i))));
    assert.deepEqual(replies, sessions.map(() => 'OK'));
    const used = fs.fsyncs - before;
    assert.ok(used >= 1 && used <= 2, `${used} fsyncs for 200 concurrent writes`);
    await db.close();
  });
});

test('appendfsync everysec: the background fsync catches up without any command', async () => {
  await withTempDir('everysec', async (dir) => {
    const [db, fs] = await openCounting(dir, 'everysec');
    await db.call('SET', 'a', '1');
    const size = readFileSync(incrFile(dir)).length;
    await waitFor(() => fs.syncedSizes.some((s) => s >= size), 'the background fsync', WAIT_LIMIT_MS, 50);
    assert.ok(fs.fsyncs >= 1);
    await db.close();
  });
});

test('appendfsync always: a slow disk is synced in the thread pool, so the event loop keeps running', async () => {
  await withTempDir('slow-fsync', async (dir) => {
    const [db, fs] = await openCounting(dir, 'always');
    fs.delayMs = 30;
    // The writer learns the disk's speed from its first fsyncs (a moving average).
    for (let i = 0; i < 5; i++) assert.equal(await db.call('SET', `warm${i}`, 'v'), 'OK');
    const onLoop = fs.onLoop;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    for (let i = 0; i < 5; i++) assert.equal(await db.call('SET', `slow${i}`, 'v'), 'OK');
    clearInterval(timer);
    assert.equal(fs.onLoop, onLoop, 'no fsync on the event loop once the disk is known to be slow');
    assert.ok(ticks >= 20, `a 1 ms timer ran ${ticks} times during five 30 ms fsyncs`);
    // The disk turns fast again: the fsyncs come back to the event loop.
    fs.delayMs = 0;
    for (let i = 0; i < 40; i++) assert.equal(await db.call('SET', `fast${i}`, 'v'), 'OK');
    assert.ok(fs.onLoop > onLoop, 'fsyncs back on the event loop');
    await db.close();
  });
});
