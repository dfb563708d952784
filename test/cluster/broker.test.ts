// The broker on a real 3-master/3-replica Redis Cluster (started by the test from the installed
// redis-server): partition placement, the produce/consume flow with per-key order, and dead
// letters per partition in the source's slot (the worker's XADD+XACK MULTI must not CROSSSLOT).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { keySlot, partitionStreams } from '../../src/broker/partition.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { DeadLetters } from '../../src/broker/dead-letters.js';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { waitFor } from '../support/wait.js';
import { cli, LocalCluster } from './local-cluster.js';

let cluster: LocalCluster;
let conn: Connection;

before(async () => {
  cluster = await LocalCluster.start({ masters: 3, replicas: 1 });
  conn = await connect(cluster.url); // the redis+cluster:// form of the public entry point
});

after(async () => {
  await conn?.close();
  await cluster?.stop();
});

test('keySlot agrees with CLUSTER KEYSLOT, hash tags included', async () => {
  const port = cluster.ports[0]!;
  const keys = fc.sample(fc.oneof(fc.string({ minLength: 1 }), fc.tuple(fc.string(), fc.string(), fc.string()).map(([a, b, c]) => `${a}{${b}}${c}`)), 40);
  keys.push('foo', '{user1000}.following', 'foo{}{bar}', 'foo{{bar}}zap', 'foo{bar}{zap}');
  for (const k of keys) {
    if (k.startsWith('-') || k.includes('\n') || k.includes('\0')) continue; // not passable as a redis-cli argument
    assert.equal(keySlot(k), Number((await cli(port, 'CLUSTER', 'KEYSLOT', k)).trim()), `key ${JSON.stringify(k)}`);
  }
});

test('3 partitions land on 3 masters, 6 on two per master; each dead-letter stream shares its slot', async () => {
  const masters = await cluster.masterPorts();
  for (const n of [3, 6]) {
    const streams = partitionStreams('orders', n);
    const owners = await Promise.all(streams.map((s) => cluster.masterOf(s)));
    const perMaster = masters.map((m) => owners.filter((o) => o === m).length);
    assert.deepEqual(perMaster, masters.map(() => n / 3), `${n} partitions: ${streams.join(' ')}`);
    for (const s of streams) assert.equal(keySlot(`${s}:dead`), keySlot(s));
  }
  assert.throws(() => partitionStreams('or{ders', 3), RangeError);
});

test('every message handled once per delivery, per-key order kept, across 6 partitions', async () => {
  const producer = new Producer(conn, { stream: 'flow', partitions: 6 });
  const keys = Array.from({ length: 24 }, (_, i) => `customer-${i}`);
  const perKey = 40;
  // One handler slot per partition: a partition's entries are handled in stream order.
  const seen = new Map<string, number[]>();
  const worker = new Worker<{ key: string; seq: number }>(
    conn,
    { stream: 'flow', partitions: 6, group: 'g', concurrency: 6, blockMs: 200, claimIdleMs: 5000 },
    (job) => {
      const list = seen.get(job.payload.key) ?? [];
      list.push(job.payload.seq);
      seen.set(job.payload.key, list);
    },
  );
  await worker.start();
  for (let seq = 0; seq < perKey; seq++) {
    await producer.addMany(keys.map((key) => ({ payload: { key, seq }, key })), { keyed: true });
  }
  const total = keys.length * perKey;
  await waitFor(() => worker.metrics.snapshot().processed === total, `${total} processed`, 30_000, 20);
  await worker.close();
  for (const key of keys) assert.deepEqual(seen.get(key), Array.from({ length: perKey }, (_, i) => i), `order of ${key}`);
  // All partitions were used, and each key lives in exactly one partition.
  const lens = await Promise.all(producer.streams.map((s) => conn.call('XLEN', s)));
  assert.equal(lens.reduce<number>((a, b) => a + Number(b), 0), total);
  assert.ok(lens.every((l) => Number(l) > 0), `lengths ${lens.join(',')}`);
  for (const s of producer.streams) {
    const pending = (await conn.call('XPENDING', s, 'g')) as unknown[];
    assert.equal(Number(pending[0]), 0, `pending on ${s}`);
  }
});

test('failing entries are dead-lettered into their own partition\'s dead-letter stream', async () => {
  const producer = new Producer(conn, { stream: 'poison', partitions: 3 });
  const worker = new Worker<{ n: number; bad: boolean }>(
    conn,
    { stream: 'poison', partitions: 3, group: 'g', concurrency: 6, blockMs: 200, maxDeliveries: 2, backoff: () => 10, claimIdleMs: 5000 },
    (job) => {
      if (job.payload.bad) throw new Error(`bad ${job.payload.n}`);
    },
  );
  const errors: unknown[] = [];
  worker.on('error', (e) => errors.push(e));
  await worker.start();
  const items = Array.from({ length: 60 }, (_, n) => ({ payload: { n, bad: n % 5 === 0 }, key: `k${n}` }));
  await producer.addMany(items, { keyed: true });
  await waitFor(() => worker.metrics.snapshot().deadLettered === 12 && worker.metrics.snapshot().processed === 48, 'dead letters', 30_000, 20);
  await worker.close();
  assert.deepEqual(errors, [], 'no CROSSSLOT or other errors');
  const dead: number[] = [];
  for (const s of producer.streams) {
    const letters = await new DeadLetters(conn, { source: s }).list();
    for (const d of letters) {
      assert.equal(d.sourceStream, s);
      assert.equal(d.deliveries, 2);
      dead.push((JSON.parse(d.fields['payload']!) as { n: number }).n);
    }
  }
  assert.deepEqual(dead.sort((a, b) => a - b), [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]);
});

test('a plain Worker on one stream: a hash-tagged name keeps `name:dead` in its slot; an untagged one cannot dead-letter', async () => {
  const run = async (stream: string): Promise<{ dead: number; errors: string[] }> => {
    await new Producer(conn, { stream }).addMany([1, 2, 3]);
    const errors: string[] = [];
    const w = new Worker<number>(conn, { stream, group: 'g', maxDeliveries: 1, blockMs: 200 }, (job) => {
      if (job.payload === 2) throw new Error('two');
    });
    w.on('error', (e) => errors.push(e.message));
    await w.start();
    await waitFor(() => w.metrics.snapshot().processed === 2 && (w.metrics.snapshot().deadLettered === 1 || errors.length > 0), `${stream} settled`, 30_000, 20);
    await w.close();
    return { dead: Number(await conn.call('XLEN', `${stream}:dead`)), errors };
  };
  assert.deepEqual(await run('{jobs}'), { dead: 1, errors: [] });
  const untagged = await run('jobs');
  assert.equal(untagged.dead, 0);
  assert.match(untagged.errors[0] ?? '', /CROSSSLOT|same slot/i);
});
