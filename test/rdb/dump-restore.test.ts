// DUMP and RESTORE against redis-server 7.0: payloads go both ways (DUMP from redis-server,
// RESTORE into sluice, and back) and the keys read the same; errors and options as Redis's.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { populate, scrubInfo, snapshot } from '../support/rdb-fixtures.js';
import { legacyStreamPayload } from './legacy-stream-payload.js';
import { startRedisServer, startSluiceServer, type Spawned } from '../support/processes.js';

let redis: Spawned & { port: number };
let sluice: Spawned & { port: number };
let r: Redis;
let s: Redis;

before(async () => {
  [redis, sluice] = await Promise.all([startRedisServer(), startSluiceServer()]);
  r = new Redis({ port: redis.port, lazyConnect: true });
  s = new Redis({ port: sluice.port, lazyConnect: true });
  await Promise.all([r.connect(), s.connect()]);
});

after(async () => {
  r.disconnect();
  s.disconnect();
  await Promise.all([redis.stop(), sluice.stop()]);
});

async function copyAll(from: Redis, to: Redis, keys: string[]): Promise<void> {
  for (const key of keys) {
    const payload = await from.dumpBuffer(key);
    assert.ok(payload !== null, key);
    const pttl = await from.pttl(key);
    assert.equal(await to.call('RESTORE', key, pttl > 0 ? String(pttl) : '0', payload, 'REPLACE'), 'OK', key);
  }
}

test('every type dumped by redis-server restores into sluice and back, reading the same', async () => {
  await r.flushall();
  await s.flushall();
  const keys = await populate(r);
  const expected = await snapshot(r, keys);
  await copyAll(r, s, keys);
  const inSluice = await snapshot(s, keys);
  // PEXPIRETIME moves by the ms that passed between PTTL and RESTORE: compare the rest exactly.
  const strip = (snap: unknown[]) => snap.map((e) => ({ ...(e as object), expireAt: (e as { expireAt: number }).expireAt > 0 }));
  assert.deepEqual(strip(inSluice), strip(expected));

  // And back: sluice's payloads restore into redis-server.
  await r.flushall();
  await copyAll(s, r, keys);
  assert.deepEqual(strip(await snapshot(r, keys)), strip(expected));
});

test('sluice payloads for deterministic encodings are byte for byte redis-server 7.0s', async () => {
  await r.flushall();
  await s.flushall();
  const cmds: string[][] = [
    ['SET', 'k1', 'hello'],
    ['SET', 'k2', '-123456'],
    ['RPUSH', 'k3', 'a', '1', '-5000', '9999999999'],
    ['HSET', 'k4', 'f', 'v', 'n', '42'],
    ['SADD', 'k5', '3', '1', '-2'],
    ['ZADD', 'k6', '1', 'a', '2.5', 'b'],
    ['XADD', 'k7', '1-1', 'f', 'v'],
    ['XADD', 'k7', '1-2', 'f', 'w'],
    ['XADD', 'k7', '2-0', 'g', '1'],
    ['XGROUP', 'CREATE', 'k7', 'grp', '0'],
  ];
  for (const c of cmds) {
    await r.call(c[0]!, ...c.slice(1));
    await s.call(c[0]!, ...c.slice(1));
  }
  // Every listpack integer width and string length header, multi-byte backlens, a skiplist
  // zset (written tail first) and a 64-bit intset; redis-server uncompressed so blobs compare.
  await r.config('SET', 'rdbcompression', 'no');
  const values = ['0', '127', '128', '-1', '-4096', '4095', '4096', '-32768', '32767', '40000', '-8388608', '8388607',
    '9000000', '-2147483648', '2147483647', '3000000000', '-9223372036854775808', '9223372036854775807',
    '9223372036854775808', '007', '-0', '+5', 'a'.repeat(63), 'b'.repeat(64), 'c'.repeat(127), 'd'.repeat(128),
    'e'.repeat(4095), 'f'.repeat(4096), 'g'.repeat(20000)];
  for (const c of [s, r]) {
    await c.rpush('k8', ...values);
    for (let i = 0; i < 150; i++) await c.zadd('k9', String(i % 10 === 0 ? i : i / 3), `member${i}`);
    await c.sadd('k10', '1', '-5', '9000000000');
    // Ids on both sides of 2^53 and up to 2^64 - 1: the listpack's ms/seq diffs from the master
    // id wrap to negative int64s, the node key and metadata hold full uint64s.
    for (const id of ['9007199254740990-5', '9007199254740991-9007199254740990', '9007199254740991-9007199254740992',
      '9007199254740992-0', '18446744073709551614-1', '18446744073709551615-18446744073709551615']) {
      await c.xadd('k11', id, 'f', id);
    }
    await c.xdel('k11', '9007199254740992-0');
    await c.xgroup('CREATE', 'k11', 'g', '9007199254740991-9007199254740992', 'ENTRIESREAD', '3');
    assert.equal(await c.xlen('k11'), 5);
    // Stream values and names of every listpack width (written from the node's bytes on save),
    // entries with the master's fields and without, numeric field names, a tombstone.
    const pairs = values.flatMap((v, i) => [`f${i}`, v]);
    await c.xadd('k12', '5-1', ...pairs);
    await c.xadd('k12', '5-2', ...pairs.map((v, i) => (i % 2 === 1 ? `${v}x` : v)));
    await c.xadd('k12', '7-0', '-7', '12345678901234567', '123', '-9223372036854775808');
    await c.xadd('k12', '7-1', 'f0', '0');
    await c.xdel('k12', '5-2');
  }
  for (const key of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k10', 'k11', 'k12']) {
    assert.deepEqual(await s.dumpBuffer(key), await r.dumpBuffer(key), key);
  }
});

async function both(...args: Array<string | Buffer>): Promise<[string, string]> {
  const run = (c: Redis) => c.call(String(args[0]), ...args.slice(1)).then((v) => `ok:${String(v)}`, (e: Error) => `err:${e.message}`);
  return [await run(s), await run(r)];
}

test('RESTORE errors and options are Redis 7.0s', async () => {
  await r.flushall();
  await s.flushall();
  await r.set('src', 'value');
  const payload = (await r.dumpBuffer('src'))!;
  const bad = Buffer.from(payload);
  bad[bad.length - 1] ^= 1;
  // RDB version 11 (Redis 7.2) with a valid checksum: newer than 7.0 reads.
  const { crc64 } = await import('../../src/rdb/crc64.js');
  const newer = Buffer.from(payload);
  newer[newer.length - 10] = 11;
  newer.writeBigUInt64LE(crc64(newer.subarray(0, newer.length - 8)), newer.length - 8);
  const cases: Array<Array<string | Buffer>> = [
    ['DUMP', 'missing'],
    ['RESTORE', 'k', '0', payload],
    ['RESTORE', 'k', '0', payload],
    ['RESTORE', 'k', '0', payload, 'REPLACE', 'IDLETIME', '10'],
    ['RESTORE', 'k', '0', payload, 'REPLACE', 'IDLETIME', '-1'],
    ['RESTORE', 'k', '0', payload, 'REPLACE', 'FREQ', '256'],
    ['RESTORE', 'k', '0', payload, 'REPLACE', 'FREQ', '5'],
    ['RESTORE', 'k', '0', payload, 'REPLACE', 'IDLETIME', '1', 'FREQ', '5'],
    ['RESTORE', 'k', '0', payload, 'REPLACE', 'BOGUS'],
    ['RESTORE', 'k', '0', payload, 'IDLETIME'],
    ['RESTORE', 'k2', '-1', payload],
    ['RESTORE', 'k2', 'abc', payload],
    ['RESTORE', 'k2', '0', bad],
    ['RESTORE', 'k2', '0', Buffer.from('short')],
    ['RESTORE', 'k2', '0', newer],
    ['RESTORE', 'k2', '0', Buffer.concat([Buffer.from([0xff]), payload.subarray(1)])],
    ['RESTORE', 'k3', '1', payload, 'ABSTTL'],
    ['EXISTS', 'k3'],
    ['RESTORE', 'k', '1', payload, 'REPLACE', 'ABSTTL'],
    ['EXISTS', 'k'],
    ['RESTORE', 'k4', '100000', payload],
    ['TYPE', 'k4'],
    ['RESTORE'],
  ];
  for (const c of cases) {
    const [mine, theirs] = await both(...c);
    assert.equal(mine, theirs, c.map(String).join(' '));
  }
});

test('a corrupt payload with a valid checksum is "Bad data format", and nothing changes', async () => {
  await r.flushall();
  await s.flushall();
  // A list payload whose listpack header claims the wrong size, re-checksummed.
  await r.rpush('l', 'a', 'b');
  const payload = (await r.dumpBuffer('l'))!;
  const { crc64 } = await import('../../src/rdb/crc64.js');
  const corrupt = Buffer.from(payload);
  corrupt[4] ^= 0x7f; // inside the listpack's total-bytes field
  corrupt.writeBigUInt64LE(crc64(corrupt.subarray(0, corrupt.length - 8)), corrupt.length - 8);
  assert.match(await s.call('RESTORE', 'x', '0', corrupt).then(String, (e: Error) => e.message), /^ERR Bad data format$/);
  assert.equal(await s.exists('x'), 0);
});

test('a Redis 5 stream payload (type 15, LZF-compressed listpack) restores as in redis-server 7.0', async () => {
  // The state of Redis's own "Loading from legacy" test (stream-cgroups.tcl: deleted, trimmed
  // and pending entries, a group that read nothing), dumped by redis-server 7.0 and turned into
  // the Redis 5-6.2 form (legacy-stream-payload.ts).
  await r.flushall();
  await s.flushall();
  for (let i = 1; i <= 6; i++) await r.xadd('x', `${i}-0`, 'data', 'abcdef'[i - 1]!);
  await r.xdel('x', '3-0');
  await r.xgroup('CREATE', 'x', 'g1', '0');
  await r.xgroup('CREATE', 'x', 'g2', '0');
  await r.xreadgroup('GROUP', 'g1', 'c11', 'COUNT', 4, 'STREAMS', 'x', '>');
  await r.xtrim('x', 'MAXLEN', '=', 2);
  await r.config('SET', 'rdbcompression', 'yes'); // an earlier test turned it off
  const { payload, lzf } = legacyStreamPayload((await r.dumpBuffer('x'))!);
  assert.ok(lzf, 'the listpack is stored LZF-compressed');
  const [mine, theirs] = await both('RESTORE', 'legacy', '0', payload, 'REPLACE');
  assert.equal(mine, 'ok:OK');
  assert.equal(mine, theirs);
  const info = scrubInfo(await r.call('XINFO', 'STREAM', 'legacy', 'FULL')) as unknown[];
  // What only the legacy form gives: entries-added is the length (not 6), as Redis's test says.
  assert.equal(info[info.indexOf('entries-added') + 1], 2);
  assert.deepEqual(scrubInfo(await s.call('XINFO', 'STREAM', 'legacy', 'FULL')), info);
});

test('RESTORE is logged to the AOF with an absolute TTL and survives a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-restore-'));
  try {
    let server = await startSluiceServer(['--dir', dir]);
    let c = new Redis({ port: server.port, lazyConnect: true });
    await c.connect();
    await c.rpush('src', 'a', 'b');
    const payload = (await c.dumpBuffer('src'))!;
    assert.equal(await c.call('RESTORE', 'copy', '500000', payload), 'OK');
    assert.equal(await c.call('RESTORE', 'kept', '0', payload), 'OK');
    const expireAt = await c.call('PEXPIRETIME', 'copy');
    c.disconnect();
    await server.stop();
    const aof = readdirSync(join(dir, 'appendonlydir')).filter((f) => f.includes('.incr.')).map((f) => readFileSync(join(dir, 'appendonlydir', f), 'latin1')).join('');
    assert.match(aof, new RegExp(`\\$7\\r\\nRESTORE\\r\\n\\$4\\r\\ncopy\\r\\n\\$${String(expireAt).length}\\r\\n${String(expireAt)}\\r\\n[\\s\\S]*ABSTTL`));

    server = await startSluiceServer(['--dir', dir]);
    c = new Redis({ port: server.port, lazyConnect: true });
    await c.connect();
    try {
      assert.equal(await c.call('PEXPIRETIME', 'copy'), expireAt);
      assert.deepEqual(await c.lrange('copy', 0, -1), ['a', 'b']);
      assert.deepEqual(await c.lrange('kept', 0, -1), ['a', 'b']);
      assert.equal(await c.pttl('kept'), -1);
    } finally {
      c.disconnect();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('entries released by XNACK survive a dump: Redis 7 sees them claimable under a reserved consumer, sluice as unowned', async () => {
  await r.flushall();
  await s.flushall();
  await s.xadd('q', '1-1', 'f', 'v');
  await s.xadd('q', '1-2', 'f', 'w');
  await s.xgroup('CREATE', 'q', 'g', '0');
  await s.xreadgroup('GROUP', 'g', 'c', 'COUNT', '2', 'STREAMS', 'q', '>');
  await s.call('XNACK', 'q', 'g', 'SILENT', 'IDS', '1', '1-1');
  const payload = (await s.dumpBuffer('q'))!;
  assert.equal(await r.call('RESTORE', 'q', '0', payload), 'OK');
  const pending = (await r.call('XPENDING', 'q', 'g', '-', '+', '10')) as Array<[string, string, number, number]>;
  assert.deepEqual(pending.map(([id, consumer, , count]) => [id, consumer, count]), [['1-1', 'sluice:xnack-released', 0], ['1-2', 'c', 1]]);
  // Nothing is lost on Redis 7: the released entry is the first a claim takes.
  const claimed = (await r.call('XAUTOCLAIM', 'q', 'g', 'other', '1000', '0')) as [string, Array<[string]>];
  assert.deepEqual(claimed[1].map(([id]) => id), ['1-1']);
  // Back into sluice, the entry is again owned by no consumer, and no such consumer appears.
  const owners = async (key: string): Promise<unknown[]> =>
    ((await s.call('XPENDING', key, 'g', '-', '+', '10')) as Array<[string, string, number, number]>).map(([id, consumer, , count]) => [id, consumer, count]);
  assert.equal(await s.call('RESTORE', 'q2', '0', payload), 'OK');
  assert.deepEqual(await owners('q2'), await owners('q'));
  assert.deepEqual(await owners('q2'), [['1-1', '', 0], ['1-2', 'c', 1]]);
  const consumers = (await s.call('XINFO', 'CONSUMERS', 'q2', 'g')) as Array<Array<string | number>>;
  assert.deepEqual(consumers.map((c) => c[1]), ['c']);
});
