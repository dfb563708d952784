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

/** nodeFs, counting fsyncs and the file size each one made durable. */
class CountingFs extends PassThroughFs {
  fsyncs = 0;
  /** File size at each completed fsync. */
  syncedSizes: number[] = [];
  constructor(private readonly path: () => string) {
    super();
  }

  override async fsync(fd: number): Promise<void> {
    this.fsyncs++;
    const size = nodeFs.size(this.path());
    await super.fsync(fd);
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
      for (let i = 0; i < 20; i++) {
        const value = `value-${i}`;
        assert.equal(await db.call('SET', `k${i}`, value), 'OK');
        const file = readFileSync(incrFile(dir));
        assert.ok(file.subarray(file.length - 40).includes(encodeCommand(['SET', `k${i}`, value])), `k${i} written before its reply`);
        if (policy === 'always') {
          assert.ok(fs.syncedSizes.length > 0 && fs.syncedSizes[fs.syncedSizes.length - 1]! >= file.length, `k${i} fsynced before its reply`);
        }
      }
      if (policy === 'no') assert.equal(fs.fsyncs, 0);
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
    while (!fs.syncedSizes.some((s) => s >= size)) await new Promise((r) => setTimeout(r, 50));
    assert.ok(fs.fsyncs >= 1);
    await db.close();
  });
});
