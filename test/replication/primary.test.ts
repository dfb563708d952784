// sluice server as a primary, with a real redis-server 7.0 as its replica (started with
// --replicaof, nothing mocked): the full sync of a dataset with every type and a 100k-entry
// stream with groups and a PEL, the live stream after it, partial resyncs after a cut link,
// WAIT, min-replicas-to-write, ROLE / INFO / CLIENT LIST, and a replica that never reads.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { open } from '../../src/client/embedded.js';
import { installed, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { populate, snapshot } from '../support/rdb-fixtures.js';
import { caughtUp, field, info, NOT_REPLICATED_EXACTLY } from './helpers.js';
import { waitFor } from '../support/wait.js';




describe('redis-server 7.0 as a replica of sluice server', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  let sluice: SluiceServer;
  let redis: RedisServer;
  let dir: string;
  let primary: Redis;
  let replica: Redis;
  let keys: string[];
  const STREAM = 'big';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-primary-'));
    sluice = await startSluiceServer(['--repl-diskless-sync-delay', '0']);
    primary = new Redis(sluice.port, { lazyConnect: true });
    keys = await populate(primary);
    // 100k entries, a group with a PEL of 1000 across two consumers, 100 acknowledged.
    for (let i = 0; i < 100_000; i += 1000) {
      const p = primary.pipeline();
      for (let k = i; k < i + 1000; k++) p.xadd(STREAM, '*', 'n', String(k), 'payload', `order-${k}`);
      await p.exec();
    }
    await primary.xgroup('CREATE', STREAM, 'workers', '0');
    await primary.xreadgroup('GROUP', 'workers', 'a', 'COUNT', '600', 'STREAMS', STREAM, '>');
    const read = (await primary.xreadgroup('GROUP', 'workers', 'b', 'COUNT', '400', 'STREAMS', STREAM, '>')) as Array<[string, Array<[string, string[]]>]>;
    await primary.xack(STREAM, 'workers', ...read[0]![1].slice(0, 100).map(([id]) => id));
    redis = await startRedisServer(['--replicaof', '127.0.0.1', String(sluice.port), '--dir', dir]);
    replica = new Redis(redis.port, { lazyConnect: true });
  });

  after(async () => {
    primary?.disconnect();
    replica?.disconnect();
    if (redis) await stopChild(redis.child);
    if (sluice) await sluice.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a full sync gives the replica the same data, key by key, and the offsets agree', async () => {
    await caughtUp(primary, replica);
    assert.deepEqual(await snapshot(replica, [...keys, STREAM]), await snapshot(primary, [...keys, STREAM]));
    assert.equal(await replica.xlen(STREAM), 100_000);
    assert.deepEqual(await replica.xrange(STREAM, '-', '+'), await primary.xrange(STREAM, '-', '+'));
    // The PEL entry by entry: id, consumer, delivery count (idle times are read at different moments).
    const pel = async (c: Redis) => ((await c.xpending(STREAM, 'workers', '-', '+', 2000)) as Array<[string, string, number, number]>).map(([id, consumer, , count]) => [id, consumer, count]);
    assert.deepEqual(await pel(replica), await pel(primary));
    assert.equal(field(await info(primary, 'stats'), 'sync_full'), '1');
  });

  test('the live stream follows: writes, transactions, group reads and acks, in every db', async () => {
    await primary.set('live', '1');
    await primary.multi().incr('counter').xadd(STREAM, '*', 'n', 'live').exec();
    await primary.xreadgroup('GROUP', 'workers', 'c', 'COUNT', '5', 'STREAMS', STREAM, '>');
    const [oldest] = (await primary.xpending(STREAM, 'workers', '-', '+', 1)) as Array<[string, string, number, number]>;
    await primary.xclaim(STREAM, 'workers', 'd', 0, oldest![0]);
    await primary.select(3);
    await primary.xadd('other-db', '1-1', 'f', 'v');
    await primary.select(0);
    await primary.del('str');
    await caughtUp(primary, replica);
    const ignore = NOT_REPLICATED_EXACTLY;
    assert.deepEqual(await snapshot(replica, [...keys, STREAM, 'live', 'counter'], ignore), await snapshot(primary, [...keys, STREAM, 'live', 'counter'], ignore));
    await replica.select(3);
    assert.deepEqual(await replica.xrange('other-db', '-', '+'), [['1-1', ['f', 'v']]]);
    await replica.select(0);
  });

  test('INFO replication, ROLE and CLIENT LIST show the replica; WAIT counts its acknowledgement', async () => {
    await primary.set('waited', 'x');
    assert.equal(await primary.call('WAIT', '1', '5000'), 1);
    // Two replicas are asked for and only one exists: WAIT answers 1 when its timeout passes.
    assert.equal(await primary.call('WAIT', '2', '50'), 1);
    const offset = await caughtUp(primary, replica);
    const repl = await info(primary, 'replication');
    assert.equal(field(repl, 'connected_slaves'), '1');
    assert.match(field(repl, 'slave0')!, new RegExp(`^ip=127\\.0\\.0\\.1,port=${redis.port},state=online,offset=\\d+,lag=\\d+$`));
    assert.equal(field(repl, 'repl_backlog_active'), '1');
    const role = (await primary.call('ROLE')) as [string, number, string[][]];
    assert.equal(role[0], 'master');
    assert.equal(role[1], offset);
    assert.deepEqual(role[2].map((r) => r.slice(0, 2)), [['127.0.0.1', String(redis.port)]]);
    assert.match(String(await primary.call('CLIENT', 'LIST', 'TYPE', 'replica')), / flags=S /);
    assert.equal(field(await info(replica, 'replication'), 'master_replid'), field(repl, 'master_replid'));
  });

  test("PUBLISH reaches the replica's subscribers (how Sentinels hear each other through a replica)", async () => {
    const subscriber = new Redis(redis.port, { lazyConnect: true });
    try {
      await subscriber.subscribe('__sentinel__:hello');
      const heard = new Promise<string>((resolve) => subscriber.once('message', (_channel: string, message: string) => resolve(message)));
      await primary.publish('__sentinel__:hello', '127.0.0.1,26379,abc,0,orders,127.0.0.1,6379,0');
      assert.equal(await heard, '127.0.0.1,26379,abc,0,orders,127.0.0.1,6379,0');
      await caughtUp(primary, replica);
    } finally {
      subscriber.disconnect();
    }
  });

  test('min-replicas-to-write refuses writes with NOREPLICAS while too few replicas are good', async () => {
    await primary.config('SET', 'min-replicas-to-write', '2');
    await assert.rejects(primary.set('refused', '1'), /^ReplyError: NOREPLICAS Not enough good replicas to write\.$/);
    assert.equal(await primary.get('refused'), null); // reads still run
    await primary.config('SET', 'min-replicas-to-write', '1');
    assert.equal(await primary.set('accepted', '1'), 'OK');
    await primary.config('SET', 'min-replicas-to-write', '0');
  });

  test('a cut link resumes with a partial resync (no full sync), from either side', async () => {
    const before = await info(primary, 'stats');
    await replica.call('CLIENT', 'KILL', 'TYPE', 'master');
    await primary.set('during-cut-1', 'a');
    await waitFor(async () => field(await info(primary, 'stats'), 'sync_partial_ok') !== field(before, 'sync_partial_ok'), 'a partial resync after CLIENT KILL TYPE master');
    await primary.call('CLIENT', 'KILL', 'TYPE', 'replica');
    await primary.xadd(STREAM, '*', 'n', 'during-cut-2');
    await waitFor(async () => Number(field(await info(primary, 'stats'), 'sync_partial_ok')) === Number(field(before, 'sync_partial_ok')) + 2, 'a partial resync after CLIENT KILL TYPE replica');
    await caughtUp(primary, replica);
    const after = await info(primary, 'stats');
    assert.equal(field(after, 'sync_full'), field(before, 'sync_full'), 'no full sync');
    assert.equal(await replica.get('during-cut-1'), 'a');
    assert.deepEqual(await replica.xrevrange(STREAM, '+', '-', 'COUNT', 1), await primary.xrevrange(STREAM, '+', '-', 'COUNT', 1));
  });
});

/** A raw replica connection: PSYNC, then reads (or not) what comes. */
function rawPsync(port: number, replid: string, offset: number): { lines: () => string; destroy: () => void; closed: () => boolean } {
  const socket = connectSocket(port, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  const arg = (a: string) => `$${a.length}\r\n${a}\r\n`;
  socket.write(`*3\r\n${arg('PSYNC')}${arg(replid)}${arg(String(offset))}`);
  return { lines: () => received, destroy: () => socket.destroy(), closed: () => closed };
}

describe('sluice server as a primary: PSYNC edge cases and bad input', () => {
  let sluice: SluiceServer;
  let client: Redis;
  before(async () => {
    sluice = await startSluiceServer(['--repl-diskless-sync-delay', '0']);
    client = new Redis(sluice.port, { lazyConnect: true });
  });
  after(async () => {
    client?.disconnect();
    if (sluice) await sluice.stop();
  });

  test('PSYNC with an unknown replid or an offset outside the backlog gets a full sync', async () => {
    await client.set('k', 'v');
    const first = rawPsync(sluice.port, '?', -1);
    await waitFor(() => /^\+FULLRESYNC [0-9a-f]{40} \d+\r\n\$\d+\r\n/.test(first.lines()), 'a full sync');
    const replid = /^\+FULLRESYNC ([0-9a-f]{40})/.exec(first.lines())![1]!;
    await client.set('k', 'w');
    const offset = Number(field(await info(client, 'replication'), 'master_repl_offset'));
    // Inside the backlog: continued.
    const inside = rawPsync(sluice.port, replid, offset + 1);
    await waitFor(() => inside.lines().startsWith(`+CONTINUE\r\n`), '+CONTINUE');
    // Another history, or past the end: a full sync, counted as a failed partial one.
    const before = Number(field(await info(client, 'stats'), 'sync_partial_err'));
    const other = rawPsync(sluice.port, 'f'.repeat(40), 1);
    const beyond = rawPsync(sluice.port, replid, offset + 1000);
    await waitFor(() => other.lines().startsWith('+FULLRESYNC') && beyond.lines().startsWith('+FULLRESYNC'), 'two full syncs');
    assert.equal(Number(field(await info(client, 'stats'), 'sync_partial_err')), before + 2);
    for (const r of [first, inside, other, beyond]) r.destroy();
    await waitFor(async () => field(await info(client, 'replication'), 'connected_slaves') === '0', 'the replicas gone');
  });

  test('REPLCONF, PSYNC and WAIT reject bad arguments in Redis words', async () => {
    await assert.rejects(client.call('REPLCONF', 'foo', 'bar'), /^ReplyError: ERR Unrecognized REPLCONF option: foo$/);
    await assert.rejects(client.call('REPLCONF', 'listening-port', 'abc'), /^ReplyError: ERR value is not an integer or out of range$/);
    await assert.rejects(client.call('REPLCONF', 'capa'), /^ReplyError: ERR syntax error$/);
    await assert.rejects(client.call('REPLCONF', 'ip-address', 'x'.repeat(300)), /^ReplyError: ERR REPLCONF ip-address provided by replica instance is too long: 300 bytes$/);
    assert.equal(await client.call('REPLCONF', 'listening-port', '1234', 'capa', 'eof'), 'OK');
    await assert.rejects(client.call('PSYNC', 'a', 'b'), /^ReplyError: ERR value is not an integer or out of range$/);
    await assert.rejects(client.call('WAIT', '0', 'abc'), /^ReplyError: ERR timeout is not an integer or out of range$/);
    await assert.rejects(client.call('WAIT', '0', '-1'), /^ReplyError: ERR timeout is negative$/);
    await assert.rejects(client.call('WAIT', 'abc', '0'), /^ReplyError: ERR value is not an integer or out of range$/);
    assert.equal(await client.call('WAIT', '0', '0'), 0);
    assert.equal(await client.ping(), 'PONG', 'the connection carries on');
  });

  test('a replica that never reads is cut at its output buffer limit; the primary keeps serving', async () => {
    await client.config('SET', 'client-output-buffer-limit', 'slave 1mb 0 0');
    const stuck = connectSocket(sluice.port, '127.0.0.1');
    stuck.on('error', () => undefined);
    stuck.pause(); // reads nothing, ever (so it never sees its own close either)
    stuck.write('*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n');
    await waitFor(async () => field(await info(client, 'replication'), 'connected_slaves') === '1', 'the replica attached');
    const big = 'x'.repeat(64 * 1024);
    let attached = true;
    for (let i = 0; i < 400 && attached; i++) {
      await client.set(`big-${i % 10}`, big);
      if (i % 20 === 19) attached = field(await info(client, 'replication'), 'connected_slaves') === '1';
    }
    assert.equal(attached, false, 'the replica was disconnected at its limit');
    stuck.destroy();
    assert.equal(await client.set('after', 'ok'), 'OK');
    await client.config('SET', 'client-output-buffer-limit', 'slave 268435456 67108864 60');
  });

  test('the embedded engine has no network to replicate over: SYNC says so, ROLE and WAIT answer', async () => {
    const db = await open();
    const session = db.session();
    await assert.rejects(session.call('PSYNC', '?', '-1'), /replicates over the network only/);
    assert.deepEqual(await session.call('ROLE'), ['master', 0, []]);
    assert.equal(await session.call('WAIT', '0', '0'), 0);
    await db.close();
  });
});
