// DUMP and RESTORE against redis-server 7.0: payloads go both ways (DUMP from redis-server,
// RESTORE into sluice, and back) and the keys read the same; errors and options as Redis's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { populate, snapshot } from '../support/rdb-fixtures.js';
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
  for (const key of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']) {
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
