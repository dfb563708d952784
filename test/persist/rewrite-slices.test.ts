// The sliced stream rewrite, driven one chunk at a time (Rewrite.step with a zero budget writes
// exactly one range of entries), so commands land deterministically between chunks: XDEL and
// trims behind the cursor, appends ahead of it, group changes. The written file, loaded as a
// base, must give the stream exactly as it is when the rewrite finishes.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { nodeFs } from '../../src/persist/fs-layer.js';
import { Rewrite } from '../../src/persist/rewrite.js';
import { recordingPersistence } from '../support/recording-persistence.js';
import { dump, withTempDir } from './helpers.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

/** Loads the rewritten file as the base of a fresh directory and compares its dataset. */
async function assertLoadsAs(dir: string, file: string, expected: Record<string, unknown>): Promise<void> {
  const data = join(dir, 'data');
  mkdirSync(join(data, 'appendonlydir'), { recursive: true });
  copyFileSync(file, join(data, 'appendonlydir', 'appendonly.aof.1.base.aof'));
  writeFileSync(join(data, 'appendonlydir', 'appendonly.aof.manifest'), 'file appendonly.aof.1.base.aof seq 1 type b\n');
  const loaded = await open({ dir: data, appendfsync: 'no' });
  assert.deepEqual(await dump(loaded), expected);
  await loaded.close();
}

test('commands between the chunks of a big stream are reflected exactly', async () => {
  await withTempDir('slices', async (dir) => {
    const db = await open();
    for (let i = 0; i < 5000; i++) await db.call('XADD', 'big', `${i + 1}-0`, 'i', i);
    await db.call('XGROUP', 'CREATE', 'big', 'g', '3000-0');
    await db.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 10, 'STREAMS', 'big', '>');
    await db.call('SET', 'after-big', 'x');
    const temp = join(dir, 'temp.aof');
    const rw = new Rewrite(instanceBehind(db), nodeFs, temp);
    // Route what commands propagate to the rewrite, as AofPersistence.append does.
    instanceBehind(db).persistence = recordingPersistence((batch) => rw.observe(batch));

    assert.equal(rw.step(0), false); // entries 1-0 .. 1000-0 written
    const between: Array<Array<string | number>> = [
      ['XDEL', 'big', '500-0', '1500-0'], // one behind the cursor, one ahead
      ['XTRIM', 'big', 'MINID', '100-0'], // behind the cursor
      ['XADD', 'big', '*', 'appended', 'during'],
      ['XGROUP', 'CREATECONSUMER', 'big', 'g', 'late'],
      ['XADD', 'big', 'MAXLEN', '=', '4990', '*', 'capped', '1'],
      ['XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', 5, 'STREAMS', 'big', '>'],
      ['XACK', 'big', 'g', '3001-0'],
      ['XDEL', 'big', '2500-0'],
      ['PEXPIRE', 'big', 3_600_000],
    ];
    let chunks = 1;
    for (const cmd of between) {
      await db.call(...cmd);
      if (!rw.step(0)) chunks++;
    }
    while (!rw.step(0)) chunks++;
    assert.ok(chunks >= 5, `${chunks} chunks`);
    rw.finish();
    instanceBehind(db).persistence = null;
    const expected = await dump(db);
    await db.close();

    await assertLoadsAs(dir, temp, expected);
  });
});

test('a big stream of mixed entries is written from its node bytes and loads back the same', async () => {
  await withTempDir('slices-mixed', async (dir) => {
    const db = await open();
    // Field sets that change, integers (encoded as such in the nodes) of every size and sign,
    // binary values with CR/LF and NUL, empty values, ids sharing a millisecond.
    for (let i = 1; i <= 3000; i++) {
      const fields =
        i % 3 === 0 ? ['a', String(i), 'b', 'x'.repeat(i % 70)]
        : i % 3 === 1 ? ['a', String(-i * 1_000_003), 'b', '']
        : ['other', '\u0000\r\n\u00ff', 'n', String(2 ** 62 + i), 'm', '007'];
      await db.call('XADD', 'mixed', `${1000 + Math.floor(i / 7)}-${i}`, ...fields);
    }
    await db.call('XDEL', 'mixed', '1001-7', '1200-1400');
    const temp = join(dir, 'temp.aof');
    const rw = new Rewrite(instanceBehind(db), nodeFs, temp);
    let chunks = 1;
    while (!rw.step(0)) chunks++;
    assert.ok(chunks >= 3, `${chunks} chunks`);
    rw.finish();
    const expected = await dump(db);
    await db.close();

    await assertLoadsAs(dir, temp, expected);
  });
});
