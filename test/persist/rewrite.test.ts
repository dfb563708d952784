// Rewrite (compaction): state after BGREWRITEAOF, with clients writing while it runs, equals
// the state seen by clients; the old files are replaced atomically; SAVE/BGSAVE/LASTSAVE reply
// as Redis; the automatic trigger fires on growth.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open, type EmbeddedDatabase } from '../../src/client/embedded.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { aofDir, baseFiles, dump, incrFile, waitForRewrite, withTempDir, reopenedDump } from './helpers.js';

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function seed(db: EmbeddedDatabase, n: number): Promise<void> {
  for (let d = 0; d < 3; d++) {
    await db.call('SELECT', d);
    for (let i = 0; i < n; i++) {
      const kind = i % 4;
      if (kind === 0) await db.call('SET', `s${i}`, `v${i}`);
      else if (kind === 1) await db.call('SET', `t${i}`, `ttl${i}`, 'PX', 600_000 + i);
      else if (kind === 2) {
        const fields: string[] = [];
        for (let f = 0; f < 70; f++) fields.push(`f${f}`, `${i}:${f}`);
        await db.call('HSET', `h${i}`, ...fields);
      } else {
        const members: string[] = [];
        for (let m = 0; m < 70; m++) members.push(m % 2 ? `m${m}` : String(m));
        await db.call('SADD', `z${i}`, ...members);
      }
    }
  }
  await db.call('SELECT', 0);
}

/** One random write touching existing and new keys, single- and multi-key. */
async function randomWrite(db: EmbeddedDatabase, rnd: () => number, n: number, step: number): Promise<void> {
  const pick = (prefix: string, mod: number) => `${prefix}${Math.floor(rnd() * (n / 4)) * 4 + mod}`;
  const op = Math.floor(rnd() * 10);
  await db.call('SELECT', Math.floor(rnd() * 3));
  switch (op) {
    case 0:
      await db.call('SET', pick('s', 0), `w${step}`);
      break;
    case 1:
      await db.call('HSET', pick('h', 2), `f${step % 90}`, `w${step}`);
      break;
    case 2:
      await db.call('SADD', pick('z', 3), `new${step}`);
      break;
    case 3:
      await db.call('DEL', pick('s', 0), pick('t', 1));
      break;
    case 4:
      await db.call('MSET', pick('s', 0), `a${step}`, pick('s', 0), `b${step}`, `fresh${step}`, 'x');
      break;
    case 5: {
      // A transaction across keys the rewrite has and has not reached yet.
      await db.call('MULTI');
      await db.call('HSET', pick('h', 2), 'tx', String(step));
      await db.call('SET', pick('s', 0), `tx${step}`);
      await db.call('SREM', pick('z', 3), '0', '2');
      await db.call('EXEC');
      break;
    }
    case 6:
      try {
        await db.call('RENAME', pick('h', 2), `renamed${step}`);
      } catch {
        // the source may be gone already
      }
      break;
    case 7:
      await db.call('PEXPIRE', pick('s', 0), 900_000 + step);
      break;
    case 8:
      await db.call('INCR', `counter${step % 7}`);
      break;
    default:
      await db.call('HDEL', pick('h', 2), 'f1', 'f2');
  }
}

for (const seedValue of [42, 7, 1234]) test(`state after a background rewrite with concurrent writers is identical, also after restart (seed ${seedValue})`, async () => {
  await withTempDir('rewrite', async (dir) => {
    const n = 2000;
    const db = await open({ dir, appendfsync: 'everysec' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    await seed(db, n);
    const rnd = prng(seedValue);
    for (let i = 0; i < 300; i++) await randomWrite(db, rnd, n, i);
    const sizeBefore = statSync(incrFile(dir)).size;

    assert.equal(await db.call('BGREWRITEAOF'), 'Background append only file rewriting started');
    await assert.rejects(db.call('BGREWRITEAOF'), /^ReplyError: ERR Background append only file rewriting already in progress$/);
    let during = 0;
    for (let step = 1000; ; step++) {
      await randomWrite(db, rnd, n, step);
      during++;
      if (step % 10 === 0) {
        await new Promise((r) => setImmediate(r)); // let a rewrite slice run
        const info = (await db.call('INFO', 'persistence')) as string;
        if (info.includes('aof_rewrite_in_progress:0')) break;
      }
    }
    assert.ok(during >= 20, `only ${during} writes ran during the rewrite`);
    const info = await waitForRewrite(db);
    assert.equal(info.aof_last_bgrewrite_status, 'ok');
    assert.equal(info.aof_rewrites, '1');
    for (let i = 0; i < 50; i++) await randomWrite(db, rnd, n, 5000 + i);
    const expected = await dump(db);
    await db.close();

    // Exactly one base and one incr file are referenced; the old ones are gone.
    const names = readdirSync(aofDir(dir)).sort();
    assert.deepEqual(names, ['appendonly.aof.1.base.aof', 'appendonly.aof.2.incr.aof', 'appendonly.aof.manifest']);
    assert.equal(
      readFileSync(join(aofDir(dir), 'appendonly.aof.manifest'), 'utf8'),
      'file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n',
    );
    assert.ok(statSync(join(aofDir(dir), baseFiles(dir)[0]!)).size > 0);
    assert.ok(sizeBefore > 0);

    const reopened = await open({ dir, appendfsync: 'everysec' });
    assert.deepEqual(await dump(reopened), expected);
    // A second rewrite of the loaded state is identical too.
    await reopened.call('BGREWRITEAOF');
    await waitForRewrite(reopened);
    await reopened.close();
    assert.deepEqual(await reopenedDump(dir, 'everysec'), expected);
  });
});

test('FLUSHALL during a rewrite aborts it and a retry completes with the right state', async () => {
  await withTempDir('rewrite-flush', async (dir) => {
    const db = await open({ dir, appendfsync: 'no' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    await seed(db, 2000);
    await db.call('BGREWRITEAOF');
    await db.call('FLUSHALL');
    await db.call('SET', 'after-flush', '1');
    const info = await waitForRewrite(db);
    assert.equal(info.aof_rewrites, '1');
    const expected = await dump(db);
    assert.deepEqual(Object.keys(expected), ['0:after-flush']);
    await db.close();
    assert.deepEqual(await reopenedDump(dir, 'no'), expected);
  });
});

test('SAVE, BGSAVE and LASTSAVE map onto a rewrite and reply as Redis', async () => {
  await withTempDir('save', async (dir) => {
    const db = await open({ dir, appendfsync: 'always' });
    await db.call('SET', 'a', '1');
    await db.call('SET', 'a', '2');
    let info = await waitForRewrite(db);
    assert.equal(info.rdb_changes_since_last_save, '2');
    assert.equal(await db.call('SAVE'), 'OK');
    info = await waitForRewrite(db);
    assert.equal(info.rdb_changes_since_last_save, '0');
    assert.equal(info.aof_rewrites, '1');
    assert.equal(typeof (await db.call('LASTSAVE')), 'number');
    await assert.rejects(db.call('BGSAVE', 'now'), /ERR syntax error/);
    await assert.rejects(db.call('SAVE', 'x'), /ERR wrong number of arguments for 'save' command/);
    assert.equal(await db.call('BGSAVE'), 'Background saving started');
    await assert.rejects(db.call('BGSAVE'), /ERR Background save already in progress/);
    await assert.rejects(db.call('SAVE'), /ERR Background save already in progress/);
    info = await waitForRewrite(db);
    assert.equal(info.aof_rewrites, '2');
    await db.call('BGREWRITEAOF');
    await assert.rejects(db.call('BGSAVE'), /ERR Another child process is active \(AOF\?\): can't BGSAVE right now/);
    assert.equal(await db.call('BGSAVE', 'SCHEDULE'), 'Background saving scheduled');
    info = await waitForRewrite(db);
    assert.equal(info.aof_rewrites, '4');
    await db.close();
    const reopened = await open({ dir, appendfsync: 'always' });
    assert.equal(await reopened.call('GET', 'a'), '2');
    await reopened.close();
  });
});

test('without a data directory the persistence commands say so', async () => {
  const db = await open();
  await assert.rejects(db.call('BGREWRITEAOF'), /persistence is not enabled/);
  await assert.rejects(db.call('SAVE'), /persistence is not enabled/);
  await db.close();
});

test('the log is rewritten automatically when it grows by auto-aof-rewrite-percentage', async () => {
  await withTempDir('auto', async (dir) => {
    const db = await open({ dir, appendfsync: 'no' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-min-size', '20000');
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '100');
    // Overwriting one key grows the log without growing the data.
    let i = 0;
    let logged = encodeCommand(['SELECT', '0']).length;
    for (;;) {
      const value = `value-${i++}`;
      await db.call('SET', 'same', value);
      logged += encodeCommand(['SET', 'same', value]).length;
      const info = await waitForRewrite(db);
      if (info.aof_rewrites !== '0') break;
      // Ten times the minimum size and still no rewrite: it is not coming.
      assert.ok(logged < 200_000, `no automatic rewrite after ${logged} bytes logged`);
    }
    const info = await waitForRewrite(db);
    assert.ok(Number(info.aof_base_size) < 100, `base ${info.aof_base_size}`);
    assert.ok(logged >= 20000, `rewrote at ${logged} bytes, before the minimum size`);
    await db.close();
    const reopened = await open({ dir, appendfsync: 'no' });
    assert.equal(await reopened.call('GET', 'same'), `value-${i - 1}`);
    await reopened.close();
  });
});
