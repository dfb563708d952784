// High availability: a master is SIGKILLed while producers and workers run; its replica takes
// over (cluster-node-timeout 1.5s) and ioredis follows the new slot map. Afterwards every
// acknowledged message must have been handled.
//
// What Redis's asynchronous replication can lose: a write is acknowledged by the master before
// its replica has it, so an XADD acknowledged just before the kill can vanish with the master;
// likewise an XACK or an XREADGROUP delivery (the message then comes back: a duplicate, never a
// loss). So "acknowledged" here means confirmed by the replica too: the producer pipelines
// WAIT 1 after each XADD (waitReplicas: 1). Writes whose WAIT did not confirm in time are
// counted separately and reported (t.diagnostic) with how many of them survived. Between the
// promotion and the old master's return as a replica the shard has no replica at all, so its
// writes are unconfirmed (ReplicationError) in that window: that is what a 1-replica shard gives.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Producer, ReplicationError } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { connectCluster } from '../../src/client/cluster-connection.js';
import type { Connection } from '../../src/client/connection.js';
import { LocalCluster } from './local-cluster.js';

let cluster: LocalCluster;
let conn: Connection;

before(async () => {
  cluster = await LocalCluster.start({ masters: 3, replicas: 1, nodeTimeoutMs: 1500 });
  conn = await connectCluster(cluster.url);
});

after(async () => {
  await conn?.close();
  await cluster?.stop();
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(cond: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastLog = Date.now();
  while (!cond()) {
    if (process.env['SLUICE_DEBUG'] && Date.now() - lastLog > 1000) {
      lastLog = Date.now();
      console.error(new Date().toISOString(), what());
    }
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await sleep(20);
  }
}

test('kill -9 of a master mid-run: after failover every acknowledged message is handled', async (t) => {
  const partitions = 3;
  const producer = new Producer(conn, { stream: 'ha', partitions, waitReplicas: 1, waitTimeoutMs: 500 });
  const handled = new Map<number, number>(); // message number → times handled
  const worker = new Worker<{ n: number }>(
    conn,
    // Short claim idle: deliveries whose XACK died with the master come back quickly.
    { stream: 'ha', partitions, group: 'g', concurrency: 12, blockMs: 300, claimIdleMs: 2000 },
    async (job) => {
      handled.set(job.payload.n, (handled.get(job.payload.n) ?? 0) + 1);
    },
  );
  worker.on('error', () => {}); // errors while the master is down are expected; the run is judged by the outcome
  await worker.start();

  const acknowledged = new Set<number>();
  const unconfirmed: Array<{ n: number; id: string; stream: string }> = [];
  let failedAdds = 0;
  let firstFailure: string | undefined;
  let next = 0;
  let producing = true;
  let ackedAfterFailover = 0;
  let failedOver = false;
  // 9 sequential producers, one key each, so every partition keeps receiving writes.
  const producers = Array.from({ length: 9 }, async (_, p) => {
    const key = `key-${p}`;
    while (producing) {
      const n = next++;
      try {
        await producer.add({ n }, { key });
        acknowledged.add(n);
        if (failedOver && producer.streamFor(key) === producer.streams[0]) ackedAfterFailover++;
      } catch (err) {
        if (err instanceof ReplicationError) unconfirmed.push({ n, id: err.id, stream: producer.streamFor(key) });
        else {
          failedAdds++;
          firstFailure ??= (err as Error).message;
        }
        await sleep(50);
      }
    }
  });

  let victim = 0;
  let ackedAtKill = 0;
  let failoverMs = 0;
  try {
  await until(() => acknowledged.size >= 300, () => `${acknowledged.size} acknowledged before the kill`, 20_000);
  victim = await cluster.masterOf(producer.streams[0]!);
  const mastersBefore = await cluster.masterPorts();
  ackedAtKill = acknowledged.size;
  await cluster.kill(victim);
  const killedAt = Date.now();
  const survivor = cluster.ports.find((p) => p !== victim)!;
  await cluster.waitFor(survivor, async () => {
    const masters = await cluster.masterPorts(survivor);
    return masters.length === 3 && !masters.includes(victim);
  }, 30_000);
  failoverMs = Date.now() - killedAt;
  failedOver = true;
  const newMaster = await cluster.masterOf(producer.streams[0]!);
  assert.notEqual(newMaster, victim);
  assert.ok(!mastersBefore.includes(newMaster), 'a replica was promoted');

  // The promoted replica has no replica of its own, so WAIT 1 cannot confirm on that shard until
  // the old master is back: restart it, it rejoins as the new master's replica.
  await cluster.restart(victim);
  // The partition that lost its master must take confirmed writes again, through the new master.
  await until(() => ackedAfterFailover >= 100, () => `${ackedAfterFailover} acknowledged on ${producer.streams[0]} after failover`, 30_000);
  producing = false;
  await Promise.all(producers);

  await until(
    () => [...acknowledged].every((n) => handled.has(n)),
    () => `${[...acknowledged].filter((n) => !handled.has(n)).length} acknowledged messages not handled`,
    45_000,
  );
  } finally {
    producing = false; // a failed wait must not leave the producers spinning
  }
  await worker.close();

  const missing = [...acknowledged].filter((n) => !handled.has(n));
  assert.deepEqual(missing, [], 'every acknowledged message was handled');
  let survived = 0;
  for (const u of unconfirmed) if (((await conn.call('XRANGE', u.stream, u.id, u.id)) as unknown[]).length === 1) survived++;
  const duplicates = [...handled.values()].filter((c) => c > 1).length;
  t.diagnostic(
    `killed master :${victim} after ${ackedAtKill} acknowledged; failover seen in ${failoverMs} ms; ` +
      `acknowledged ${acknowledged.size}, handled ${handled.size} distinct (${duplicates} more than once); ` +
      `adds that failed outright ${failedAdds} (first: ${firstFailure ?? "-"}); written but unconfirmed by the replica ${unconfirmed.length}, of which ${survived} survived`,
  );
});
