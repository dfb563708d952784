// A crash at any point of a rewrite leaves a loadable log with every acknowledged write:
// the file layer "dies" (every call throws from then on) at the N-th file operation of the
// rewrite, for every N, and a fresh process then loads the directory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EmbeddedDatabase, open } from '../../src/client/embedded.js';
import { openOnFs, PassThroughFs } from '../support/fault-fs.js';
import { dump, releaseLockOfDeadProcess, removeDir, tempDir, withTempDir } from './helpers.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

/** nodeFs until `armed` disk operations have run after arm(); then every operation throws. */
class DyingFs extends PassThroughFs {
  private remaining = Infinity;
  dead = false;
  ops = 0;

  arm(after: number): void {
    this.remaining = after;
    this.ops = 0;
  }

  protected override before(): void {
    if (this.dead) throw new Error('process is dead');
    this.ops++;
    if (this.remaining-- <= 0) {
      this.dead = true;
      throw new Error('crash');
    }
  }

  override close(fd: number): void {
    if (!this.dead) super.close(fd);
  }
}

async function workload(db: EmbeddedDatabase, round: number): Promise<void> {
  for (let i = 0; i < 40; i++) await db.call('SET', `k${i}`, `r${round}-${i}`);
  await db.call('HSET', 'h', `f${round}`, 'v');
  await db.call('SADD', 's', `m${round}`);
}

test('a crash at every file operation of a rewrite leaves a loadable, complete log', async () => {
  // First count the operations of one complete rewrite.
  let total = 0;
  {
    const dir = tempDir('rw-count');
    const [db, fs] = await openOnFs(dir, 'always', new DyingFs());
    await workload(db, 0);
    fs.arm(Infinity);
    assert.equal(await db.call('SAVE'), 'OK');
    total = fs.ops;
    await db.close();
    removeDir(dir);
  }
  assert.ok(total >= 8, `a rewrite uses ${total} file operations`);

  for (let n = 0; n <= total; n++) {
    await withTempDir('rw-crash', async (dir) => {
      // A previous successful rewrite, so the crash also races the removal of old files.
      const first = await open({ dir, appendfsync: 'always' });
      await workload(first, 1);
      await first.call('SAVE');
      await workload(first, 2);
      await first.close();

      const [db, fs] = await openOnFs(dir, 'always', new DyingFs());
      await workload(db, 3);
      const expected = await dump(db);
      fs.arm(n);
      await db.call('SAVE').catch(() => undefined);
      instanceBehind(db).stop(); // the process is gone: nothing else runs
      releaseLockOfDeadProcess(dir);

      const reopened = await open({ dir, appendfsync: 'always' });
      assert.deepEqual(await dump(reopened), expected, `crash at operation ${n} of ${total}`);
      // And the reopened log keeps working.
      await reopened.call('SET', 'after', '1');
      await reopened.close();
      const again = await open({ dir, appendfsync: 'always' });
      assert.equal(await again.call('GET', 'after'), '1');
      await again.close();
    });
  }
});
