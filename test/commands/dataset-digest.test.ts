// DEBUG DIGEST and DIGEST-VALUE give redis-server 7.0's digits for the same data: every type
// (listpack and large encodings, a stream with groups), expiring keys, several databases, scores
// printed as %.17g, an empty dataset; DEBUG CHANGE-REPL-ID gives a new replication id.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { formatDouble } from '../../src/resp/encoder.js';
import { installed, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { populate } from '../support/rdb-fixtures.js';

test('formatDouble prints as C printf %.17g (the digest mixes scores in that form)', () => {
  const cases: Array<[number, string]> = [
    [1, '1'], [2.5, '2.5'], [0.1, '0.10000000000000001'], [1e300, '1.0000000000000001e+300'], [-0, '-0'],
    [1 / 7, '0.14285714285714285'], [1e-5, '1.0000000000000001e-05'], [0.0001, '0.0001'], [1e17, '1e+17'],
    [12345678901234567, '12345678901234568'], [-Infinity, '-inf'], [123.456, '123.456'],
    // glibc rounds ties to even on the exact binary value; JS's toExponential rounds them up.
    [366376387901483.125, '366376387901483.12'], [366376387901483.375, '366376387901483.38'],
    [-366376387901483.125, '-366376387901483.12'], [4503599627370497.5, '4503599627370498'],
    // Past 2^53 String() gives the shortest round-trip digits, %.17g the exact ones.
    [99999999999999980, '99999999999999984'], [5e-5, '5.0000000000000002e-05'], [1e-7, '9.9999999999999995e-08'],
  ];
  for (const [v, s] of cases) assert.equal(formatDouble(v), s, String(v));
});

describe('DEBUG DIGEST against redis-server 7.0', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let sluice: SluiceServer;
  let r: Redis;
  let s: Redis;

  before(async () => {
    redis = await startRedisServer(['--enable-debug-command', 'yes']);
    sluice = await startSluiceServer(['--enable-debug-command', 'yes']);
    r = new Redis(redis.port, { lazyConnect: true });
    s = new Redis(sluice.port, { lazyConnect: true });
  });

  after(async () => {
    r?.disconnect();
    s?.disconnect();
    if (sluice) await sluice.stop();
    if (redis) await stopChild(redis.child);
  });

  const both = async (...args: string[]): Promise<[unknown, unknown]> => [await r.call(args[0]!, ...args.slice(1)), await s.call(args[0]!, ...args.slice(1))];

  test('an empty dataset digests to zeros on both', async () => {
    const [a, b] = await both('DEBUG', 'DIGEST');
    assert.equal(a, '0'.repeat(40));
    assert.equal(b, a);
  });

  test('the same data of every type gives the same digest and value digests', async () => {
    const keys = await populate(r);
    await populate(s);
    for (const c of [r, s]) {
      await c.call('ZADD', 'scores', '0.0001', 'a', '1e-5', 'b', '123456789012345678', 'c', '-0.5', 'd');
      await c.select(4);
      await c.call('SET', 'elsewhere', 'v', 'EX', '1000');
      await c.call('SADD', 'mixed', 'x', '1', '2');
      await c.select(0);
    }
    const [a, b] = await both('DEBUG', 'DIGEST');
    assert.match(String(a), /^[0-9a-f]{40}$/);
    assert.equal(b, a);
    const [va, vb] = await both('DEBUG', 'DIGEST-VALUE', ...keys, 'scores', 'missing');
    assert.deepEqual(vb, va);
    assert.equal((va as string[]).at(-1), '0'.repeat(40));
    // A change anywhere changes it, on both.
    await both('HSET', 'hash', 'f1', 'changed');
    const [c, d] = await both('DEBUG', 'DIGEST');
    assert.notEqual(c, a);
    assert.equal(d, c);
  });

  test('DEBUG CHANGE-REPL-ID gives a new replication id and clears the second one', async () => {
    const id = (info: string): string | undefined => /master_replid:(\w+)/.exec(info)?.[1];
    const before = id(String(await s.info('replication')));
    assert.equal(await s.call('DEBUG', 'CHANGE-REPL-ID'), 'OK');
    const info = String(await s.info('replication'));
    assert.notEqual(id(info), before);
    assert.match(info, /master_replid2:0{40}/);
  });
});
