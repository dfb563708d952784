// sluice server as a replica: of a real redis-server 7.0 (full sync of every type and a
// 100k-entry stream, the live stream, read-only refusals, a cut link resumed by PSYNC), in a
// chain redis -> sluice -> sluice, promoted with REPLICAOF NO ONE (its own replica continues
// with a partial resync), and against a primary that sends a truncated or corrupt RDB.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { installed, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { populate, snapshot } from '../support/rdb-fixtures.js';
import { caughtUp, chainAgrees, field, info, NOT_REPLICATED_EXACTLY } from './helpers.js';
import { waitFor } from '../support/wait.js';



const IGNORE = NOT_REPLICATED_EXACTLY;

describe('sluice server as a replica of redis-server 7.0, and in a chain', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let a: SluiceServer;
  let b: SluiceServer;
  let dir: string;
  let primary: Redis;
  let replicaA: Redis;
  let replicaB: Redis;
  let keys: string[];
  const STREAM = 'big';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-replica-'));
    redis = await startRedisServer(['--dir', dir, '--repl-diskless-sync-delay', '0']);
    primary = new Redis(redis.port, { lazyConnect: true });
    keys = await populate(primary);
    for (let i = 0; i < 100_000; i += 1000) {
      const p = primary.pipeline();
      for (let k = i; k < i + 1000; k++) p.xadd(STREAM, '*', 'n', String(k));
      await p.exec();
    }
    await primary.xgroup('CREATE', STREAM, 'workers', '0');
    await primary.xreadgroup('GROUP', 'workers', 'w1', 'COUNT', '700', 'STREAMS', STREAM, '>');
    a = await startSluiceServer(['--repl-diskless-sync-delay', '0', '--replicaof', `127.0.0.1 ${redis.port}`]);
    replicaA = new Redis(a.port, { lazyConnect: true });
    b = await startSluiceServer(['--replicaof', `127.0.0.1 ${a.port}`]);
    replicaB = new Redis(b.port, { lazyConnect: true });
  });

  after(async () => {
    for (const c of [primary, replicaA, replicaB]) c?.disconnect();
    for (const s of [a, b]) if (s) await s.stop();
    if (redis) await stopChild(redis.child);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a full sync from redis-server loads every type and the 100k-entry stream, offsets equal', async () => {
    await caughtUp(primary, replicaA);
    assert.deepEqual(await snapshot(replicaA, [...keys, STREAM]), await snapshot(primary, [...keys, STREAM]));
    assert.deepEqual(await replicaA.xrange(STREAM, '-', '+'), await primary.xrange(STREAM, '-', '+'));
    const r = await info(replicaA);
    assert.equal(field(r, 'role'), 'slave');
    assert.equal(field(r, 'master_port'), String(redis.port));
    assert.equal(field(r, 'master_replid'), field(await info(primary), 'master_replid'));
    assert.deepEqual(await replicaA.call('ROLE'), ['slave', '127.0.0.1', redis.port, 'connected', Number(field(r, 'slave_repl_offset'))]);
    assert.match(String(await replicaA.call('CLIENT', 'LIST', 'TYPE', 'master')), / flags=M /);
  });

  test('the live stream is applied, and the chain passes it on byte for byte', async () => {
    await primary.set('live', 'yes');
    await primary.multi().incr('counter').xadd(STREAM, '*', 'n', 'live').exec();
    await primary.xreadgroup('GROUP', 'workers', 'w2', 'COUNT', '3', 'STREAMS', STREAM, '>');
    await primary.xack(STREAM, 'workers', ...((await primary.xpending(STREAM, 'workers', '-', '+', 10)) as Array<[string]>).map(([id]) => id));
    await primary.set('short-lived', 'x', 'PX', '100');
    // The same offsets down the chain (a PING from redis-server may move them meanwhile).
    await chainAgrees(primary, replicaA, replicaB);
    const all = [...keys, STREAM, 'live', 'counter'];
    const expected = await snapshot(primary, all, IGNORE);
    assert.deepEqual(await snapshot(replicaA, all, IGNORE), expected);
    assert.deepEqual(await snapshot(replicaB, all, IGNORE), expected);
    // A key that expires is removed by the primary's DEL; a replica never deletes it on its own.
    await waitFor(async () => (await replicaB.exists('short-lived')) === 0, 'the expired key gone on the replica');
  });

  test('commands split across reads (large values, pipelined) keep the offsets exact down the chain', async () => {
    const big = 'v'.repeat(150_000);
    const p = primary.pipeline();
    for (let i = 0; i < 20; i++) p.xadd('split', '*', 'n', String(i), 'payload', big);
    await p.exec();
    await chainAgrees(primary, replicaA, replicaB);
    assert.equal(await replicaB.xlen('split'), 20);
  });

  test('a replica refuses writes with READONLY (XREADGROUP too) and serves reads', async () => {
    await assert.rejects(replicaA.set('x', '1'), /^ReplyError: READONLY You can't write against a read only replica\.$/);
    await assert.rejects(replicaA.xreadgroup('GROUP', 'workers', 'w9', 'STREAMS', STREAM, '>'), /^ReplyError: READONLY /);
    assert.equal(await replicaA.get('live'), 'yes');
    await assert.rejects(replicaA.call('REPLICAOF', '127.0.0.1', 'abc'), /^ReplyError: ERR Invalid master port$/);
    assert.equal(await replicaA.call('REPLICAOF', '127.0.0.1', String(redis.port)), 'OK Already connected to specified master');
  });

  test('a cut link resumes with a partial resync, from either side', async () => {
    const before = await info(primary, 'stats');
    await replicaA.call('CLIENT', 'KILL', 'TYPE', 'master');
    await primary.set('after-cut', '1');
    await waitFor(async () => field(await info(primary, 'stats'), 'sync_partial_ok') !== field(before, 'sync_partial_ok'), 'a partial resync');
    await primary.call('CLIENT', 'KILL', 'TYPE', 'replica');
    await primary.set('after-cut', '2');
    await waitFor(async () => Number(field(await info(primary, 'stats'), 'sync_partial_ok')) === Number(field(before, 'sync_partial_ok')) + 2, 'a second partial resync');
    await caughtUp(primary, replicaA);
    await caughtUp(replicaA, replicaB);
    assert.equal(field(await info(primary, 'stats'), 'sync_full'), field(before, 'sync_full'), 'no full sync');
    assert.equal(await replicaB.get('after-cut'), '2');
  });

  test('REPLICAOF NO ONE promotes: writes accepted, the old history kept as replid2, its replica continues', async () => {
    const aStats = await info(replicaA, 'stats');
    const before = await info(replicaA);
    assert.equal(await replicaA.call('REPLICAOF', 'NO', 'ONE'), 'OK');
    const promoted = await info(replicaA);
    assert.equal(field(promoted, 'role'), 'master');
    assert.equal(field(promoted, 'master_replid2'), field(before, 'master_replid'));
    assert.equal(Number(field(promoted, 'second_repl_offset')), Number(field(before, 'master_repl_offset')) + 1);
    assert.equal(await replicaA.set('written-on-a', 'ok'), 'OK');
    await caughtUp(replicaA, replicaB);
    assert.equal(await replicaB.get('written-on-a'), 'ok');
    assert.equal(field(await info(replicaB), 'master_replid'), field(promoted, 'master_replid'));
    assert.equal(field(await info(replicaA, 'stats'), 'sync_full'), field(aStats, 'sync_full'), 'B continued without a full sync');
  });
});

/** A fake primary: answers the handshake, then sends +FULLRESYNC and `payload` and closes. */
async function fakePrimary(payload: (socket: Socket) => void): Promise<{ server: NetServer; port: number }> {
  const server = createServer((socket) => {
    let text = '';
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const commands = text.split('*').length - 1;
      if (/PSYNC/i.test(text)) {
        text = '';
        socket.write(`+FULLRESYNC ${'a'.repeat(40)} 0\r\n`);
        payload(socket);
      } else if (commands > 0 && text.endsWith('\r\n')) {
        socket.write(/PING/i.test(text) ? '+PONG\r\n' : '+OK\r\n');
        text = '';
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe('sluice server as a replica: bad primaries and bad targets', () => {
  let sluice: SluiceServer;
  let client: Redis;
  before(async () => {
    sluice = await startSluiceServer();
    client = new Redis(sluice.port, { lazyConnect: true });
    await client.set('kept', 'old data');
  });
  after(async () => {
    client?.disconnect();
    if (sluice) await sluice.stop();
  });

  test('a truncated or corrupt RDB from the primary is never loaded, not even in part', async () => {
    for (const send of [
      (socket: Socket) => socket.end('$500\r\nREDIS0010'), // truncated: 9 of 500 bytes, then closed
      (socket: Socket) => socket.write(`$20\r\n${'x'.repeat(20)}`), // 20 bytes that are no RDB
    ]) {
      const fake = await fakePrimary(send);
      assert.equal(await client.call('REPLICAOF', '127.0.0.1', String(fake.port)), 'OK');
      await waitFor(async () => field(await info(client), 'master_sync_in_progress') === '0' && field(await info(client), 'master_link_status') === 'down', 'the failed sync');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await client.get('kept'), 'old data', 'the dataset before the sync is intact');
      assert.equal(await client.exists('from-bad-primary'), 0);
      assert.equal(await client.call('REPLICAOF', 'NO', 'ONE'), 'OK');
      fake.server.close();
    }
    assert.equal(await client.ping(), 'PONG');
  });

  test('REPLICAOF an unreachable host or itself: OK, the link stays down, the server serves', async () => {
    for (const port of [1, sluice.port]) {
      assert.equal(await client.call('REPLICAOF', '127.0.0.1', String(port)), 'OK');
      await new Promise((r) => setTimeout(r, 1500));
      const r = await info(client);
      assert.equal(field(r, 'role'), 'slave');
      assert.equal(field(r, 'master_link_status'), 'down');
      assert.match(field(r, 'master_link_down_since_seconds') ?? '', /^\d+$/);
      assert.equal(await client.get('kept'), 'old data');
      assert.equal(await client.call('REPLICAOF', 'NO', 'ONE'), 'OK');
    }
    assert.equal(await client.set('writable-again', '1'), 'OK');
  });
});
