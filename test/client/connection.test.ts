// The Connection adapters: the same contract over ioredis (redis-server, sluice server) and the
// embedded engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { connect } from '../../src/client/connect.js';
import { type Connection, TransactionError } from '../../src/client/connection.js';
import { open } from '../../src/client/embedded.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { reconnectDelay } from '../../src/client/ioredis-defaults.js';
import { RedisConnection } from '../../src/client/redis-connection.js';
import { backends, describeEach, redisServer } from '../broker/backends.js';
import { waitFor } from '../support/wait.js';

describeEach(backends, (name) => `Connection on ${name}`, (b) => {
  test('call returns RESP2-shaped values and rejects with the server error text', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'c:s');
    const id = await conn.call('XADD', 'c:s', '1-1', 'f', 'v');
    assert.equal(id, '1-1');
    assert.deepEqual(await conn.call('XRANGE', 'c:s', '-', '+'), [['1-1', ['f', 'v']]]);
    assert.deepEqual(await conn.call('XREAD', 'STREAMS', 'c:s', '0'), [['c:s', [['1-1', ['f', 'v']]]]]);
    assert.equal(await conn.call('XLEN', 'c:s'), 1);
    await assert.rejects(conn.call('XADD', 'c:s', '1-1', 'f', 'v'), /^Error: ERR The ID specified in XADD is equal or smaller than the target stream top item$|ERR The ID specified in XADD is equal or smaller/);
    await conn.close();
  });

  test('a long call (hundreds of arguments) gets its reply, or rejects with the server error text', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'c:long');
    const pairs = Array.from({ length: 200 }, (_, i) => [`f${i}`, i % 2 === 0 ? `v${i}` : i]).flat();
    assert.equal(await conn.call('HSET', 'c:long', ...pairs), 200);
    assert.equal(await conn.call('HGET', 'c:long', 'f198'), 'v198');
    await assert.rejects(conn.call('HSET', 'c:long', ...pairs, 'odd'), /ERR wrong number of arguments for 'hset' command/);
    await conn.close();
  });

  test('pipeline keeps order and puts errors in their slot', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'c:p');
    const out = await conn.pipeline([['XADD', 'c:p', '5-1', 'a', '1'], ['XADD', 'c:p', '1-1', 'a', '2'], ['XLEN', 'c:p']]);
    assert.equal(out[0], '5-1');
    assert.ok(out[1] instanceof Error);
    assert.match((out[1] as Error).message, /equal or smaller/);
    assert.equal(out[2], 1);
    await conn.close();
  });

  test('multi runs atomically and rejects when a command in it fails', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'c:m');
    assert.deepEqual(await conn.multi([['XADD', 'c:m', '1-1', 'a', '1'], ['XLEN', 'c:m']]), ['1-1', 1]);
    await assert.rejects(conn.multi([['XADD', 'c:m', '1-1', 'a', '1'], ['XLEN', 'c:m']]), TransactionError);
    await conn.close();
  });

  test('a multi refused while queueing runs none of it and leaves the connection out of the transaction', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'c:q');
    await assert.rejects(conn.multi([['XADD', 'c:q', '1-1', 'a', '1'], ['XLEN']]));
    assert.equal(await conn.call('EXISTS', 'c:q'), 0, 'nothing of it ran');
    assert.deepEqual(await conn.multi([['XADD', 'c:q', '2-1', 'a', '1'], ['XLEN', 'c:q']]), ['2-1', 1]);
    assert.equal(await conn.call('PING'), 'PONG');
    await conn.close();
  });

  for (const how of ['call', 'pipeline', 'multi'] as const) {
    test(`a SELECT sent by ${how} still holds after the link reconnects`, { skip: b.name === 'embedded' && 'an embedded session has no link to lose' }, async () => {
      const conn = await b.connect();
      const admin = await b.connect();
      try {
        if (how === 'call') await conn.call('select', 3).then(() => conn.call('SELECT', 4));
        else if (how === 'pipeline') await conn.pipeline([['SELECT', 4]]);
        else await conn.multi([['SELECT', 4]]);
        const id = Number(await conn.call('CLIENT', 'ID'));
        assert.equal(await admin.call('CLIENT', 'KILL', 'ID', id), 1);
        await waitFor(async () => Number(await conn.call('CLIENT', 'ID').catch(() => id)) !== id, 'reconnected');
        await conn.call('SET', 'c:db', how);
        await admin.call('SELECT', 4);
        assert.equal(await admin.call('GET', 'c:db'), how, 'written in db 4, the one selected');
        await admin.call('DEL', 'c:db');
      } finally {
        await admin.close();
        await conn.close();
      }
    });
  }

  test('a blocking read on a duplicate does not stall the original', async () => {
    const conn = await b.connect();
    await conn.call('DEL', 'c:b');
    const dup = await conn.duplicate();
    const dupId = await dup.call('CLIENT', 'ID');
    const read = dup.call('XREAD', 'BLOCK', 0, 'STREAMS', 'c:b', '$');
    assert.equal(await conn.call('PING'), 'PONG');
    // Once the duplicate is blocked (CLIENT LIST shows it in XREAD), the entry is added.
    await waitFor(async () => String(await conn.call('CLIENT', 'LIST')).includes(`id=${dupId} `) && /cmd=xread/.test(String(await conn.call('CLIENT', 'LIST'))), 'blocked');
    await conn.call('XADD', 'c:b', '7-1', 'x', 'y');
    assert.deepEqual(await read, [['c:b', [['7-1', ['x', 'y']]]]]);
    await dup.close();
    await conn.close();
  });

  test('interrupt() ends a blocking read with nil and leaves the connection usable', async () => {
    const conn = await b.connect();
    const dup = await conn.duplicate();
    await dup.call('PING'); // connected, its client id known
    const started = Date.now();
    const read = dup.call('XREAD', 'BLOCK', 10_000, 'STREAMS', 'c:i', '$');
    await waitFor(async () => /cmd=xread/.test(String(await conn.call('CLIENT', 'LIST'))), 'blocked');
    await dup.interrupt();
    assert.equal(await read, null);
    assert.ok(Date.now() - started < 5000, 'ended before its timeout');
    assert.equal(await dup.call('PING'), 'PONG');
    await dup.close();
    await conn.close();
  });
});

describe('connect()', () => {
  test("'embedded:' opens a private in-process database, closed with the connection", async () => {
    const conn: Connection = await connect('embedded:');
    assert.ok(conn instanceof EmbeddedConnection);
    assert.equal(await conn.call('PING'), 'PONG');
    await conn.close();
    await assert.rejects(conn.call('PING'), /closed/);
  });

  test('an EmbeddedDatabase passed in is shared and left open', async () => {
    const db = await open();
    const conn = await connect(db);
    await conn.call('SET', 'k', 'v');
    await conn.close();
    assert.equal(await db.call('GET', 'k'), 'v');
    await db.close();
  });

  test('an ioredis client passed in is wrapped and not closed', async (t) => {
    const redis = await redisServer.start();
    t.after(() => redis.stop());
    const client = new Redis(redis.url!, { protocol: 2 });
    const conn = await connect(client);
    assert.ok(conn instanceof RedisConnection);
    assert.equal(await conn.call('PING'), 'PONG');
    await conn.close();
    assert.equal(await client.ping(), 'PONG');
    client.disconnect();
    const resp3 = new Redis(redis.url!, { lazyConnect: true });
    await assert.rejects(connect(resp3), /protocol: 2/);
  });

  test('reconnect backoff grows exponentially up to 2s, with jitter', () => {
    for (let attempt = 1; attempt <= 20; attempt++) {
      const base = Math.min(2000, 50 * 2 ** (attempt - 1));
      const d = reconnectDelay(attempt);
      assert.ok(d >= base / 2 && d <= base, `attempt ${attempt}: ${d}`);
    }
  });
});
