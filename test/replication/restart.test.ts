// A replica restarted keeps its replication id and offset, as Redis 7.0: the dump.rdb it saves
// at shutdown carries the repl-stream-db, repl-id and repl-offset AUX fields, and started again
// with --replicaof it loads them and continues with PSYNC (the primary answers +CONTINUE, no
// full sync), whether the primary is another sluice server or redis-server; a primary restarted
// with its dump.rdb keeps the old id as replid2, so its replicas continue too. Also: the RDB a
// replica sends its own replica in a full sync says which db the stream is in, so a chain
// whose stream is in db 3 stays there.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { CLI_MAIN, freePort, installed, spawnUntil, startRedisServer, startSluiceServer, stopChild, type RedisServer, type SluiceServer } from '../support/processes.js';
import { caughtUp, field, info } from './helpers.js';
import { waitFor } from '../support/wait.js';

const auxOf = (rdb: Buffer, name: string): string | undefined => {
  // An AUX field: 0xFA, then the name and the value as length-prefixed strings (short ones here).
  const at = rdb.indexOf(Buffer.concat([Buffer.from([0xfa, name.length]), Buffer.from(name)]));
  if (at < 0) return undefined;
  const v = at + 2 + name.length;
  const len = rdb[v]!;
  if ((len & 0xc0) === 0) return rdb.subarray(v + 1, v + 1 + len).toString('latin1');
  if (len === 0xc0) return String(rdb.readInt8(v + 1));
  if (len === 0xc1) return String(rdb.readInt16LE(v + 1));
  if (len === 0xc2) return String(rdb.readInt32LE(v + 1));
  return undefined;
};

/** What a describe block starts (directories, processes, clients), cleaned up after it. */
function cleanedUpAfter(): { dirs: string[]; stops: Array<() => Promise<void>>; clients: Redis[] } {
  const held = { dirs: [] as string[], stops: [] as Array<() => Promise<void>>, clients: [] as Redis[] };
  after(async () => {
    for (const c of held.clients) c.disconnect();
    for (const stop of held.stops.reverse()) await stop();
    for (const d of held.dirs) rmSync(d, { recursive: true, force: true });
  });
  return held;
}

const primaries: Array<{ name: string; available: boolean; start: (dir: string) => Promise<SluiceServer | RedisServer> }> = [
  { name: 'sluice server', available: true, start: () => startSluiceServer(['--repl-diskless-sync-delay', '0']) },
  {
    name: 'redis-server 7.0',
    available: installed('redis-server'),
    start: (dir) => startRedisServer(['--dir', dir, '--repl-diskless-sync-delay', '0']),
  },
];

for (const kind of primaries) {
  describe(`a sluice replica of ${kind.name} restarted`, { skip: !kind.available && 'redis-server is not installed' }, () => {
    const { dirs, stops, clients } = cleanedUpAfter();
    const tmp = (): string => {
      const d = mkdtempSync(join(tmpdir(), 'sluice-repl-restart-'));
      dirs.push(d);
      return d;
    };
    const connect = (port: number): Redis => {
      const c = new Redis(port, { lazyConnect: true });
      clients.push(c);
      return c;
    };

    test('continues with a partial resync from the dump.rdb its shutdown saved; nothing missing', async () => {
      const primaryServer = await kind.start(tmp());
      stops.push(() => stopChild(primaryServer.child));
      const primary = connect(primaryServer.port);
      const replicaDir = tmp();
      const replicaArgs = ['--replicaof', `127.0.0.1 ${primaryServer.port}`, '--dir', replicaDir, '--appendonly', 'no'];
      let replica = await startSluiceServer(replicaArgs);
      let replicaClient = connect(replica.port);
      // Synced first: writes made before the replica's PSYNC reach it inside the RDB, whose
      // repl-stream-db is then 0 (no SELECT in the stream yet), not 2 as this test needs.
      await waitFor(async () => field(await info(replicaClient, 'replication'), 'master_link_status') === 'up', 'the replica to finish its first sync');
      // The stream of the history is in db 2 when the replica stops.
      await primary.xadd('orders', '*', 'n', '0');
      await primary.select(2);
      for (let i = 1; i <= 50; i++) await primary.xadd('orders', '*', 'n', String(i));
      const offset = await caughtUp(primary, replicaClient);
      const replid = field(await info(primary), 'master_replid')!;
      // Save points configured: SIGTERM saves dump.rdb first, as Redis's prepareForShutdown.
      await replicaClient.config('SET', 'save', '3600 1');
      replicaClient.disconnect();
      await replica.stop('SIGTERM');
      const rdb = readFileSync(join(replicaDir, 'dump.rdb'));
      assert.equal(auxOf(rdb, 'repl-id'), replid);
      assert.equal(auxOf(rdb, 'repl-offset'), String(offset));
      assert.equal(auxOf(rdb, 'repl-stream-db'), '2');

      // Written while the replica is down: in the same db (no SELECT in the stream), and in another.
      for (let i = 51; i <= 80; i++) await primary.xadd('orders', '*', 'n', String(i));
      await primary.select(0);
      await primary.set('while-down', 'yes');
      const stats = await info(primary, 'stats');

      replica = await startSluiceServer(replicaArgs);
      stops.push(() => replica.stop());
      replicaClient = connect(replica.port);
      await caughtUp(primary, replicaClient);
      const after = await info(primary, 'stats');
      assert.equal(Number(field(after, 'sync_partial_ok')), Number(field(stats, 'sync_partial_ok')) + 1, 'a partial resync');
      assert.equal(field(after, 'sync_full'), field(stats, 'sync_full'), 'no full sync');
      assert.equal(field(await info(replicaClient), 'master_replid'), replid);
      assert.equal(await replicaClient.get('while-down'), 'yes');
      await replicaClient.select(2);
      await primary.select(2);
      assert.deepEqual(await replicaClient.xrange('orders', '-', '+'), await primary.xrange('orders', '-', '+'));
      assert.equal(await replicaClient.xlen('orders'), 80);
      await replicaClient.select(0);
      assert.equal(await replicaClient.xlen('orders'), 1);
      await primary.select(0);
    });
  });
}

describe('a sluice primary restarted with its dump.rdb', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  const { dirs, stops, clients } = cleanedUpAfter();

  /**
   * A sluice primary with a redis-server replica, `kept` written and `expiring` keys set to
   * expire while it is down (`extra`: more flags), stopped with SIGTERM (which saves) and started again.
   */
  async function restartAfterExpiry(expiring: number, extra: string[]): Promise<{ primary: Redis; replica: Redis; fileOffset: number; oldId: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-repl-restart-'));
    const replicaDir = mkdtempSync(join(tmpdir(), 'sluice-repl-restart-'));
    dirs.push(dir, replicaDir);
    const port = await freePort();
    const args = [CLI_MAIN, 'server', '--port', String(port), '--dir', dir, '--appendonly', 'no', '--repl-diskless-sync-delay', '0', ...extra];
    let primaryServer = await spawnUntil(process.execPath, args, /ready on /);
    const redis = await startRedisServer(['--dir', replicaDir, '--replicaof', '127.0.0.1', String(port)]);
    stops.push(() => stopChild(redis.child));
    const primary = new Redis(port, { lazyConnect: true, retryStrategy: () => 50 });
    const replica = new Redis(redis.port, { lazyConnect: true });
    clients.push(primary, replica);
    await primary.set('kept', '1');
    const batch = primary.pipeline();
    for (let i = 0; i < expiring; i++) batch.set(`gone:${i}`, 'x', 'PX', 800);
    await batch.exec();
    const fileOffset = await caughtUp(primary, replica);
    const oldId = field(await info(primary), 'master_replid')!;
    await primary.config('SET', 'save', '3600 1');
    await primaryServer.stop('SIGTERM');
    if (expiring > 0) await new Promise((r) => setTimeout(r, 1000));
    primaryServer = await spawnUntil(process.execPath, args, /ready on /);
    stops.push(() => primaryServer.stop());
    await caughtUp(primary, replica);
    return { primary, replica, fileOffset, oldId };
  }

  test('keeps its old history as replid2: its redis-server replica continues with a partial resync', async () => {
    const { primary, replica, oldId } = await restartAfterExpiry(0, []);
    await primary.set('after', '2');
    await caughtUp(primary, replica);
    const r = await info(primary);
    assert.equal(field(r, 'master_replid2'), oldId);
    const stats = await info(primary, 'stats');
    assert.equal(field(stats, 'sync_partial_ok'), '1');
    assert.equal(field(stats, 'sync_full'), '0');
    assert.deepEqual(await replica.mget('kept', 'after'), ['1', '2']);
  });

  test('its replica continues with a partial resync and gets the expired keys as DELs', async () => {
    const { primary, replica, fileOffset } = await restartAfterExpiry(20, []);
    const stats = await info(primary, 'stats');
    assert.equal(field(stats, 'sync_partial_ok'), '1');
    assert.equal(field(stats, 'sync_full'), '0');
    // The DELs follow the file's offset in the new history.
    assert.ok(Number(field(await info(primary), 'master_repl_offset')) > fileOffset);
    // A replica never expires keys itself: only the DELs could have removed them.
    assert.equal(await replica.dbsize(), 1);
    assert.equal(await replica.get('kept'), '1');
  });

  test('DELs past the backlog\'s size: the replica takes a full sync instead', async () => {
    const { primary, replica } = await restartAfterExpiry(2048, ['--repl-backlog-size', '16384']);
    const stats = await info(primary, 'stats');
    assert.equal(field(stats, 'sync_partial_ok'), '0');
    assert.equal(field(stats, 'sync_full'), '1');
    assert.equal(await replica.dbsize(), 1);
  });
});

describe('a chain a -> b -> c whose primary a restarts', () => {
  const { dirs, stops, clients } = cleanedUpAfter();

  /** a (restartable, `aArgs` more flags), b replica of a, c replica of b; `old` written and replicated down the chain. */
  async function chain(aArgs: string[]): Promise<{ restartA: (signal: NodeJS.Signals) => Promise<void>; a: Redis; b: Redis; c: Redis }> {
    const port = await freePort();
    const args = [CLI_MAIN, 'server', '--port', String(port), '--repl-diskless-sync-delay', '0', ...aArgs];
    let primaryServer = await spawnUntil(process.execPath, args, /ready on /);
    stops.push(() => primaryServer.stop());
    const bServer = await startSluiceServer(['--repl-diskless-sync-delay', '0', '--replicaof', `127.0.0.1 ${port}`]);
    stops.push(() => bServer.stop());
    const cServer = await startSluiceServer(['--replicaof', `127.0.0.1 ${bServer.port}`]);
    stops.push(() => cServer.stop());
    const a = new Redis(port, { lazyConnect: true, retryStrategy: () => 50 });
    const b = new Redis(bServer.port, { lazyConnect: true });
    const c = new Redis(cServer.port, { lazyConnect: true });
    clients.push(a, b, c);
    await a.set('old', '1');
    await caughtUp(a, b);
    await caughtUp(b, c);
    const restartA = async (signal: NodeJS.Signals): Promise<void> => {
      await primaryServer.stop(signal);
      primaryServer = await spawnUntil(process.execPath, args, /ready on /);
    };
    return { restartA, a, b, c };
  }

  test('from its dump.rdb: b, told the new id by +CONTINUE, drops c, which continues under it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-repl-restart-'));
    dirs.push(dir);
    const { restartA, a, b, c } = await chain(['--dir', dir, '--appendonly', 'no']);
    await a.config('SET', 'save', '3600 1');
    await restartA('SIGTERM');
    await a.set('after', '2');
    const newId = field(await info(a), 'master_replid');
    await caughtUp(a, b);
    // c learns the new id only by reconnecting: it continues from b's backlog.
    await waitFor(async () => field(await info(c), 'master_replid') === newId, 'c to take the new replication id');
    await caughtUp(b, c);
    assert.equal(field(await info(b, 'stats'), 'sync_partial_ok'), '1', 'c continued with a partial resync');
    assert.equal(field(await info(b, 'stats'), 'sync_full'), '1', 'its first sync only');
    assert.equal(await c.get('after'), '2');
  });

  test('without its data: b syncs in full and so does c, neither keeps the old dataset', async () => {
    const { restartA, a, b, c } = await chain([]);
    // A new history with none of the old data: b's PSYNC is refused, it syncs in full.
    await restartA('SIGKILL');
    await a.set('new', '2');
    await caughtUp(a, b);
    // Read once b is attached: a primary's first replica starts its history.
    const newId = field(await info(a), 'master_replid');
    await waitFor(async () => field(await info(c), 'master_replid') === newId, 'c to follow the new history');
    await caughtUp(b, c);
    assert.equal(field(await info(b, 'stats'), 'sync_full'), '2', 'c synced in full again');
    assert.deepEqual(await c.mget('old', 'new'), [null, '2']);
    assert.equal(await c.dbsize(), 1);
  });
});

describe('a primary and a replica without a replication history save no replication AUX fields', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('SAVE on a primary that never had a replica (no backlog), and on a replica whose link never came up', async () => {
    for (const args of [[], ['--replicaof', '127.0.0.1 1']]) {
      const dir = mkdtempSync(join(tmpdir(), 'sluice-repl-restart-'));
      dirs.push(dir);
      const server = await startSluiceServer(['--dir', dir, '--appendonly', 'no', ...args]);
      const client = new Redis(server.port, { lazyConnect: true });
      try {
        assert.equal(await client.save(), 'OK');
        const rdb = readFileSync(join(dir, 'dump.rdb'));
        assert.equal(auxOf(rdb, 'redis-ver'), '7.0.15');
        assert.equal(auxOf(rdb, 'repl-id'), undefined);
        assert.equal(auxOf(rdb, 'repl-offset'), undefined);
      } finally {
        client.disconnect();
        await server.stop();
      }
    }
  });
});

describe('a sub-replica full-syncing from a replica whose stream is in db 3', () => {
  let servers: SluiceServer[] = [];
  const clients: Redis[] = [];
  after(async () => {
    for (const c of clients) c.disconnect();
    for (const s of servers.reverse()) await s.stop();
  });

  test('applies the stream in db 3 (repl-stream-db of the RDB it was sent)', async () => {
    const a = await startSluiceServer(['--repl-diskless-sync-delay', '0']);
    servers = [a];
    const primary = new Redis(a.port, { lazyConnect: true });
    clients.push(primary);
    const b = await startSluiceServer(['--repl-diskless-sync-delay', '0', '--replicaof', `127.0.0.1 ${a.port}`]);
    servers.push(b);
    const replica = new Redis(b.port, { lazyConnect: true });
    clients.push(replica);
    await primary.select(3);
    await primary.set('k', '1');
    await caughtUp(primary, replica);
    // Attached now, the sub-replica's stream starts where b's is: in db 3, without a SELECT.
    const c = await startSluiceServer(['--replicaof', `127.0.0.1 ${b.port}`]);
    servers.push(c);
    const sub = new Redis(c.port, { lazyConnect: true });
    clients.push(sub);
    await caughtUp(replica, sub);
    await primary.set('after', '2');
    await caughtUp(primary, replica);
    await caughtUp(replica, sub);
    await sub.select(3);
    await waitFor(async () => (await sub.get('after')) === '2', 'the write in db 3 on the sub-replica');
    await sub.select(0);
    assert.equal(await sub.exists('after'), 0);
  });
});
