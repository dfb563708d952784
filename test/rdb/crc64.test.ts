// crc64 (Redis's crc64.c: Jones polynomial, reflected, init 0, no final xor) against its check
// value, against the bit-at-a-time definition on random input (every length, offset and split),
// and against the checksums redis-server 7.0 itself writes at the end of DUMP payloads and of
// dump.rdb.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { crc64 } from '../../src/rdb/crc64.js';
import { startRedisServer } from '../support/processes.js';
import { client, withDir } from './servers.js';

/** The definition, one bit at a time: the reflected Jones polynomial. */
function reference(data: Uint8Array, crc = 0n): bigint {
  const poly = 0x95ac9329ac4bc9b5n;
  for (const byte of data) {
    crc ^= BigInt(byte);
    for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
  }
  return crc;
}

test('the check value of Redis crc64.c', () => {
  assert.equal(crc64(Buffer.from('123456789')), 0xe9c6d914c4b8d9can);
  assert.equal(reference(Buffer.from('123456789')), 0xe9c6d914c4b8d9can);
  assert.equal(crc64(Buffer.alloc(0)), 0n);
});

test('crc64 equals the bit-at-a-time definition at any length, offset and split', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), fc.nat(300), (bytes, offset, cut) => {
      // A view at an odd offset of a larger buffer, as the chunks and subarrays crc64 is given.
      const backing = Buffer.alloc(bytes.length + offset);
      backing.set(bytes, offset);
      const data = backing.subarray(offset);
      const expected = reference(bytes);
      assert.equal(crc64(data), expected);
      const at = Math.min(cut, data.length);
      assert.equal(crc64(data.subarray(at), crc64(data.subarray(0, at))), expected);
    }),
    { numRuns: 400 },
  );
});

test('crc64 of long inputs (the WebAssembly path) equals the definition and the short-input path', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 500, maxLength: 1500 }), fc.nat(7), (bytes, offset) => {
      const backing = Buffer.alloc(bytes.length + offset);
      backing.set(bytes, offset);
      assert.equal(crc64(backing.subarray(offset), 0x0123456789abcdefn), reference(bytes, 0x0123456789abcdefn));
    }),
    { numRuns: 60 },
  );
  // Past the module's input window (128 KiB a call), against the same bytes summed in pieces
  // short enough for the JavaScript loops.
  const big = Buffer.alloc(300_001);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  let chained = 0n;
  for (let at = 0; at < big.length; at += 300) chained = crc64(big.subarray(at, Math.min(big.length, at + 300)), chained);
  assert.equal(crc64(big), chained);
  assert.equal(crc64(big.subarray(1)), crc64(big.subarray(200_000), crc64(big.subarray(1, 200_000))));
});

test('crc64 gives the checksums redis-server writes in DUMP payloads and dump.rdb', async () => {
  await withDir(async (dir) => {
    const redis = await startRedisServer(['--dir', dir]);
    const r = await client(redis.port);
    try {
      const keys: string[] = [];
      for (const len of [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 70_000]) {
        await r.set(`s${len}`, Buffer.alloc(len, (len * 37) & 0xff));
        keys.push(`s${len}`);
      }
      for (let i = 0; i < 500; i++) await r.hset('h', `field-${i}`, `value-${i * 7919}`);
      for (let i = 0; i < 300; i++) await r.xadd('x', '*', 'n', String(i), 'p', `payload-${i}`);
      keys.push('h', 'x');
      for (const key of keys) {
        const payload = await r.dumpBuffer(key);
        assert.ok(payload !== null, key);
        assert.equal(crc64(payload.subarray(0, payload.length - 8)), payload.readBigUInt64LE(payload.length - 8), key);
      }
      assert.equal(await r.save(), 'OK');
      const file = readFileSync(join(dir, 'dump.rdb'));
      assert.equal(crc64(file.subarray(0, file.length - 8)), file.readBigUInt64LE(file.length - 8));
    } finally {
      r.disconnect();
      await redis.stop();
    }
  });
});
