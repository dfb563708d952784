// Partition naming and key hashing: part of the wire contract other languages rely on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeEntry, encodeEntry, jsonCodec, MalformedEntryError } from '../../src/broker/codec.js';
import { hashKey, partitionOf, partitionStreams } from '../../src/broker/partition.js';

test('FNV-1a 32-bit reference values', () => {
  assert.equal(hashKey(''), 0x811c9dc5);
  assert.equal(hashKey('a'), 0xe40c292c);
  assert.equal(hashKey('foobar'), 0xbf9cf968);
  assert.equal(hashKey('é'), hashKey('\u00e9')); // hashed as UTF-8 bytes
});

test('partition names carry slot-spread hash tags (reference values for other languages)', () => {
  assert.deepEqual(partitionStreams('orders', 3), ['orders{0.1}', 'orders{1.4}', 'orders{2.4}']);
  assert.deepEqual(partitionStreams('orders', 6), ['orders{0.1}', 'orders{1.3}', 'orders{2.2}', 'orders{3.43}', 'orders{4.20}', 'orders{5.8}']);
  assert.throws(() => partitionStreams('orders', 0), RangeError);
  assert.throws(() => partitionStreams('or{ders}', 2), RangeError);
});

test('a key always maps to the same partition in range', () => {
  fc.assert(
    fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (key, n) => {
      const p = partitionOf(key, n);
      return Number.isInteger(p) && p >= 0 && p < n && p === partitionOf(key, n);
    }),
  );
});

test('entries round-trip through the JSON layout; bad ones are MalformedEntryError', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const pairs = encodeEntry(jsonCodec, value, 'k');
      const fields: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
      assert.equal(fields['content-type'], 'application/json');
      assert.equal(fields['key'], 'k');
      assert.deepEqual(decodeEntry(jsonCodec, fields), JSON.parse(JSON.stringify(value)));
    }),
  );
  assert.throws(() => decodeEntry(jsonCodec, { payload: '{' }), MalformedEntryError);
  assert.throws(() => decodeEntry(jsonCodec, {}), MalformedEntryError);
  assert.throws(() => encodeEntry(jsonCodec, undefined), TypeError);
});
