// Per-key fairness on a real Redis Cluster (3 masters), partitioned streams: every key of a
// partition's fairness (index, lanes, slots, rate windows, guard) shares that partition's slot,
// so the producer's MULTI (RPUSH, ZADD NX, the job record) and the movers' WATCH + MULTI
// (LTRIM, ZADD, INCRBY, XADD...) never CROSSSLOT. Three workers over 3 partitions handle each
// fair-keyed job once; within each partition a flooding key added first does not hold back the
// quiet keys (served in turns); a per-key concurrency of 2 is never exceeded (every handler
// runs in this process: an exact count), and every slot is given back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { activeKey, fairGuardKey, fairIndexKey, laneKey, rateKey } from '../../src/broker/fairness/lanes.js';
import { keySlot, partitionOf } from '../../src/broker/partition.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';
import { useCluster } from './use-cluster.js';

const shared = useCluster();
const { workers } = shared;
const PARTITIONS = 3;

interface P {
  k: string;
  n: number;
}

/** Three workers on `stream`'s partitions; `handler` sees every job. */
async function startWorkers(stream: string, options: Partial<WorkerOptions>, handler: (job: { payload: P }) => Promise<void> | void): Promise<Error[]> {
  const errors: Error[] = [];
  for (let i = 0; i < 3; i++) {
    const w = new Worker<P>(shared.conn, { stream, partitions: PARTITIONS, group: 'g', blockMs: 200, ...options }, handler);
    w.on('error', (e) => errors.push(e));
    workers.push(w as Worker);
    await w.start();
  }
  return errors;
}

/** Fair keys named `${prefix}${i}`, i < n, spread over the partitions (each partition gets some). */
function keysOver(prefix: string, n: number): string[] {
  const keys = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const used = new Set(keys.map((k) => partitionOf(k, PARTITIONS)));
  assert.equal(used.size, PARTITIONS, `keys ${keys.join(',')} cover every partition`);
  return keys;
}

test('every fairness key of a partition shares its slot', () => {
  const producer = new Producer(shared.conn, { stream: 'tenants', partitions: PARTITIONS });
  for (const s of producer.streams) {
    const slot = keySlot(s);
    for (const key of [fairIndexKey(s), fairGuardKey(s), laneKey(s, 'acme'), activeKey(s, 'acme'), rateKey(s, 'acme', 123), laneKey(s, '{other}')]) {
      assert.equal(keySlot(key), slot, `${key} in ${s}'s slot`);
    }
  }
});

test('a flood key and 12 quiet keys over 3 partitions, 3 workers: each job once, quiet keys served in turns', async () => {
  const stream = 'tenants';
  const quiet = keysOver('q', 12);
  // One flooding key per partition (its name chosen by the partition its hash lands in).
  const floodOf = new Map<number, string>();
  for (let i = 0; floodOf.size < PARTITIONS; i++) {
    const k = `flood-${i}`;
    if (!floodOf.has(partitionOf(k, PARTITIONS))) floodOf.set(partitionOf(k, PARTITIONS), k);
  }
  const floodKeys = [...floodOf.values()];
  const producer = new Producer<P>(shared.conn, { stream, partitions: PARTITIONS });
  // The floods first: each key's jobs go to the partition of its `key`.
  for (const k of floodKeys) await producer.addMany(Array.from({ length: 100 }, (_, n) => ({ payload: { k, n }, key: k, fairKey: k })), { keyed: true });
  for (let n = 0; n < 5; n++) await producer.addMany(quiet.map((k) => ({ payload: { k, n }, key: k, fairKey: k })), { keyed: true });
  for (const s of producer.streams) assert.ok(Number(await shared.conn.call('ZCARD', fairIndexKey(s))) >= 2, `${s} has keys waiting`);

  const started: P[] = [];
  const calls = new Map<string, number>();
  // One slot per partition per worker: each move takes one job, the key served longest ago.
  // Runs of 2 ms: a sole key's runs under FAIR_READ_AHEAD_MS are read ahead (stream-consumer.ts),
  // which keeps another key's job waiting about that long, in time, but behind many of them in
  // start order, which this test counts.
  const errors = await startWorkers(stream, { concurrency: PARTITIONS }, async (job) => {
    started.push(job.payload);
    const id = `${job.payload.k}:${job.payload.n}`;
    calls.set(id, (calls.get(id) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 2));
  });
  const total = floodKeys.length * 100 + quiet.length * 5;
  await waitFor(() => calls.size === total, `all ${total} handled`, 30_000);
  for (const w of workers.splice(0)) await w.close();
  assert.deepEqual([...calls].filter(([, c]) => c !== 1), []);
  assert.deepEqual(errors.map((e) => e.message), []);
  for (let p = 0; p < PARTITIONS; p++) {
    const mine = started.filter((x) => partitionOf(x.k, PARTITIONS) === p);
    const quietHere = new Set(mine.filter((x) => x.k.startsWith('q')).map((x) => x.k)).size;
    // In turns: the partition's quiet keys' 5 jobs each are done within about 5 rounds of its keys.
    const lastQuiet = mine.map((x) => x.k.startsWith('q')).lastIndexOf(true);
    process.stdout.write(`# partition ${p}: last quiet job started ${lastQuiet}th of ${mine.length}, ${quietHere} quiet keys\n`);
    assert.ok(lastQuiet < 5 * (quietHere + 1) + 10, `partition ${p}: the last quiet job started ${lastQuiet}th of ${mine.length} (${quietHere} quiet keys)`);
  }
  for (const s of new Producer(shared.conn, { stream, partitions: PARTITIONS }).streams) {
    await waitFor(async () => Number(await shared.conn.call('EXISTS', fairIndexKey(s))) === 0, `${s}'s index empty`);
  }
});

test('fairness.concurrency 2 and a limiter across 3 workers over 3 partitions: never more than 2 of a key at once; slots given back', async () => {
  const stream = 'accounts';
  const keys = keysOver('acct', 9);
  const producer = new Producer<P>(shared.conn, { stream, partitions: PARTITIONS });
  for (let n = 0; n < 20; n++) await producer.addMany(keys.map((k) => ({ payload: { k, n }, key: k, fairKey: k })), { keyed: true });
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const calls = new Map<string, number>();
  const errors = await startWorkers(
    stream,
    // The limiter does not hold anything back here (1000 per second): it puts INCRBY of the windows in the moves' MULTI.
    { concurrency: 12, claimIdleMs: 5000, fairness: { concurrency: 2, limiter: { max: 1000, durationMs: 1000 } } },
    async (job) => {
      const { k } = job.payload;
      const now = (running.get(k) ?? 0) + 1;
      running.set(k, now);
      most.set(k, Math.max(most.get(k) ?? 0, now));
      await new Promise((r) => setTimeout(r, 5));
      running.set(k, running.get(k)! - 1);
      const id = `${k}:${job.payload.n}`;
      calls.set(id, (calls.get(id) ?? 0) + 1);
    },
  );
  await waitFor(() => calls.size === keys.length * 20, `all ${keys.length * 20} handled`, 30_000);
  for (const w of workers.splice(0)) await w.close();
  assert.deepEqual([...calls].filter(([, c]) => c !== 1), []);
  assert.deepEqual(errors.map((e) => e.message), []);
  assert.deepEqual([...most].filter(([, m]) => m > 2), [], 'a key ran more than 2 at once');
  assert.ok([...most.values()].some((m) => m === 2), 'the per-key limit is reached');
  for (const k of keys) {
    const s = producer.streams[partitionOf(k, PARTITIONS)]!;
    assert.equal(Number(await shared.conn.call('ZCARD', activeKey(s, k))), 0, `${k}'s slots given back`);
  }
});
