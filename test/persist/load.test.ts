// Loading: every complete record survives, a torn last record is cut off at every possible
// byte offset, and corruption anywhere else refuses to start naming the file and offset.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { incrFile, withTempDir } from './helpers.js';

async function seed(dir: string): Promise<void> {
  const db = await open({ dir, appendfsync: 'always' });
  for (let i = 0; i < 5; i++) await db.call('SET', `k${i}`, `value-${i}`);
  await db.call('HSET', 'h', 'f1', 'v1', 'f2', 'v2');
  await db.call('SELECT', 2);
  await db.call('SADD', 'members', 'a', 'b', 'c');
  await db.call('SELECT', 0);
  await db.close();
}

async function expectSeed(dir: string): Promise<void> {
  const db = await open({ dir, appendfsync: 'always' });
  try {
    for (let i = 0; i < 5; i++) assert.equal(await db.call('GET', `k${i}`), `value-${i}`);
    assert.deepEqual(await db.call('HGETALL', 'h'), ['f1', 'v1', 'f2', 'v2']);
    await db.call('SELECT', 2);
    assert.deepEqual(((await db.call('SMEMBERS', 'members')) as string[]).sort(), ['a', 'b', 'c']);
  } finally {
    await db.close();
  }
}

test('a restart loads every acknowledged command across databases', async () => {
  await withTempDir('load', async (dir) => {
    await seed(dir);
    await expectSeed(dir);
    // Loading twice changes nothing (nothing is re-logged while loading).
    const size = statSync(incrFile(dir)).size;
    await expectSeed(dir);
    assert.equal(statSync(incrFile(dir)).size, size);
  });
});

test('a log torn at every byte offset of its last record loads every complete record', async () => {
  await withTempDir('torn', async (dir) => {
    await seed(dir);
    const db = await open({ dir, appendfsync: 'always' });
    await db.call('SET', 'last', 'x'.repeat(40));
    await db.close();
    const file = incrFile(dir);
    const full = readFileSync(file);
    const lastRecord = encodeCommand(['SET', 'last', 'x'.repeat(40)]);
    const start = full.length - lastRecord.length;
    assert.deepEqual(full.subarray(start), lastRecord);
    for (let cut = start; cut < full.length; cut++) {
      writeFileSync(file, full.subarray(0, cut));
      const reopened = await open({ dir, appendfsync: 'always' });
      try {
        assert.equal(await reopened.call('GET', 'last'), null, `cut at ${cut}`);
        assert.equal(await reopened.call('GET', 'k4'), 'value-4', `cut at ${cut}`);
      } finally {
        await reopened.close();
      }
      // The torn bytes were cut off, so the next command is appended to a clean log.
      assert.equal(statSync(file).size, start, `cut at ${cut}`);
    }
    await expectSeed(dir);
  });
});

test('a MULTI/EXEC torn anywhere is reverted as a whole', async () => {
  await withTempDir('torn-multi', async (dir) => {
    await seed(dir);
    const db = await open({ dir, appendfsync: 'always' });
    const before = statSync(incrFile(dir)).size;
    await db.call('MULTI');
    await db.call('SET', 'm1', 'one');
    await db.call('SET', 'm2', 'two');
    await db.call('EXEC');
    await db.close();
    const file = incrFile(dir);
    const full = readFileSync(file);
    // A new log session starts with SELECT (written before MULTI, like Redis): it is complete.
    const select = encodeCommand(['SELECT', '0']);
    assert.deepEqual(full.subarray(before, before + select.length), select);
    const multiAt = before + select.length;
    for (let cut = multiAt + 1; cut < full.length; cut++) {
      writeFileSync(file, full.subarray(0, cut));
      const reopened = await open({ dir, appendfsync: 'always' });
      try {
        assert.deepEqual(await reopened.call('MGET', 'm1', 'm2', 'k0'), [null, null, 'value-0'], `cut at ${cut}`);
      } finally {
        await reopened.close();
      }
      assert.equal(statSync(file).size, multiAt, `cut at ${cut}`);
    }
    writeFileSync(file, full);
    const whole = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await whole.call('MGET', 'm1', 'm2'), ['one', 'two']);
    await whole.close();
  });
});

test('corruption in the middle refuses to start and names the file and byte offset', async () => {
  await withTempDir('corrupt', async (dir) => {
    await seed(dir);
    const file = incrFile(dir);
    const good = readFileSync(file);
    // The third SET record: find it and damage its '*', then a CRLF inside it.
    const record = encodeCommand(['SET', 'k2', 'value-2']);
    const at = good.indexOf(record);
    assert.ok(at > 0);
    const cases: Array<[number, number]> = [
      [at, 0x2b], // '*' -> '+'
      [at + record.length - 2, 0x58], // the final CR of the record
      [at + 5, 0x41], // a digit of the first length
    ];
    for (const [offset, byte] of cases) {
      const bad = Buffer.from(good);
      bad[offset] = byte;
      writeFileSync(file, bad);
      await assert.rejects(open({ dir, appendfsync: 'always' }), (err: Error) => {
        assert.match(err.message, new RegExp(`${basename(file).replace(/\./g, '\\.')} at byte offset ${offset}\\b`));
        assert.match(err.message, /Bad file format/);
        return true;
      });
      // Refusing must not "repair" the file by truncating it.
      assert.deepEqual(readFileSync(file), bad);
    }
  });
});

test('an unknown command in the log refuses to start', async () => {
  await withTempDir('unknown', async (dir) => {
    await seed(dir);
    const file = incrFile(dir);
    const good = readFileSync(file);
    const offset = good.length;
    writeFileSync(file, Buffer.concat([good, encodeCommand(['NOSUCHCMD', 'x'])]));
    await assert.rejects(open({ dir, appendfsync: 'always' }), new RegExp(`Unknown command 'NOSUCHCMD'.*byte offset ${offset}`));
  });
});

test('a truncated RDB base file (redis-server default form) is refused with a clear message', async () => {
  await withTempDir('rdb-preamble', async (dir) => {
    await seed(dir);
    const { mkdirSync } = await import('node:fs');
    const aof = join(dir, 'appendonlydir');
    mkdirSync(aof, { recursive: true });
    writeFileSync(join(aof, 'appendonly.aof.2.base.rdb'), Buffer.from('REDIS0010\xfa\x09redis-ver', 'latin1'));
    writeFileSync(join(aof, 'appendonly.aof.manifest'), 'file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n');
    await assert.rejects(open({ dir, appendfsync: 'always' }), /Bad RDB preamble in the append only file appendonly\.aof\.2\.base\.rdb: Unexpected EOF reading RDB file/);
  });
});

test('XADD records load as the commands themselves run: field names that vary, every id form, failing ones', async () => {
  // The loader appends plain XADDs straight into the engine (replay-xadd.ts), reusing the names
  // of the records before; anything else goes through the command. Either way the result must
  // be what running the same commands gives.
  const commands: string[][] = [
    ['XADD', 's', '1-1', 'a', '1', 'b', '2'],
    ['XADD', 's', '1-2', 'a', '1', 'b', '2'],
    ['XADD', 's', '1-3', 'a', '1', 'c', '3'], // second name changes
    ['XADD', 's', '2', 'ab', 'x'], // one pair, a longer first name; ms only: 2-0
    ['XADD', 's', '2-5', 'a', '1', 'b', '2', 'c', '3'], // more pairs than before
    ['XADD', 's', '2-6', 'b', '1', 'a', '2'], // the same names, swapped
    ['XADD', 's', '00003-0007', 'a', '', 'b', 'x'.repeat(300)], // leading zeros, empty and long values
    ['XADD', 's', '3-*', 'a', '1'], // sequence generated: the command path
    ['XADD', 's', '3-7', 'a', '1'], // not above the top: an error, skipped
    ['XADD', 's', '99999999999999999-1', 'a', '1'], // ms beyond the in-place digits: the command path
    ['XADD', 's', 'MAXLEN', '6', '99999999999999999-2', 'a', '1'], // options: the command path
    ['XADD', 't', '1-1', 'A', '1', 'B', '2'], // another key, names seen at other positions
    ['SET', 'str', 'v'],
    ['XADD', 'str', '1-1', 'a', '1'], // wrong type: an error, skipped
    ['XADD', 't', '1-2', 'A', '1', 'B', '2'],
  ];
  const expected: unknown[] = [];
  const direct = await open();
  try {
    for (const c of commands) await direct.call(...(c as [string, ...string[]])).catch(() => undefined);
    for (const key of ['s', 't']) expected.push(await direct.call('XRANGE', key, '-', '+'), await direct.call('XINFO', 'STREAM', key));
  } finally {
    await direct.close();
  }
  await withTempDir('xadd-forms', async (dir) => {
    await seed(dir);
    const file = incrFile(dir);
    // The seed's last write was in db 2.
    writeFileSync(file, Buffer.concat([readFileSync(file), encodeCommand(['SELECT', '0']), ...commands.map((c) => encodeCommand(c))]));
    const db = await open({ dir, appendfsync: 'always' });
    try {
      const loaded: unknown[] = [];
      for (const key of ['s', 't']) loaded.push(await db.call('XRANGE', key, '-', '+'), await db.call('XINFO', 'STREAM', key));
      assert.deepEqual(loaded, expected);
      assert.equal(await db.call('GET', 'str'), 'v');
    } finally {
      await db.close();
    }
  });
});

test('PUBLISH is not logged (Redis sends it to replicas only), alone or inside MULTI with a write', async () => {
  await withTempDir('publish', async (dir) => {
    const db = await open({ dir, appendfsync: 'always' });
    await db.call('SET', 'before', '1');
    await db.call('PUBLISH', 'news', 'hello');
    await db.call('MULTI');
    await db.call('PUBLISH', 'news', 'inside');
    await db.call('SET', 'after', '2');
    await db.call('EXEC');
    await db.close();
    const log = readFileSync(incrFile(dir), 'latin1');
    assert.doesNotMatch(log, /PUBLISH|hello|inside/i);
    assert.deepEqual(readFileSync(incrFile(dir)).subarray(-encodeCommand(['SET', 'after', '2']).length), encodeCommand(['SET', 'after', '2']));
  });
});
