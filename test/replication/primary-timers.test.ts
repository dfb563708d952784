// The primary's replication timers and the end of a diskless transfer, as Redis 7.0's
// replication.c: repl-diskless-sync-delay holds a diskless full sync so that replicas arriving
// meanwhile share it (repl-diskless-sync-max-replicas starts it early); repl-backlog-ttl frees
// the backlog of a primary left without replicas (a new replid), never a replica's; and after a
// diskless transfer the stream waits for the replica's first ACK, so a redis-server replica
// finds the RDB's EOF mark at the end of what it read (it hung when writes followed the mark).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { installed, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { caughtUp, field, info } from './helpers.js';
import { waitFor } from '../support/wait.js';

const slaveStates = (replication: string): string[] => [...replication.matchAll(/^slave\d+:.*state=([a-z_]+)/gm)].map((m) => m[1]!);

describe('replication timers of a sluice primary', () => {
  const servers: SluiceServer[] = [];
  const redises: RedisServer[] = [];
  const clients: Redis[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const c of clients) c.disconnect();
    for (const s of servers.reverse()) await s.stop();
    for (const r of redises) await stopChild(r.child);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const start = async (args: string[] = []): Promise<Redis> => {
    const s = await startSluiceServer(args);
    servers.push(s);
    const c = new Redis(s.port, { lazyConnect: true });
    clients.push(c);
    return c;
  };
  const portOf = (c: Redis): number => c.options.port!;

  test('repl-diskless-sync-delay holds the full sync; replicas arriving meanwhile share it', async () => {
    const primary = await start(['--repl-diskless-sync-delay', '3600']);
    await primary.set('before', '1');
    const a = await start(['--replicaof', `127.0.0.1 ${portOf(primary)}`]);
    await waitFor(async () => slaveStates(await info(primary)).join() === 'wait_bgsave', 'the replica waiting for the delayed sync');
    // Written while it waits: in the snapshot it gets.
    await primary.set('while-waiting', '2');
    assert.equal(field(await info(a), 'master_link_status'), 'down');
    assert.equal(await a.exists('before'), 0);
    // The second replica makes repl-diskless-sync-max-replicas: the transfer starts for both.
    await primary.config('SET', 'repl-diskless-sync-max-replicas', '2');
    const b = await start(['--replicaof', `127.0.0.1 ${portOf(primary)}`]);
    await caughtUp(primary, a);
    await caughtUp(primary, b);
    assert.deepEqual(slaveStates(await info(primary)), ['online', 'online']);
    assert.equal(field(await info(primary, 'stats'), 'sync_full'), '2');
    for (const r of [a, b]) assert.deepEqual(await r.mget('before', 'while-waiting'), ['1', '2']);
    // A delay of 1 s: a lone replica is served once it is over.
    await primary.config('SET', 'repl-diskless-sync-max-replicas', '0');
    await primary.config('SET', 'repl-diskless-sync-delay', '1');
    const c = await start(['--replicaof', `127.0.0.1 ${portOf(primary)}`]);
    await primary.set('after', '3');
    await caughtUp(primary, c);
    assert.deepEqual(await c.mget('before', 'while-waiting', 'after'), ['1', '2', '3']);
  });

  test('repl-backlog-ttl frees the backlog of a primary without replicas (new replid), never a replica\'s', async () => {
    const primary = await start(['--repl-diskless-sync-delay', '0']);
    await primary.config('SET', 'repl-backlog-ttl', '1');
    const replica = await start(['--replicaof', `127.0.0.1 ${portOf(primary)}`]);
    await replica.config('SET', 'repl-backlog-ttl', '1');
    await primary.set('k', 'v');
    await caughtUp(primary, replica);
    const before = await info(primary);
    assert.equal(field(before, 'repl_backlog_active'), '1');
    // A sub-replica attaches to the replica and leaves: the replica has no replicas either.
    const sub = await start(['--replicaof', `127.0.0.1 ${portOf(replica)}`]);
    await caughtUp(replica, sub);
    await sub.call('REPLICAOF', 'NO', 'ONE');
    // The primary's only replica leaves too.
    await replica.call('REPLICAOF', '127.0.0.1', String(portOf(sub)));
    await waitFor(async () => field(await info(primary), 'repl_backlog_active') === '0', 'the primary freeing its backlog');
    const freed = await info(primary);
    assert.notEqual(field(freed, 'master_replid'), field(before, 'master_replid'));
    assert.equal(field(freed, 'master_replid2'), '0'.repeat(40));
    assert.equal(field(freed, 'repl_backlog_histlen'), '0');
    assert.equal(field(await info(primary, 'memory'), 'mem_replication_backlog'), '0');
    // The former replica (now following sub) kept its backlog though it, too, went without replicas.
    const r = await info(replica);
    assert.equal(field(r, 'role'), 'slave');
    assert.equal(field(r, 'repl_backlog_active'), '1');
    // It follows the primary again: its PSYNC names a real history, and with no backlog to
    // continue from it is refused (a full sync), counted in sync_partial_err as syncCommand does.
    const refused = Number(field(await info(primary, 'stats'), 'sync_partial_err'));
    await replica.call('REPLICAOF', '127.0.0.1', String(portOf(primary)));
    await caughtUp(primary, replica);
    assert.equal(Number(field(await info(primary, 'stats'), 'sync_partial_err')), refused + 1);
    // A replica attaching afterwards gets a full sync of a new history.
    const again = await start(['--replicaof', `127.0.0.1 ${portOf(primary)}`]);
    await caughtUp(primary, again);
    assert.equal(await again.get('k'), 'v');
    assert.equal(field(await info(primary), 'repl_backlog_active'), '1');
  });

  test('after a diskless transfer to redis-server, writes that follow at once do not hide the EOF mark', { skip: !installed('redis-server') && 'redis-server is not installed' }, async () => {
    const primary = await start(['--repl-diskless-sync-delay', '0']);
    for (let i = 0; i < 100_000; i += 5000) {
      const p = primary.pipeline();
      for (let k = i; k < i + 5000; k++) p.xadd('s', '*', 'n', String(k), 'pad', 'x'.repeat(40));
      await p.exec();
    }
    const dir = mkdtempSync(join(tmpdir(), 'sluice-repl-eof-'));
    dirs.push(dir);
    const redis = await startRedisServer(['--dir', dir]);
    redises.push(redis);
    const replica = new Redis(redis.port, { lazyConnect: true });
    clients.push(replica);
    await replica.call('REPLICAOF', '127.0.0.1', String(portOf(primary)));
    // Writes all through the transfer and after it.
    let n = 0;
    let up = false;
    while (!up) {
      await primary.xadd('s', '*', 'n', `live-${n++}`);
      up = field(await info(replica), 'master_link_status') === 'up';
      if (n > 100_000) break;
    }
    assert.ok(up, 'the redis-server replica finished its sync');
    await caughtUp(primary, replica);
    assert.equal(await replica.xlen('s'), await primary.xlen('s'));
  });
});
