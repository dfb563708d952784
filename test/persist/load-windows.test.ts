// Large logs are read in windows of a few megabytes, and plain XADDs are applied straight to the
// engine: records that straddle a window's end, a record larger than a window, a torn record
// past the first window, MULTI blocks across windows, and XADDs the direct path must leave to the
// command table (options, WRONGTYPE, an id not above the top) load exactly as before.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { aofDir, incrFile, withTempDir } from './helpers.js';

/** A Redis 7 layout with one incr file holding `records`. */
function writeLog(dir: string, records: Buffer[]): string {
  mkdirSync(aofDir(dir), { recursive: true });
  writeFileSync(join(aofDir(dir), 'appendonly.aof.manifest'), 'file appendonly.aof.1.incr.aof seq 1 type i\n');
  const file = join(aofDir(dir), 'appendonly.aof.1.incr.aof');
  writeFileSync(file, Buffer.concat(records));
  return file;
}

test('a log of many megabytes loads whole: records across window ends and one larger than a window', async () => {
  await withTempDir('windows', async (dir) => {
    const records: Buffer[] = [encodeCommand(['SELECT', '0'])];
    const payload = 'p'.repeat(333); // an odd size, so records end at every alignment
    for (let i = 1; i <= 20_000; i++) records.push(encodeCommand(['XADD', 'events', `${i}-1`, 'n', String(i), 'payload', payload]));
    const big = 'b'.repeat(9 << 20); // larger than a window: the window grows
    records.push(encodeCommand(['SET', 'big', big]));
    records.push(encodeCommand(['MULTI']));
    for (let i = 20_001; i <= 20_100; i++) records.push(encodeCommand(['XADD', 'events', `${i}-1`, 'n', String(i), 'payload', payload]));
    records.push(encodeCommand(['EXEC']));
    records.push(encodeCommand(['SELECT', '3']));
    records.push(encodeCommand(['XADD', 'events', '5-5', 'in', 'db3']));
    const file = writeLog(dir, records);
    assert.ok(statSync(file).size > 15 << 20);
    const db = await open({ dir, appendfsync: 'no' });
    try {
      assert.equal(await db.call('XLEN', 'events'), 20_100);
      assert.deepEqual(await db.call('XRANGE', 'events', '20000', '20001', 'COUNT', 2), [
        ['20000-1', ['n', '20000', 'payload', payload]],
        ['20001-1', ['n', '20001', 'payload', payload]],
      ]);
      assert.equal(((await db.call('GET', 'big')) as string).length, big.length);
      await db.call('SELECT', 3);
      assert.deepEqual(await db.call('XRANGE', 'events', '-', '+'), [['5-5', ['in', 'db3']]]);
    } finally {
      await db.close();
    }
  });
});

test('a torn last record beyond the first window is cut at its offset', async () => {
  await withTempDir('windows-torn', async (dir) => {
    const records: Buffer[] = [encodeCommand(['SELECT', '0'])];
    for (let i = 1; i <= 30_000; i++) records.push(encodeCommand(['XADD', 's', `${i}-0`, 'v', 'x'.repeat(200)]));
    const file = writeLog(dir, records);
    const whole = statSync(file).size;
    appendFileSync(file, encodeCommand(['XADD', 's', '30001-0', 'v', 'torn']).subarray(0, 20));
    const db = await open({ dir, appendfsync: 'no' });
    try {
      assert.equal(await db.call('XLEN', 's'), 30_000);
    } finally {
      await db.close();
    }
    assert.equal(statSync(incrFile(dir)).size, whole);
  });
});

test('XADDs the direct path leaves to the command table replay as commands', async () => {
  await withTempDir('xadd-replay', async (dir) => {
    writeLog(dir, [
      encodeCommand(['SELECT', '0']),
      encodeCommand(['XADD', 't', '1-1', 'a', '1']),
      encodeCommand(['XADD', 't', '1-1', 'dup', 'id']), // not above the top: an error, skipped
      encodeCommand(['XADD', 't', 'MAXLEN', '=', '5', '2-0', 'b', '2']), // options
      encodeCommand(['XADD', 's', '1-1', 'gone', 'soon']),
      encodeCommand(['SET', 'str', 'v']),
      encodeCommand(['XADD', 'str', '3-0', 'c', '3']), // WRONGTYPE, skipped
      encodeCommand(['DEL', 's']),
      encodeCommand(['XADD', 's', '1-0', 'after', 'del']), // a new stream under the same name
      encodeCommand(['xAdD', 's', '4-0', 'mixed', 'case']),
    ]);
    const db = await open({ dir, appendfsync: 'no' });
    try {
      assert.deepEqual(await db.call('XRANGE', 's', '-', '+'), [
        ['1-0', ['after', 'del']],
        ['4-0', ['mixed', 'case']],
      ]);
      assert.deepEqual(await db.call('XRANGE', 't', '-', '+'), [['1-1', ['a', '1']], ['2-0', ['b', '2']]]);
      assert.equal(await db.call('GET', 'str'), 'v');
    } finally {
      await db.close();
    }
  });
});
