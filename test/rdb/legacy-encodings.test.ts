// RESTORE of the encodings redis-server 7.0 no longer writes but still reads (Redis 2.x-6.x
// payloads): plain lists, ziplists and quicklists of ziplists, ZSET v1 with ASCII scores,
// ziplist hashes and zsets, and Redis 7.2's set listpack. The payloads are built here byte by
// byte from the format, with the RDB version and CRC64 footer DUMP adds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { crc64 } from '../../src/rdb/crc64.js';

/** A DUMP payload: body + RDB version 9 (a Redis 6.2 payload) + CRC64. */
function payload(...parts: Array<number[] | Buffer | string>): Buffer {
  const body = Buffer.concat([...parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))), Buffer.from([9, 0])]);
  const sum = Buffer.alloc(8);
  sum.writeBigUInt64LE(crc64(body));
  return Buffer.concat([body, sum]);
}

/** An RDB string: 6-bit length then the bytes. */
const str = (s: string) => [s.length, ...Buffer.from(s, 'latin1')];

/** A ziplist of entries, each [encoding bytes, data bytes]; prevlen is computed. */
function ziplist(entries: Array<[number[], number[]]>): number[] {
  const body: number[] = [];
  let prev = 0;
  for (const [enc, data] of entries) {
    const entry = [prev, ...enc, ...data];
    body.push(...entry);
    prev = entry.length;
  }
  const total = 10 + body.length + 1;
  const header = Buffer.alloc(10);
  header.writeUInt32LE(total, 0);
  header.writeUInt32LE(10, 4);
  header.writeUInt16LE(entries.length, 8);
  return [...header, ...body, 0xff];
}

const zstr = (s: string): [number[], number[]] => [[s.length], [...Buffer.from(s, 'latin1')]];
const blob = (bytes: number[]) => [0x40 | (bytes.length >> 8), bytes.length & 0xff, ...bytes];

test('older list, hash, zset and set encodings restore', async () => {
  const db = await open();
  const restore = (key: string, p: Buffer) => db.call('RESTORE', key, '0', p);
  // Type 1: a plain list of RDB strings (one int-encoded).
  assert.equal(await restore('plain', payload([1, 3], str('a'), [0xc0, 0xfb], str('c'))), 'OK');
  assert.deepEqual(await db.call('LRANGE', 'plain', '0', '-1'), ['a', '-5', 'c']);
  // Type 10: a ziplist with every integer encoding.
  const ints: Array<[number[], number[]]> = [
    zstr('x'),
    [[0xf1], []], // immediate 0
    [[0xfd], []], // immediate 12
    [[0xfe], [0x80]], // int8 -128
    [[0xc0], [0x39, 0x30]], // int16 12345
    [[0xf0], [0x00, 0x00, 0x80]], // int24 -8388608
    [[0xd0], [0xff, 0xff, 0xff, 0x7f]], // int32
    [[0xe0], [1, 0, 0, 0, 0, 0, 0, 0]], // int64 1
  ];
  assert.equal(await restore('zl', payload([10], blob(ziplist(ints)))), 'OK');
  assert.deepEqual(await db.call('LRANGE', 'zl', '0', '-1'), ['x', '0', '12', '-128', '12345', '-8388608', '2147483647', '1']);
  // Type 14: a quicklist of two ziplists.
  assert.equal(await restore('ql', payload([14, 2], blob(ziplist([zstr('a')])), blob(ziplist([zstr('b'), zstr('c')])))), 'OK');
  assert.deepEqual(await db.call('LRANGE', 'ql', '0', '-1'), ['a', 'b', 'c']);
  // Type 13 (ziplist hash) and 12 (ziplist zset).
  assert.equal(await restore('zh', payload([13], blob(ziplist([zstr('f'), zstr('v'), zstr('n'), [[0xf3], []]])))), 'OK');
  assert.deepEqual(await db.call('HGETALL', 'zh'), ['f', 'v', 'n', '2']);
  assert.equal(await restore('zz', payload([12], blob(ziplist([zstr('m'), zstr('1.5'), zstr('k'), [[0xf2], []]])))), 'OK');
  assert.deepEqual(await db.call('ZRANGE', 'zz', '0', '-1', 'WITHSCORES'), ['k', '1', 'm', '1.5']);
  // Type 3: ZSET v1, scores as ASCII (255 = -inf).
  assert.equal(await restore('z1', payload([3, 2], str('a'), [3, ...Buffer.from('2.5')], str('b'), [255])), 'OK');
  assert.deepEqual(await db.call('ZRANGE', 'z1', '0', '-1', 'WITHSCORES'), ['b', '-inf', 'a', '2.5']);
  // Type 20 (Redis 7.2's set listpack): header, "ab" as a 6-bit string, 7 as a 7-bit int.
  const lp = [0, 0, 0, 0, 2, 0, 0x82, 0x61, 0x62, 3, 7, 1, 0xff];
  lp[0] = lp.length;
  assert.equal(await restore('s72', payload([20], [lp.length, ...lp])), 'OK');
  assert.deepEqual(((await db.call('SMEMBERS', 's72')) as string[]).sort(), ['7', 'ab']);
  // A zipmap hash (Redis 2.x) and an empty list are refused as Redis refuses bad payloads.
  await assert.rejects(restore('zm', payload([9], blob([1, 0xff]))), /ERR Bad data format/);
  await assert.rejects(restore('empty', payload([1, 0])), /ERR Bad data format/);
  await db.close();
});
