// Per-key fairness on every backend, through the public API (Producer.add's `fairKey`, the
// Worker's `fairness`): keys are served round-robin (a flooding key added first does not hold
// back the others), the per-key concurrency holds across two workers, the per-key rate limit
// spreads a key's starts over windows, an idle worker wakes for a fair add, an empty lane leaves
// the index, and bad options are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Arg, BlockingConnection, Connection } from '../../src/client/connection.js';
import { Worker } from '../../src/broker/worker.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { fairGuardKey, fairIndexKey, laneKey } from '../../src/broker/fairness/lanes.js';
import { backends, describeEach, useWorkers } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

interface P {
  k: string;
  n: number;
}

describeEach(backends, (name) => `per-key fairness on ${name}`, (b) => {
  let conn!: Connection;
  const { worker } = useWorkers(b, (c) => (conn = c));

  test('a key with 300 jobs added first does not hold back 20 keys of 5 jobs: served in turns', async () => {
    const stream = unique('fair-rr');
    const producer = new Producer<P>(conn, { stream });
    for (let n = 0; n < 300; n++) await producer.add({ k: 'flood', n }, { fairKey: 'flood' });
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) for (let q = 0; q < 20; q++) ids.push(await producer.add({ k: `q${q}`, n }, { fairKey: `q${q}` }));
    assert.ok(ids.every((id) => !/^\d+$/.test(id) && id.length > 0), 'add returns the job id');
    assert.equal(Number(await conn.call('ZCARD', fairIndexKey(stream))), 21);
    assert.equal(Number(await conn.call('LLEN', laneKey(stream, 'flood'))), 300);
    const started: P[] = [];
    const w = worker<P>({ stream, group: 'g', concurrency: 4 }, (job) => void started.push(job.payload));
    await w.start();
    await waitFor(() => started.length === 400, '400 started');
    assert.equal(new Set(started.map((p) => `${p.k}:${p.n}`)).size, 400, 'each job once');
    // 21 keys in turns: the quiet ones' 100 jobs are done within about 5 rounds of 21.
    const lastQuiet = started.map((p) => p.k !== 'flood').lastIndexOf(true);
    assert.ok(lastQuiet < 5 * 21 + 10, `the last quiet job started ${lastQuiet}th`);
    // Within a key, first in first out.
    for (const k of ['flood', 'q0', 'q19']) {
      const ns = started.filter((p) => p.k === k).map((p) => p.n);
      assert.deepEqual(ns, [...ns].sort((x, y) => x - y), `${k} in order`);
    }
    await waitFor(async () => Number(await conn.call('EXISTS', fairIndexKey(stream), laneKey(stream, 'flood'), laneKey(stream, 'q3'))) === 0, 'empty lanes leave the index');
  });

  test('fairness.concurrency 2 holds across two workers; another key is not held back by it', async () => {
    const stream = unique('fair-conc');
    const producer = new Producer<P>(conn, { stream });
    for (let n = 0; n < 30; n++) await producer.add({ k: 'a', n }, { fairKey: 'a' });
    for (let n = 0; n < 10; n++) await producer.add({ k: 'b', n }, { fairKey: 'b' });
    const running = { a: 0, b: 0 };
    const most = { a: 0, b: 0 };
    let done = 0;
    const handler = async (job: { payload: P }): Promise<void> => {
      const k = job.payload.k as 'a' | 'b';
      most[k] = Math.max(most[k], ++running[k]);
      await new Promise((r) => setTimeout(r, 5));
      running[k]--;
      done++;
    };
    const options = { stream, group: 'g', concurrency: 10, claimIdleMs: 2000, fairness: { concurrency: 2 } };
    const w1 = worker<P>(options, handler);
    const w2 = worker<P>(options, handler);
    await Promise.all([w1.start(), w2.start()]);
    await waitFor(() => done === 40, '40 done');
    assert.ok(most.a <= 2 && most.b <= 2, `at once: a ${most.a}, b ${most.b}`);
    assert.equal(most.a, 2, 'the per-key limit is reached');
  });

  test('fairness.limiter: at most 5 of a key start per 300 ms window', async () => {
    const stream = unique('fair-rate');
    const producer = new Producer<P>(conn, { stream });
    for (let n = 0; n < 15; n++) await producer.add({ k: 'a', n }, { fairKey: 'a' });
    const starts: number[] = [];
    const w = worker<P>({ stream, group: 'g', concurrency: 10, fairness: { limiter: { max: 5, durationMs: 300 } } }, () => void starts.push(Date.now()));
    await w.start();
    await waitFor(() => starts.length === 15, '15 started');
    // Three windows at least: the 11th start is in a later window than the 1st's next one.
    assert.ok(starts[14]! - starts[0]! >= 300, `15 starts over ${starts[14]! - starts[0]!} ms`);
  });

  test('an idle worker wakes for a fair add', async () => {
    const stream = unique('fair-wake');
    const started: P[] = [];
    const w = worker<P>({ stream, group: 'g', blockMs: 30_000 }, (job) => void started.push(job.payload));
    await w.start();
    await new Promise((r) => setTimeout(r, 100)); // blocked in XREADGROUP now
    const at = Date.now();
    await new Producer<P>(conn, { stream }).add({ k: 'x', n: 1 }, { fairKey: 'x' });
    await waitFor(() => started.length === 1, 'started', 10_000);
    assert.ok(Date.now() - at < 10_000);
  });

  test('an idle worker wakes for addMany of several jobs to empty lanes (one push per lane)', async () => {
    const stream = unique('fair-wake-many');
    const started: P[] = [];
    // No periodic check within the test: only the producer's wake-up entry can start them.
    const w = worker<P>({ stream, group: 'g', blockMs: 30_000, pauseCheckMs: 60_000 }, (job) => void started.push(job.payload));
    await w.start();
    await new Promise((r) => setTimeout(r, 100)); // blocked in XREADGROUP now
    const items = [0, 1, 2].map((n) => ({ payload: { k: 'a', n }, fairKey: 'a' })).concat([0, 1].map((n) => ({ payload: { k: 'b', n }, fairKey: 'b' })));
    const ids = await new Producer<P>(conn, { stream }).addMany(items, { keyed: true });
    assert.equal(new Set(ids).size, 5, 'five job ids');
    await waitFor(() => started.length === 5, 'all five started', 5_000);
    assert.deepEqual(started.filter((p) => p.k === 'a').map((p) => p.n), [0, 1, 2], "a's jobs in order");
    // Each job has its record, as a single add's would: its data, and its run's end.
    const queue = new Queue<P>(conn, { stream });
    for (const [i, id] of ids.entries()) {
      await waitFor(async () => (await queue.getJob(id))?.state === 'completed', `job ${i} completed`);
      assert.deepEqual((await queue.getJob(id))?.data, items[i]!.payload);
    }
  });

  /** A Worker on `conn` whose fairness moves (a WATCH of the movers' guard) are counted. */
  function countingMoves(stream: string): { conn: Connection; moves: () => number } {
    let moves = 0;
    const bound = <T extends object>(target: T, p: string | symbol): unknown => {
      const v = Reflect.get(target, p) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    };
    const counted = (link: BlockingConnection): BlockingConnection =>
      new Proxy(link, {
        get: (target, p) =>
          p === 'pipeline'
            ? (commands: Arg[][]) => {
                if (commands[0]?.[0] === 'WATCH' && commands[0][1] === fairGuardKey(stream)) moves++;
                return target.pipeline(commands);
              }
            : bound(target, p),
      });
    const proxied = new Proxy(conn, { get: (target, p) => (p === 'duplicate' ? async () => counted(await target.duplicate()) : bound(target, p)) });
    return { conn: proxied, moves: () => moves };
  }

  test("one key's short jobs are moved in batches; two keys' are moved as slots free, in turns", async () => {
    for (const keys of [['solo'], ['a', 'b']]) {
      const stream = unique('fair-batches');
      const producer = new Producer<P>(conn, { stream });
      const per = 240 / keys.length;
      for (const k of keys) await producer.addMany(Array.from({ length: per }, (_, n) => ({ payload: { k, n }, fairKey: k })), { keyed: true });
      const { conn: counting, moves } = countingMoves(stream);
      let done = 0;
      const w = new Worker<P>(counting, { stream, group: 'g', concurrency: 2, blockMs: 200 }, () => void done++);
      w.on('error', () => {});
      await w.start();
      await waitFor(() => done === 240, '240 done');
      await w.close();
      // One key alone: each move also takes what 2 slots run in about 1 ms (no-op jobs: many).
      // Two keys: a move fills the free slots only (2 at most), so 240 jobs take over 100 moves.
      if (keys.length === 1) assert.ok(moves() < 60, `one key: ${moves()} moves for 240 jobs`);
      else assert.ok(moves() >= 100, `two keys: ${moves()} moves for 240 jobs`);
    }
  });

  test("a lane element that is not one of ours is moved as it is and dead-lettered; the key's next job runs", async () => {
    const stream = unique('fair-garbage');
    const producer = new Producer<P>(conn, { stream });
    await producer.add({ k: 'a', n: 0 }, { fairKey: 'a' });
    for (const garbage of ['not json', '["odd"]', '[1,2]', '[]']) await conn.call('RPUSH', laneKey(stream, 'a'), garbage);
    await producer.add({ k: 'a', n: 1 }, { fairKey: 'a' });
    const started: number[] = [];
    const w = worker<P>({ stream, group: 'g', concurrency: 2, deadLetterStream: `${stream}:dead` }, (job) => void started.push(job.payload.n));
    await w.start();
    await waitFor(() => started.length === 2, 'both jobs started');
    await waitFor(async () => Number(await conn.call('XLEN', `${stream}:dead`)) === 4, 'four dead letters');
    const dead = JSON.stringify(await conn.call('XRANGE', `${stream}:dead`, '-', '+'));
    for (const garbage of ['not json', '["odd"]', '[1,2]', '[]']) assert.ok(dead.includes(JSON.stringify(garbage).slice(1, -1)), `${garbage} dead-lettered as it was`);
    assert.deepEqual(started, [0, 1]);
  });

  test('bad options are refused', async () => {
    const producer = new Producer(conn, { stream: unique('fair-bad') });
    await assert.rejects(producer.add({}, { fairKey: '' }), /fairKey must be a non-empty string/);
    await assert.rejects(producer.add({}, { fairKey: 'a', priority: 1 }), /fairKey needs jobs/);
    await assert.rejects(producer.add({}, { fairKey: 'a', delayMs: 10 }), /fairKey needs jobs/);
    assert.throws(() => worker({ stream: unique('fair-bad'), group: 'g', fairness: { concurrency: 0 } }, () => {}), /fairness.concurrency/);
  });
});
