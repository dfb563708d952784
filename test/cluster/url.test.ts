// The redis+cluster:// and redis+sentinel:// URL forms and partition arithmetic that need no running cluster.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { crc16, keySlot, partitionStreams, partitionTag, splitConcurrency } from '../../src/broker/partition.js';
import { parseClusterUrl } from '../../src/client/cluster-connection.js';
import { parseSentinelUrl } from '../../src/client/sentinel-url.js';

test('parseClusterUrl: seeds, default port, IPv6, credentials', () => {
  assert.deepEqual(parseClusterUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001'), {
    nodes: [{ host: '127.0.0.1', port: 7000 }, { host: '127.0.0.1', port: 7001 }],
  });
  assert.deepEqual(parseClusterUrl('redis+cluster://a,[::1]:7002/'), { nodes: [{ host: 'a', port: 6379 }, { host: '::1', port: 7002 }] });
  assert.deepEqual(parseClusterUrl('redis+cluster://u:p%40ss@h:1'), { nodes: [{ host: 'h', port: 1 }], username: 'u', password: 'p@ss' });
  assert.deepEqual(parseClusterUrl('redis+cluster://secret@h:1'), { nodes: [{ host: 'h', port: 1 }], password: 'secret' });
  assert.throws(() => parseClusterUrl('redis://h:1'), TypeError);
  assert.throws(() => parseClusterUrl('redis+cluster://'), TypeError);
  assert.throws(() => parseClusterUrl('redis+cluster://h:x'), TypeError);
});

test('parseSentinelUrl: sentinels, default port 26379, master name, db, credentials of the servers', () => {
  assert.deepEqual(parseSentinelUrl('redis+sentinel://127.0.0.1:26380,h2/orders'), {
    sentinels: [{ host: '127.0.0.1', port: 26380 }, { host: 'h2', port: 26379 }],
    name: 'orders',
  });
  assert.deepEqual(parseSentinelUrl('redis+sentinel://u:p%40ss@[::1]:5000/my%20master/3'), {
    sentinels: [{ host: '::1', port: 5000 }],
    name: 'my master',
    db: 3,
    username: 'u',
    password: 'p@ss',
  });
  assert.throws(() => parseSentinelUrl('redis+sentinel://h:1'), /no master name/);
  assert.throws(() => parseSentinelUrl('redis+sentinel://h:1/m/x'), /bad path/);
  assert.throws(() => parseSentinelUrl('redis+sentinel://h:1/m/1/2'), /bad path/);
  assert.throws(() => parseSentinelUrl('redis://h:1/m'), TypeError);
});

test('keySlot reference values (Redis Cluster spec)', () => {
  assert.equal(keySlot('123456789'), 12739); // CRC16/XMODEM check value 0x31C3 mod 16384
  assert.equal(keySlot('foo'), 12182);
  assert.equal(keySlot('{user1000}.following'), keySlot('user1000'));
  assert.equal(keySlot('foo{}{bar}'), crc16(Buffer.from('foo{}{bar}')) % 16384); // empty tag: whole key
  assert.equal(keySlot('foo{{bar}}zap'), keySlot('{bar'));
});

test('partition tags fall in the middle half of their slot range, for any count', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 64 }), (n) => {
      const streams = partitionStreams('s', n);
      assert.equal(new Set(streams).size, n);
      streams.forEach((s, i) => {
        const w = 16384 / n;
        const slot = keySlot(s);
        assert.ok(slot >= i * w + w / 4 && slot <= (i + 1) * w - w / 4, `${s} slot ${slot}`);
        assert.equal(s, `s{${partitionTag(i, n)}}`);
      });
    }),
    { numRuns: 64 },
  );
});

test('splitConcurrency gives every partition a share, summing to the total when it can', () => {
  assert.deepEqual(splitConcurrency(10, 3), [4, 3, 3]);
  assert.deepEqual(splitConcurrency(2, 3), [1, 1, 1]);
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 50 }), (total, n) => {
      const shares = splitConcurrency(total, n);
      assert.equal(shares.length, n);
      assert.equal(shares.reduce((a, b) => a + b, 0), Math.max(total, n));
    }),
  );
});
