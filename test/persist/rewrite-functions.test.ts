// The AOF rewrite and function libraries: the libraries at the start are written first, a
// FUNCTION LOAD each before any SELECT (Redis's rewriteFunctions); FUNCTION commands logged
// while the keys are written are replayed after them, in order; a FUNCTION command in one
// transaction with a key not yet written would be lost with the batch, so it aborts the rewrite.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open, type EmbeddedDatabase } from '../../src/client/embedded.js';
import { nodeFs } from '../../src/persist/fs-layer.js';
import { Rewrite } from '../../src/persist/rewrite.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';
import { recordingPersistence } from '../support/recording-persistence.js';
import { withTempDir } from './helpers.js';

const lib = (name: string, reply: string): string =>
  `#!lua name=${name}\nredis.register_function('${name}_f', function() return '${reply}' end)`;

async function names(db: EmbeddedDatabase): Promise<string[]> {
  const list = (await db.call('FUNCTION', 'LIST')) as unknown[][];
  return list.map((l) => String(l[1])).sort();
}

/** A database with libraries a and b and 100 keys, and a rewrite started on it, fed what it logs. */
async function started(dir: string): Promise<{ db: EmbeddedDatabase; rw: Rewrite; temp: string }> {
  const db = await open();
  await db.call('FUNCTION', 'LOAD', lib('a', 'a1'));
  await db.call('FUNCTION', 'LOAD', lib('b', 'b1'));
  for (let i = 0; i < 100; i++) await db.call('SET', `k${i}`, i);
  const temp = join(dir, 'temp.aof');
  const rw = new Rewrite(instanceBehind(db), nodeFs, temp);
  instanceBehind(db).persistence = recordingPersistence((batch) => rw.observe(batch));
  return { db, rw, temp };
}

test('a rewrite writes the libraries first and replays the FUNCTION commands logged during it', async () => {
  await withTempDir('rewrite-functions', async (dir) => {
    const { db, rw, temp } = await started(dir);
    assert.equal(rw.step(0), false);
    await db.call('FUNCTION', 'DELETE', 'a');
    await db.call('FUNCTION', 'LOAD', 'REPLACE', lib('b', 'b2'));
    await db.call('FUNCTION', 'LOAD', lib('c', 'c1'));
    await db.call('SET', 'k0', 'changed');
    while (!rw.step(0));
    assert.equal(rw.aborted, null);
    rw.finish();
    await db.close();
    const text = readFileSync(temp, 'latin1');
    assert.ok(text.startsWith('*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n'), text.slice(0, 80));

    const data = join(dir, 'data');
    mkdirSync(join(data, 'appendonlydir'), { recursive: true });
    copyFileSync(temp, join(data, 'appendonlydir', 'appendonly.aof.1.base.aof'));
    writeFileSync(join(data, 'appendonlydir', 'appendonly.aof.manifest'), 'file appendonly.aof.1.base.aof seq 1 type b\n');
    const loaded = await open({ dir: data, appendfsync: 'no' });
    assert.deepEqual(await names(loaded), ['b', 'c']);
    assert.equal(await loaded.call('FCALL', 'b_f', 0), 'b2');
    assert.equal(await loaded.call('GET', 'k0'), 'changed');
    assert.equal(await loaded.call('DBSIZE'), 100);
    await loaded.close();
  });
});

test('a FUNCTION command in one transaction with a key not yet written aborts the rewrite', async () => {
  await withTempDir('rewrite-functions-abort', async (dir) => {
    const { db, rw } = await started(dir);
    const s = db.session();
    await s.call('MULTI');
    await s.call('FUNCTION', 'LOAD', lib('c', 'c1'));
    await s.call('SET', 'k99', 'x');
    await s.call('EXEC');
    assert.match(rw.aborted ?? '', /FUNCTION/);
    rw.discard();
    await db.close();
  });
});
