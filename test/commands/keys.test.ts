// Generic keyspace commands through the embedded client: replies, expiry (lazy and active),
// SCAN's guarantee, WATCH interaction and the absolute-time forms propagated to the AOF.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { open } from '../../src/client/embedded.js';
import { waitFor } from '../support/wait.js';
import { openWithClock, recordPropagation } from './keys-helpers.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

test('DEL / UNLINK / EXISTS / TYPE / DBSIZE', async () => {
  const db = await open();
  await db.call('MSET', 'a', '1', 'b', '2');
  await db.call('HSET', 'h', 'f', 'v');
  await db.call('SADD', 's', 'm');
  assert.equal(await db.call('EXISTS', 'a', 'a', 'nokey'), 2);
  assert.deepEqual(
    await Promise.all(['a', 'h', 's', 'nokey'].map((k) => db.call('TYPE', k))),
    ['string', 'hash', 'set', 'none'],
  );
  assert.equal(await db.call('DBSIZE'), 4);
  assert.equal(await db.call('DEL', 'a', 'a', 'nokey'), 1);
  assert.equal(await db.call('UNLINK', 'b', 'h'), 2);
  assert.equal(await db.call('DBSIZE'), 1);
  await assert.rejects(db.call('DEL'), /wrong number of arguments for 'del' command/);
  await db.close();
});

test('RENAME moves value and TTL; RENAMENX refuses an existing target', async () => {
  const { db, clock } = await openWithClock();
  await db.call('SET', 'src', 'v', 'PX', '5000');
  await db.call('SET', 'dst', 'old');
  assert.equal(await db.call('RENAME', 'src', 'dst'), 'OK');
  assert.equal(await db.call('GET', 'dst'), 'v');
  assert.equal(await db.call('PEXPIRETIME', 'dst'), clock.now + 5000);
  assert.equal(await db.call('EXISTS', 'src'), 0);
  await assert.rejects(db.call('RENAME', 'src', 'x'), /^ReplyError: ERR no such key$/);
  await db.call('SET', 'other', '1');
  assert.equal(await db.call('RENAMENX', 'dst', 'other'), 0);
  assert.equal(await db.call('RENAMENX', 'dst', 'fresh'), 1);
  assert.equal(await db.call('RENAME', 'fresh', 'fresh'), 'OK');
  assert.equal(await db.call('GET', 'fresh'), 'v');
  await db.close();
});

test('lazy expiry: a key is gone as soon as its time passes', async () => {
  const { db, clock } = await openWithClock();
  await db.call('SET', 'k', 'v', 'PX', '100');
  await db.call('HSET', 'h', 'f', 'v');
  assert.equal(await db.call('PEXPIRE', 'h', '200'), 1);
  assert.equal(await db.call('PTTL', 'k'), 100);
  clock.advance(99);
  assert.equal(await db.call('GET', 'k'), 'v');
  clock.advance(1);
  assert.equal(await db.call('GET', 'k'), null);
  assert.equal(await db.call('TTL', 'k'), -2);
  assert.equal(await db.call('HGET', 'h', 'f'), 'v');
  clock.advance(100);
  assert.equal(await db.call('TYPE', 'h'), 'none');
  assert.deepEqual(await db.call('KEYS', '*'), []);
  await db.close();
});

test('active expiry removes keys nobody reads (real clock, polled)', async () => {
  const db = await open();
  for (let i = 0; i < 50; i++) await db.call('SET', `k${i}`, 'v', 'PX', '5');
  await db.call('SET', 'keep', 'v');
  // DBSIZE does not expire lazily, so only the background cycle can bring it down to 1.
  await waitFor(async () => (await db.call('DBSIZE')) === 1, 'the expired key to be removed', 10_000);
  assert.equal(await db.call('GET', 'keep'), 'v');
  assert.equal(instanceBehind(db).stats.expiredKeys, 50);
  await db.close();
});

test('EXPIRE NX/XX/GT/LT conditions and TTL rounding', async () => {
  const { db, clock } = await openWithClock();
  await db.call('SET', 'k', 'v');
  assert.equal(await db.call('EXPIRE', 'k', '100', 'XX'), 0);
  assert.equal(await db.call('EXPIRE', 'k', '100', 'GT'), 0, 'no TTL counts as infinite for GT');
  assert.equal(await db.call('EXPIRE', 'k', '100', 'LT'), 1);
  assert.equal(await db.call('EXPIRE', 'k', '200', 'NX'), 0);
  assert.equal(await db.call('EXPIRE', 'k', '50', 'GT'), 0);
  assert.equal(await db.call('EXPIRE', 'k', '200', 'GT'), 1);
  assert.equal(await db.call('EXPIRE', 'k', '300', 'LT'), 0);
  clock.advance(1499);
  assert.equal(await db.call('TTL', 'k'), 199, '198.501 s rounds to 199');
  clock.advance(2);
  assert.equal(await db.call('TTL', 'k'), 198);
  assert.equal(await db.call('EXPIRETIME', 'k'), Math.floor((clock.now - 1501 + 200_000) / 1000));
  assert.equal(await db.call('PERSIST', 'k'), 1);
  assert.equal(await db.call('PERSIST', 'k'), 0);
  assert.equal(await db.call('TTL', 'k'), -1);
  await assert.rejects(
    db.call('EXPIRE', 'k', '10', 'NX', 'XX'),
    /^ReplyError: ERR NX and XX, GT or LT options at the same time are not compatible$/,
  );
  await assert.rejects(db.call('EXPIRE', 'k', '9223372036854775807'), /invalid expire time in 'expire' command/);
  await db.close();
});

test('expiries are propagated as absolute times; past times as DEL', async () => {
  const { db, clock } = await openWithClock();
  const log = recordPropagation(db);
  await db.call('SET', 'k', 'v');
  await db.call('EXPIRE', 'k', '10');
  await db.call('PEXPIRE', 'k', '500', 'GT');
  await db.call('EXPIREAT', 'k', String(Math.floor(clock.now / 1000) + 100));
  await db.call('EXPIRE', 'nokey', '10');
  await db.call('EXPIRE', 'k', '-1');
  assert.deepEqual(log, [
    'SET k v',
    `PEXPIREAT k ${clock.now + 10_000}`,
    // PEXPIRE 500 GT does not lower a 10 s TTL: nothing changed, nothing logged.
    `PEXPIREAT k ${(Math.floor(clock.now / 1000) + 100) * 1000}`,
    'DEL k',
  ]);
  await db.close();
});

test('FLUSHDB / FLUSHALL clear, touch WATCHed keys and are always logged', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const watcher = db.session();
  await db.call('SET', 'w', '1');
  await watcher.call('WATCH', 'w');
  await db.call('FLUSHDB');
  await watcher.call('MULTI');
  await watcher.call('SET', 'x', '1');
  assert.equal(await watcher.call('EXEC'), null, 'FLUSHDB must abort the WATCHing transaction');
  await db.call('SELECT', '1');
  await db.call('SET', 'in1', 'v');
  await db.call('FLUSHALL', 'ASYNC');
  assert.equal(await db.call('DBSIZE'), 0);
  await db.call('FLUSHDB');
  await assert.rejects(db.call('FLUSHDB', 'NOW'), /^ReplyError: ERR syntax error$/);
  assert.deepEqual(log.filter((l) => l.startsWith('FLUSH')), ['FLUSHDB', 'FLUSHALL ASYNC', 'FLUSHDB']);
  await db.close();
});

test('KEYS and SCAN filter by pattern and type', async () => {
  const db = await open();
  await db.call('MSET', 'user:1', 'a', 'user:2', 'b', 'order:1', 'c');
  await db.call('HSET', 'user:h', 'f', 'v');
  assert.deepEqual(((await db.call('KEYS', 'user:?')) as string[]).sort(), ['user:1', 'user:2', 'user:h']);
  const [cursor, keys] = (await db.call('SCAN', '0', 'MATCH', 'user:*', 'TYPE', 'string', 'COUNT', '100')) as [string, string[]];
  assert.equal(cursor, '0');
  assert.deepEqual(keys.sort(), ['user:1', 'user:2']);
  await assert.rejects(db.call('SCAN', 'x'), /^ReplyError: ERR invalid cursor$/);
  await assert.rejects(db.call('SCAN', '0', 'COUNT', '0'), /^ReplyError: ERR syntax error$/);
  await db.close();
});

test('SCAN returns every key present for the whole scan, whatever changes meanwhile', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 60 }),
      fc.array(fc.tuple(fc.constantFrom('add', 'del', 'set'), fc.integer({ min: 0, max: 120 })), { maxLength: 80 }),
      fc.integer({ min: 1, max: 7 }),
      async (initial, changes, count) => {
        const db = await open();
        for (let i = 0; i < initial; i++) await db.call('SET', `k${i}`, 'v');
        const stable = new Set(Array.from({ length: initial }, (_, i) => `k${i}`));
        const seen = new Set<string>();
        let cursor = '0';
        let step = 0;
        do {
          const [next, keys] = (await db.call('SCAN', cursor, 'COUNT', String(count))) as [string, string[]];
          for (const k of keys) seen.add(k);
          cursor = next;
          // Between calls, change a few keys; a changed key is no longer "present for the whole scan".
          for (const [op, n] of changes.slice(step * 3, step * 3 + 3)) {
            const key = `k${n}`;
            stable.delete(key);
            if (op === 'del') await db.call('DEL', key);
            else await db.call('SET', key, op);
          }
          step++;
        } while (cursor !== '0');
        for (const key of stable) assert.ok(seen.has(key), `SCAN missed ${key}`);
        await db.close();
      },
    ),
    { numRuns: 60 },
  );
});

test('RANDOMKEY returns an existing key or null', async () => {
  const db = await open();
  assert.equal(await db.call('RANDOMKEY'), null);
  await db.call('MSET', 'a', '1', 'b', '2');
  for (let i = 0; i < 10; i++) assert.ok(['a', 'b'].includes((await db.call('RANDOMKEY')) as string));
  await db.close();
});

test('OBJECT IDLETIME: lookups and writes touch a key; TYPE, EXISTS, TTL, OBJECT, KEYS and SCAN TYPE do not; TOUCH does', async () => {
  const { db, clock } = await openWithClock();
  const idle = () => db.call('OBJECT', 'IDLETIME', 'k');
  await db.call('SET', 'k', 'hello');
  await db.call('RPUSH', 'l', 'a');
  assert.equal(await idle(), 0);
  clock.advance(5_000);
  for (const argv of [['TYPE', 'k'], ['EXISTS', 'k'], ['TTL', 'k'], ['PTTL', 'k'], ['EXPIRETIME', 'k'], ['OBJECT', 'ENCODING', 'k'], ['KEYS', 'k*'], ['SCAN', '0', 'TYPE', 'string'], ['MEMORY', 'USAGE', 'k']]) {
    await db.call(...(argv as [string, ...string[]]));
  }
  assert.equal(await idle(), 5);
  await db.call('TOUCH', 'k', 'nokey');
  assert.equal(await idle(), 0);
  clock.advance(3_000);
  await db.call('GET', 'k');
  assert.equal(await idle(), 0);
  clock.advance(3_000);
  await db.call('APPEND', 'k', '!');
  assert.equal(await idle(), 0);
  // A write touches the key it changes: LPUSH on the list, 11 s after it was made (SCAN TYPE saw it without touching it).
  assert.equal(await db.call('OBJECT', 'IDLETIME', 'l'), 11);
  await db.call('LPUSH', 'l', 'b');
  assert.equal(await db.call('OBJECT', 'IDLETIME', 'l'), 0);
  // RESTORE IDLETIME sets it.
  // DUMP "hello" as redis-server 7.0 writes it.
  const payload = Buffer.from('\x00\x05hello\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a', 'latin1');
  await db.call('RESTORE', 'r', '0', payload, 'IDLETIME', '1000');
  assert.equal(await db.call('OBJECT', 'IDLETIME', 'r'), 1000);
  assert.equal(await db.call('OBJECT', 'IDLETIME', 'nokey'), null);
  await db.close();
});
