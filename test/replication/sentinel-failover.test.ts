// Three sluice servers (a primary and two replicas) under three real Redis Sentinels
// (`redis-server <conf> --sentinel`), with a producer and a worker connected through
// `redis+sentinel://`. The primary is SIGKILLed mid-run: the Sentinels promote a replica, the
// other replica follows it, the broker carries on against the new primary, every add confirmed
// with `waitReplicas: 1` is handled afterwards (0 lost; duplicates are allowed and counted), and
// the old primary, restarted on its port, is turned into a replica of the new one by the Sentinels.
//
// What Sentinel needs of sluice, all exercised here: the INFO fields it parses (run_id, role, the
// slave lines, master_link_status, slave_priority, slave_repl_offset), PUBLISH/SUBSCRIBE on
// __sentinel__:hello with PUBLISH propagated to replicas (how Sentinels discover each other
// through a replica), and `MULTI; SLAVEOF; CONFIG REWRITE; CLIENT KILL TYPE normal; EXEC`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { Producer, ReplicationError } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { CLI_MAIN, freePort, installed, runToExit, spawnUntil, type Spawned } from '../support/processes.js';
import { pollFor, waitFor } from '../support/wait.js';
import { field, info } from './helpers.js';

const MASTER = 'orders';

async function startSluiceOn(port: number, args: string[] = []): Promise<Spawned> {
  return spawnUntil(process.execPath, [CLI_MAIN, 'server', '--port', String(port), ...args], /ready on /);
}

async function startSentinel(dir: string, port: number, primaryPort: number): Promise<Spawned> {
  const conf = join(dir, `sentinel-${port}.conf`);
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${MASTER} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${MASTER} 2000`,
      `sentinel failover-timeout ${MASTER} 5000`,
      `sentinel parallel-syncs ${MASTER} 2`,
      '',
    ].join('\n'),
  );
  return spawnUntil('redis-server', [conf, '--sentinel'], /Sentinel ID is/, { readyOn: 'both' });
}

/** ROLE's first element, or undefined while the server does not answer. */
async function role(port: number): Promise<string | undefined> {
  const c = new Redis(port, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  c.on('error', () => {});
  try {
    return String(((await c.call('ROLE')) as unknown[])[0]);
  } catch {
    return undefined;
  } finally {
    c.disconnect();
  }
}

describe('sluice servers under Redis Sentinel: kill -9 of the primary', { skip: !installed('redis-server') && 'redis-server is not installed' }, () => {
  let dir: string;
  const ports: number[] = [];
  const servers = new Map<number, Spawned>();
  const sentinels: Spawned[] = [];
  let sentinelPorts: number[] = [];
  let conn: Connection;
  let url: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-sentinel-'));
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    servers.set(ports[0]!, await startSluiceOn(ports[0]!));
    for (const p of ports.slice(1)) servers.set(p, await startSluiceOn(p, ['--replicaof', `127.0.0.1 ${ports[0]}`]));
    const primary = new Redis(ports[0]!, { lazyConnect: true });
    await waitFor(async () => field(await info(primary), 'connected_slaves') === '2', 'both replicas to attach');
    primary.disconnect();
    sentinelPorts = [await freePort(), await freePort(), await freePort()];
    for (const p of sentinelPorts) sentinels.push(await startSentinel(dir, p, ports[0]!));
    // Each Sentinel must know the two replicas (from the primary's INFO) and the two other
    // Sentinels (from their hello messages) before a failover can be agreed.
    for (const p of sentinelPorts) {
      const s = new Redis(p, { lazyConnect: true });
      await waitFor(async () => {
        const m = (await s.call('SENTINEL', 'MASTER', MASTER)) as string[];
        const at = (k: string): string => m[m.indexOf(k) + 1]!;
        return at('num-slaves') === '2' && at('num-other-sentinels') === '2';
      }, `sentinel :${p} to see 2 replicas and 2 other sentinels`, 30_000);
      s.disconnect();
    }
    url = `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${MASTER}`;
    conn = await connect(url);
  });

  after(async () => {
    await conn?.close();
    for (const s of sentinels) await s.stop();
    for (const s of servers.values()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a replica is promoted, the broker carries on, every confirmed add is handled, the old primary rejoins', async (t) => {
    const producer = new Producer(conn, { stream: 'orders', waitReplicas: 1, waitTimeoutMs: 500 });
    const handled = new Map<number, number>();
    const worker = new Worker<{ n: number }>(conn, { stream: 'orders', group: 'billing', concurrency: 8, blockMs: 300, claimIdleMs: 2000 }, async (job) => {
      handled.set(job.payload.n, (handled.get(job.payload.n) ?? 0) + 1);
    });
    worker.on('error', () => {}); // errors while the primary is down are expected; the outcome is what counts
    await worker.start();

    const confirmed = new Set<number>();
    let unconfirmed = 0;
    let failed = 0;
    let next = 0;
    let producing = true;
    let confirmedAfterFailover = 0;
    let failedOver = false;
    const producers = Array.from({ length: 4 }, async () => {
      while (producing) {
        const n = next++;
        try {
          await producer.add({ n });
          confirmed.add(n);
          if (failedOver) confirmedAfterFailover++;
        } catch (err) {
          if (err instanceof ReplicationError) unconfirmed++;
          else failed++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    });

    const [oldPrimary, ...replicas] = ports as [number, ...number[]];
    let newPrimary = 0;
    let failoverMs = 0;
    try {
      await waitFor(() => confirmed.size >= 300, 'adds confirmed before the kill');
      const confirmedAtKill = confirmed.size;
      await servers.get(oldPrimary)!.stop('SIGKILL');
      const killedAt = Date.now();
      newPrimary = await pollFor(async () => {
        for (const p of replicas) if ((await role(p)) === 'master') return p;
        return undefined;
      }, 'a replica to be promoted', 30_000);
      failoverMs = Date.now() - killedAt;
      failedOver = true;
      const other = replicas.find((p) => p !== newPrimary)!;
      const otherClient = new Redis(other, { lazyConnect: true });
      await waitFor(async () => {
        const r = await info(otherClient);
        return field(r, 'master_port') === String(newPrimary) && field(r, 'master_link_status') === 'up';
      }, 'the other replica to follow the new primary', 30_000);
      otherClient.disconnect();
      await waitFor(() => confirmedAfterFailover >= 100, 'adds confirmed by the new primary and its replica', 30_000);

      // The old primary comes back empty-handed on its port: the Sentinels make it a replica.
      servers.set(oldPrimary, await startSluiceOn(oldPrimary));
      const back = new Redis(oldPrimary, { lazyConnect: true });
      await waitFor(async () => {
        const r = await info(back);
        return field(r, 'role') === 'slave' && field(r, 'master_port') === String(newPrimary) && field(r, 'master_link_status') === 'up';
      }, 'the old primary to rejoin as a replica of the new one', 60_000);
      back.disconnect();

      producing = false;
      await Promise.all(producers);
      await waitFor(() => [...confirmed].every((n) => handled.has(n)), 'every confirmed add to be handled', 45_000);
      const duplicates = [...handled.values()].filter((c) => c > 1).length;
      t.diagnostic(
        `killed the primary after ${confirmedAtKill} confirmed adds; promotion seen after ${failoverMs} ms; ` +
          `${confirmed.size} confirmed, ${handled.size} handled (${duplicates} more than once); ` +
          `${unconfirmed} written but not confirmed by a replica, ${failed} failed outright`,
      );
    } catch (err) {
      if (process.env['SLUICE_DEBUG']) for (const s of sentinels) console.error(s.stdout());
      throw err;
    } finally {
      producing = false;
      await Promise.all(producers);
      await worker.close();
    }
    assert.deepEqual([...confirmed].filter((n) => !handled.has(n)), [], 'every confirmed add was handled');
    // Nothing stuck: once handled, every delivery was acknowledged on the new primary.
    const primaryClient = new Redis(newPrimary, { lazyConnect: true });
    await waitFor(async () => Number(((await primaryClient.xpending('orders', 'billing')) as unknown[])[0]) === 0, 'an empty PEL');
    const length = await primaryClient.xlen('orders');
    primaryClient.disconnect();
    // The operator CLI finds the new primary through the same URL.
    const stats = await runToExit(process.execPath, [CLI_MAIN, 'stats', 'orders', '--json', '--url', url], { timeoutMs: 30_000 });
    assert.equal(stats.code, 0, stats.output);
    assert.equal(JSON.parse(stats.output).length, length);
  });
});
