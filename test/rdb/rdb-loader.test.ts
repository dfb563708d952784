// RdbLoader reads an RDB file as its bytes arrive (a replica's full sync loads while the
// primary sends): fed in pieces cut anywhere (inside a header, a key, a stream node, a group's
// PEL), it must load what loading the whole file loads, byte for byte once saved again, and
// refuse a cut or corrupt file as loading it whole does. The file is redis-server 7.0's (LZF
// strings, every type and encoding of the fixture, a stream of many nodes with a group) and
// sluice's own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { Keyspace } from '../../src/engine/keyspace.js';
import { crc64 } from '../../src/rdb/crc64.js';
import { loadRdb, RdbLoader, type RdbLoadOptions, saveRdb } from '../../src/rdb/rdb-file.js';
import { populate } from '../support/rdb-fixtures.js';
import { startRedisServer } from '../support/processes.js';
import { client, withDir } from './servers.js';

const NOW = 1_700_000_000_000;
const options: RdbLoadOptions = { now: NOW };

/** A keyspace's RDB bytes with fixed metadata: two keyspaces holding the same save the same. */
function saved(keyspace: Keyspace): Buffer {
  return saveRdb(keyspace, { version: '7.0.15', now: NOW, usedMemory: 0, aofBase: false, replication: null, functions: [] });
}

/** The file pushed in pieces at `cuts` (sorted offsets), then finished with its body's CRC64. */
function loadInPieces(file: Buffer, cuts: number[]): Keyspace {
  const keyspace = new Keyspace(() => NOW);
  // Read on at every piece, so every cut is one the loader resumes from.
  const loader = new RdbLoader(keyspace, options, 1);
  let at = 0;
  for (const cut of [...cuts, file.length]) {
    loader.push(file.subarray(at, cut));
    at = cut;
  }
  loader.finish(undefined, { end: file.length - 8, crc: crc64(file.subarray(0, file.length - 8)) });
  return keyspace;
}

async function redisFile(): Promise<Buffer> {
  let file = Buffer.alloc(0);
  await withDir(async (dir) => {
    const redis = await startRedisServer(['--dir', dir]);
    const c = await client(redis.port);
    try {
      await populate(c);
      // A stream of many nodes (100 entries each) whose listpacks redis-server compresses.
      for (let i = 0; i < 3000; i += 500) {
        const p = c.pipeline();
        for (let j = i; j < i + 500; j++) p.xadd('long-stream', `${j + 1}-0`, 'n', String(j), 'payload', `order-${j}`);
        await p.exec();
      }
      await c.xgroup('CREATE', 'long-stream', 'g', '0');
      await c.xreadgroup('GROUP', 'g', 'c', 'COUNT', '700', 'STREAMS', 'long-stream', '>');
      await c.select(2);
      await c.set('in-db-2', 'x', 'PX', 100_000_000);
      assert.equal(await c.save(), 'OK');
    } finally {
      c.disconnect();
      await redis.stop();
    }
    file = readFileSync(join(dir, 'dump.rdb'));
  });
  return file;
}

test('an RDB file fed in pieces cut anywhere loads as the whole file does', async () => {
  const file = await redisFile();
  const whole = new Keyspace(() => NOW);
  const result = loadRdb(file, whole, options);
  assert.ok(result.keysLoaded > 20);
  const expected = saved(whole);
  // sluice's own file of the same data: nodes uncompressed, written by sluice's encoder.
  const files = [file, expected];
  for (const f of files) {
    // Every cut in the first bytes (header, AUX fields), one byte at a time.
    assert.ok(saved(loadInPieces(f, Array.from({ length: 200 }, (_, i) => i + 1))).equals(expected));
    // The socket's reads: 64 KiB, and a small odd size that cuts everything somewhere.
    for (const size of [65536, 1000, 97]) {
      const cuts: number[] = [];
      for (let at = size; at < f.length; at += size) cuts.push(at);
      assert.ok(saved(loadInPieces(f, cuts)).equals(expected), `pieces of ${size} bytes`);
    }
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: f.length - 1 }), { maxLength: 40 }), (cuts) => {
        assert.ok(saved(loadInPieces(f, cuts.sort((a, b) => a - b))).equals(expected));
      }),
      { numRuns: 30 },
    );
  }
});

test('a file cut short or corrupt is refused when fed in pieces as when loaded whole', () => {
  const keyspace = new Keyspace(() => NOW);
  for (let i = 0; i < 1000; i++) keyspace.db(0).set(`k${i}`, Buffer.from(`value-${i}`));
  const file = saved(keyspace);
  const cut = file.subarray(0, file.length - 100);
  assert.throws(() => loadRdb(cut, new Keyspace(() => NOW), options), /Unexpected EOF reading RDB file/);
  const loader = new RdbLoader(new Keyspace(() => NOW), options, 1);
  for (let at = 0; at < cut.length; at += 300) loader.push(cut.subarray(at, Math.min(cut.length, at + 300)));
  assert.throws(() => loader.finish(), /Unexpected EOF reading RDB file/);
  // A checksum that does not match what the caller summed.
  const wrong = new RdbLoader(new Keyspace(() => NOW), options);
  wrong.push(file);
  assert.throws(() => wrong.finish(undefined, { end: file.length - 8, crc: 1n }), /Wrong RDB checksum/);
  // Not an RDB file at all, seen as soon as its first 9 bytes have come.
  const bad = new RdbLoader(new Keyspace(() => NOW), options, 1);
  bad.push(Buffer.from('RED'));
  assert.throws(() => bad.push(Buffer.from('XS0010xxxx')), /Wrong signature/);
});
