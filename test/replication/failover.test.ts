// FAILOVER between real processes, as Redis's tests/integration/failover.tcl: sluice servers
// among themselves (to a named replica, to any replica, ABORT, TIMEOUT, FORCE, the errors), and
// mixed with redis-server 7.0 both ways (a sluice primary handing over to a redis-server replica,
// which hands back to sluice), plus a target that refuses the PSYNC. A replica that must not
// catch up is stopped with SIGSTOP, as the Tcl tests do. What is checked each time: every write
// made before FAILOVER is on the new primary, the old primary is its replica with equal offsets,
// a write sent during the failover is refused (READONLY) rather than lost, a reader blocked on
// the old primary is unblocked with Redis's UNBLOCKED error, and the new primary
// took the old one back with a partial resync.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { installed, startRedisServer, startSluiceServer, stopChild } from '../support/processes.js';
import { populate, snapshot } from '../support/rdb-fixtures.js';
import { caughtUp, field, info, NOT_REPLICATED_EXACTLY } from './helpers.js';
import { waitFor, within } from '../support/wait.js';

type Kind = 'sluice' | 'redis';

interface Node {
  readonly kind: Kind;
  readonly port: number;
  readonly child: ChildProcess;
  readonly client: Redis;
  stop(): Promise<void>;
}

async function startNode(kind: Kind, replicaOf?: number): Promise<Node> {
  if (kind === 'sluice') {
    const s = await startSluiceServer(replicaOf === undefined ? [] : ['--replicaof', `127.0.0.1 ${replicaOf}`]);
    return { kind, port: s.port, child: s.child, client: new Redis(s.port, { lazyConnect: true }), stop: () => s.stop() };
  }
  // A replica's full sync writes dump.rdb: into a directory of its own.
  const dir = mkdtempSync(join(tmpdir(), 'sluice-failover-'));
  const args = ['--dir', dir, '--repl-diskless-sync-delay', '0', ...(replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)])];
  const r = await startRedisServer(args);
  const stop = async (): Promise<void> => {
    await stopChild(r.child);
    rmSync(dir, { recursive: true, force: true });
  };
  return { kind, port: r.port, child: r.child, client: new Redis(r.port, { lazyConnect: true }), stop };
}

async function stopNodes(nodes: Array<Node | undefined>): Promise<void> {
  for (const n of nodes) {
    if (n === undefined) continue;
    n.child.kill('SIGCONT');
    n.client.disconnect();
    await n.stop();
  }
}

const state = async (n: Node): Promise<string | undefined> => field(await info(n.client), 'master_failover_state');
const stat = async (n: Node, name: string): Promise<number> => Number(field(await info(n.client, 'stats'), name));
const roleOf = async (n: Node): Promise<string> => String(((await n.client.call('ROLE')) as unknown[])[0]);

/** Waits until `replica` follows `primary` with its link up. */
async function follows(replica: Node, primary: Node): Promise<void> {
  await waitFor(async () => {
    const r = await info(replica.client);
    return field(r, 'role') === 'slave' && field(r, 'master_port') === String(primary.port) && field(r, 'master_link_status') === 'up';
  }, `:${replica.port} to follow :${primary.port}`);
}

/** Every node holds the same data for `keys` (XINFO's fields no replica reproduces aside). */
async function sameData(keys: string[], ...nodes: Node[]): Promise<void> {
  const expected = await snapshot(nodes[0]!.client, keys, NOT_REPLICATED_EXACTLY);
  for (const n of nodes.slice(1)) assert.deepEqual(await snapshot(n.client, keys, NOT_REPLICATED_EXACTLY), expected, `the data on :${n.port}`);
}

/**
 * A FAILOVER TO `target` from `from`, with writes before it and one sent while it runs: the
 * writes are on the target, the write during it is refused, the roles are swapped, the offsets
 * equal, and the target took `from` back with a partial resync.
 */
async function failOverTo(from: Node, target: Node, keys: string[]): Promise<void> {
  await caughtUp(from.client, target.client);
  const partial = await stat(target, 'sync_partial_ok');
  const full = await stat(target, 'sync_full');
  const other = from.client.duplicate();
  const reader = from.client.duplicate();
  // A reader blocked on the old primary is told it changed role rather than left waiting.
  const read = reader.call('XREAD', 'BLOCK', '0', 'STREAMS', 'no-such-stream', '$').then(
    (reply) => reply,
    (err: unknown) => String(err),
  );
  await waitFor(async () => field(await info(from.client, 'clients'), 'blocked_clients') === '1', 'the reader to block');
  try {
    assert.equal(await from.client.call('FAILOVER', 'TO', '127.0.0.1', String(target.port)), 'OK');
    // Sent after the FAILOVER's OK: paused, then refused once `from` is a replica (or refused at once).
    await assert.rejects(within(other.set('during', 'x'), 'the write sent during the failover to be answered'), /^ReplyError: READONLY /);
    assert.equal(await within(read, 'the blocked reader to be answered'), 'ReplyError: UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)');
  } finally {
    other.disconnect();
    reader.disconnect();
  }
  await waitFor(async () => (await state(from)) === 'no-failover', 'the failover to end');
  assert.equal(await roleOf(target), 'master');
  assert.equal(await roleOf(from), 'slave');
  await follows(from, target);
  const offset = await caughtUp(target.client, from.client);
  assert.equal(Number(field(await info(from.client), 'slave_repl_offset')), offset);
  assert.equal(await target.client.exists('during'), 0);
  await sameData(keys, target, from);
  assert.equal(await stat(target, 'sync_partial_ok'), partial + 1, 'the old primary continued with a partial resync');
  assert.equal(await stat(target, 'sync_full'), full);
}

describe('FAILOVER between sluice servers', () => {
  let p: Node;
  let r1: Node;
  let r2: Node;
  let keys: string[];

  before(async () => {
    p = await startNode('sluice');
    r1 = await startNode('sluice', p.port);
    r2 = await startNode('sluice', p.port);
    keys = await populate(p.client);
    await caughtUp(p.client, r1.client);
    await caughtUp(p.client, r2.client);
  });

  after(() => stopNodes([r1, r2, p]));

  test('the errors: on a replica, an unknown target, FORCE without TIMEOUT and target', async () => {
    await assert.rejects(r1.client.call('FAILOVER', 'TO', '127.0.0.1', String(r1.port)), /^ReplyError: ERR FAILOVER is not valid when server is a replica\.$/);
    await assert.rejects(p.client.call('FAILOVER', 'TO', '127.0.0.1', '1'), /^ReplyError: ERR FAILOVER target HOST and PORT is not a replica\.$/);
    await assert.rejects(p.client.call('FAILOVER', 'TO', 'localhost', String(r1.port)), /^ReplyError: ERR FAILOVER target HOST and PORT is not a replica\.$/);
    await assert.rejects(p.client.call('FAILOVER', 'TO', '127.0.0.1', String(r1.port), 'FORCE'), /^ReplyError: ERR FAILOVER with force option requires both a timeout and target HOST and IP\.$/);
    await assert.rejects(p.client.call('FAILOVER', 'FORCE', 'TIMEOUT', '100'), /^ReplyError: ERR FAILOVER with force option requires both a timeout and target HOST and IP\.$/);
    await assert.rejects(p.client.call('FAILOVER', 'ABORT'), /^ReplyError: ERR No failover in progress\.$/);
    await assert.rejects(r1.client.call('PSYNC', '0'.repeat(40), '1', 'FAILOVER'), /^ReplyError: ERR PSYNC FAILOVER replid must match my replid\.$/);
    assert.equal(await state(p), 'no-failover');
  });

  test('to a named replica: the writes before it are there, the old primary follows it, offsets equal', async () => {
    keys.push('before');
    await p.client.set('before', 'failover');
    await failOverTo(p, r1, keys);
    // r2 followed p and still does: it resynchronises from p, now a replica itself.
    await follows(r2, p);
    await caughtUp(p.client, r2.client);
    await sameData(keys, r1, p, r2);
  });

  test('to any replica: the one that acknowledged everything is chosen', async () => {
    // r1 is the primary now, with p its only replica.
    keys.push('case');
    await r1.client.set('case', '1');
    await caughtUp(r1.client, p.client);
    assert.equal(await r1.client.call('FAILOVER'), 'OK');
    await waitFor(async () => (await state(r1)) === 'no-failover', 'the failover to end');
    assert.equal(await roleOf(p), 'master');
    assert.equal(await roleOf(r1), 'slave');
    await follows(r1, p);
    await follows(r2, p);
    await caughtUp(p.client, r1.client);
    await caughtUp(p.client, r2.client);
    await sameData(keys, p, r1, r2);
  });

  test('ABORT: writes wait while it waits for the replica (reads are served), then go ahead; REPLICAOF and SYNC are refused meanwhile', async () => {
    const partial = await stat(p, 'sync_partial_ok');
    r1.child.kill('SIGSTOP');
    const writer = p.client.duplicate();
    try {
      await p.client.set('case', '2');
      assert.equal(await p.client.call('FAILOVER', 'TO', '127.0.0.1', String(r1.port), 'TIMEOUT', '60000'), 'OK');
      assert.equal(await state(p), 'waiting-for-sync');
      assert.equal(await p.client.get('case'), '2');
      const paused = writer.set('paused', 'yes');
      await waitFor(async () => field(await info(p.client, 'clients'), 'blocked_clients') === '1', 'the write to be paused');
      await assert.rejects(p.client.call('FAILOVER'), /^ReplyError: ERR FAILOVER already in progress\.$/);
      await assert.rejects(p.client.call('REPLICAOF', 'NO', 'ONE'), /^ReplyError: ERR REPLICAOF not allowed while failing over\.$/);
      await assert.rejects(p.client.call('PSYNC', '?', '-1'), /^ReplyError: NOMASTERLINK Can't SYNC while failing over$/);
      assert.equal(await p.client.exists('paused'), 0);
      assert.equal(await p.client.call('FAILOVER', 'ABORT'), 'OK');
      assert.equal(await state(p), 'no-failover');
      assert.equal(await within(paused, 'the paused write to go ahead'), 'OK');
      assert.equal(await p.client.get('paused'), 'yes');
    } finally {
      writer.disconnect();
      r1.child.kill('SIGCONT');
    }
    keys.push('paused');
    assert.equal(await roleOf(p), 'master');
    await caughtUp(p.client, r1.client);
    await caughtUp(p.client, r2.client);
    await sameData(keys, p, r1, r2);
    assert.equal(await stat(p, 'sync_partial_ok'), partial, 'nobody had to resynchronise');
  });

  test('TIMEOUT: a replica that never catches up ends the failover, the primary stays', async () => {
    r1.child.kill('SIGSTOP');
    try {
      await p.client.set('case', '3');
      assert.equal(await p.client.call('FAILOVER', 'TO', '127.0.0.1', String(r1.port), 'TIMEOUT', '300'), 'OK');
      await waitFor(async () => (await state(p)) === 'no-failover', 'the failover to time out');
      assert.equal(await roleOf(p), 'master');
      assert.equal(await p.client.set('after-timeout', 'ok'), 'OK');
    } finally {
      r1.child.kill('SIGCONT');
    }
    keys.push('after-timeout');
    await caughtUp(p.client, r1.client);
    await sameData(keys, p, r1);
  });

  test('FORCE: after the timeout it fails over to the replica anyway', async () => {
    r1.child.kill('SIGSTOP');
    try {
      await p.client.set('case', '4');
      assert.equal(await p.client.call('FAILOVER', 'TO', '127.0.0.1', String(r1.port), 'TIMEOUT', '100', 'FORCE'), 'OK');
      await waitFor(async () => (await state(p)) === 'failover-in-progress', 'the forced failover to start');
      // Never two primaries: p is a replica before r1 has taken over.
      assert.equal(await roleOf(p), 'slave');
      assert.equal(await roleOf(r2), 'slave');
    } finally {
      r1.child.kill('SIGCONT');
    }
    await waitFor(async () => (await state(p)) === 'no-failover', 'the forced failover to end');
    assert.equal(await roleOf(r1), 'master');
    await follows(p, r1);
    await caughtUp(r1.client, p.client);
    await sameData(keys, r1, p);
  });
});

describe('FAILOVER between sluice server and redis-server 7.0, both ways', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  let s: Node;
  let x: Node;
  let keys: string[];

  before(async () => {
    s = await startNode('sluice');
    keys = await populate(s.client);
    x = await startNode('redis', s.port);
    await caughtUp(s.client, x.client);
  });

  after(() => stopNodes([x, s]));

  test('a sluice primary fails over to its redis-server replica', async () => {
    keys.push('from-sluice');
    await s.client.set('from-sluice', '1');
    await failOverTo(s, x, keys);
  });

  test('the redis-server primary fails over back to its sluice replica', async () => {
    keys.push('from-redis');
    await x.client.set('from-redis', '1');
    await failOverTo(x, s, keys);
  });

  test('a target that refuses the PSYNC: the failover is aborted, the primary stays, the replica resyncs', async () => {
    // sluice is the primary again; redis-server's default user may not PSYNC, as in failover.tcl.
    await x.client.call('ACL', 'SETUSER', 'default', '-psync');
    try {
      await s.client.set('case', 'rejected');
      await caughtUp(s.client, x.client);
      assert.equal(await s.client.call('FAILOVER', 'TO', '127.0.0.1', String(x.port)), 'OK');
      await waitFor(async () => (await state(s)) === 'no-failover', 'the failover to end');
      assert.equal(await roleOf(s), 'master');
      assert.equal(await roleOf(x), 'slave');
    } finally {
      await x.client.call('ACL', 'SETUSER', 'default', '+psync');
    }
    keys.push('case');
    await follows(x, s);
    await caughtUp(s.client, x.client);
    assert.equal(await s.client.set('after', 'ok'), 'OK');
    await caughtUp(s.client, x.client);
    await sameData([...keys, 'after'], s, x);
  });
});
