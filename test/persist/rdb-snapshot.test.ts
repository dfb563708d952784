// dump.rdb through the fs layer: SAVE writes it whole or not at all (a failing disk leaves the
// previous file, answers ERR and reports rdb_last_bgsave_status:err), a start loads it back.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { allCommands } from '../../src/commands/index.js';
import { Instance } from '../../src/commands/core/instance.js';
import { RdbSnapshots } from '../../src/persist/rdb-snapshot.js';
import type { Reply } from '../../src/resp/reply.js';
import { ErrorReply, type SimpleString, type VerbatimReply } from '../../src/resp/reply.js';
import { type DiskOp, PassThroughFs, errno } from '../support/fault-fs.js';

/** Fails the first `op` after `arm()` with ENOSPC. */
class FailingFs extends PassThroughFs {
  failOn: DiskOp | null = null;
  protected override before(op: DiskOp): void {
    if (op === this.failOn) throw errno('ENOSPC');
  }
}

function serverOn(dir: string, fs: FailingFs): { instance: Instance; run: (...argv: string[]) => Promise<Reply> } {
  const instance = new Instance(allCommands, { config: { dir } });
  instance.snapshots = new RdbSnapshots(instance, fs);
  const client = instance.newClient('tcp');
  return { instance, run: async (...argv) => instance.execute(client, argv.map((a) => Buffer.from(a))) };
}

const persistenceInfo = async (run: (...argv: string[]) => Promise<Reply>): Promise<string> => ((await run('INFO', 'persistence')) as VerbatimReply).text;

test('SAVE on a failing disk answers ERR, keeps the previous dump.rdb, and INFO says err until a save succeeds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-rdb-'));
  try {
    const fs = new FailingFs();
    const { instance, run } = serverOn(dir, fs);
    await run('XADD', 's', '1-1', 'f', 'first');
    assert.equal(((await run('SAVE')) as SimpleString).value, 'OK');
    assert.match(await persistenceInfo(run), /rdb_last_bgsave_status:ok\r\n[\s\S]*rdb_saves:1\r\n/);

    await run('XADD', 's', '2-1', 'f', 'second');
    for (const op of ['write', 'fsyncSync', 'rename'] as const) {
      fs.failOn = op;
      const reply = await run('SAVE');
      assert.ok(reply instanceof ErrorReply, `SAVE with ${op} failing`);
      assert.equal(reply.message, 'ERR');
      assert.match(await persistenceInfo(run), /rdb_last_bgsave_status:err\r\n/);
    }
    assert.equal(instance.dirty > 0, true, 'a failed save leaves the changes counted as unsaved');

    // The file on disk is still the first save's: a fresh start loads one entry.
    const reloaded = serverOn(dir, new FailingFs());
    assert.equal(reloaded.instance.snapshots instanceof RdbSnapshots && (reloaded.instance.snapshots as RdbSnapshots).loadAtStart(), true);
    assert.equal(await reloaded.run('XLEN', 's'), 1);
    assert.match(await persistenceInfo(reloaded.run), /rdb_last_load_keys_loaded:1\r\n/);

    fs.failOn = null;
    assert.equal(((await run('SAVE')) as SimpleString).value, 'OK');
    assert.match(await persistenceInfo(run), /rdb_last_bgsave_status:ok\r\n/);
    assert.equal(instance.dirty, 0);
    const again = serverOn(dir, new FailingFs());
    (again.instance.snapshots as RdbSnapshots).loadAtStart();
    assert.equal(await again.run('XLEN', 's'), 2);
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('temp-')), [], 'no temp file left behind by the successful save');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
