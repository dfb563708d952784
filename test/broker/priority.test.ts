// Per-job priority on every backend, through the public API (Producer.add's `priority`, the
// Worker, Queue.getJob): jobs start lowest number first under concurrency 50, plain jobs go
// first and are never held back, an idle worker wakes for a prioritized add, two workers move
// each job once, delayed jobs with a priority join the set when due, the record shows the state
// and the priority, and bad options are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { prioritizedKey } from '../../src/broker/jobs/priority.js';
import { backends, describeEach, useWorkers } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

interface P {
  n: number;
  p: number;
}

/** A deterministic pseudo-random sequence (a failure is reproducible). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describeEach(backends, (name) => `job priority on ${name}`, (b) => {
  let conn!: Connection;
  const { worker } = useWorkers(b, (c) => (conn = c));

  test('500 jobs with random priorities start lowest number first under concurrency 50 (within one window of 50)', async () => {
    const stream = unique('prio-order');
    const producer = new Producer<P>(conn, { stream });
    const random = lcg(30);
    const items = Array.from({ length: 500 }, (_, n) => ({ payload: { n, p: 1 + Math.floor(random() * 20) }, priority: 0 }));
    for (const item of items) item.priority = item.payload.p;
    await producer.addMany(items, { keyed: true });
    assert.equal(Number(await conn.call('ZCARD', prioritizedKey(stream))), 500);
    assert.equal(Number(await conn.call('XLEN', stream)), 1, 'only the wake-up entry is in the stream');
    const started: P[] = [];
    const w = worker<P>({ stream, group: 'g', concurrency: 50 }, async (job) => {
      started.push(job.payload);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 3)));
    });
    await w.start();
    await waitFor(() => started.length === 500, '500 started');
    assert.equal(new Set(started.map((s) => s.n)).size, 500, 'each job started once');
    const sorted = started.map((s) => s.p).sort((a, b) => a - b);
    const window = 50;
    started.forEach((s, i) => {
      assert.ok(s.p <= sorted[Math.min(i + window, 499)]!, `start ${i} (priority ${s.p}) came before at least ${window + 1} jobs of a lower number`);
      assert.ok(s.p >= sorted[Math.max(i - window, 0)]!, `start ${i} (priority ${s.p}) came after more than ${window} of a higher number`);
    });
    // Within one worker's moves nothing overtakes: the whole sequence is in order here.
    const outOfOrder = started.filter((s, i) => i > 0 && s.p < started[i - 1]!.p).length;
    assert.equal(outOfOrder, 0, `${outOfOrder} starts before a higher number`);
    assert.equal(Number(await conn.call('ZCARD', prioritizedKey(stream))), 0);
  });

  test('plain and prioritized jobs mixed: plain ones first in add order, then by priority; each once', async () => {
    const stream = unique('prio-mixed');
    const producer = new Producer<string>(conn, { stream });
    const expectPlain: string[] = [];
    const expectPrio: Array<{ name: string; p: number; i: number }> = [];
    for (let i = 0; i < 40; i++) {
      if (i % 2 === 0) {
        await producer.add(`plain-${i}`);
        expectPlain.push(`plain-${i}`);
      } else {
        const p = 1 + ((i * 7) % 5);
        await producer.add(`prio-${i}`, { priority: p });
        expectPrio.push({ name: `prio-${i}`, p, i });
      }
    }
    await producer.add('zero', { priority: 0 }); // 0 is no priority: a plain job
    expectPlain.push('zero');
    const started: string[] = [];
    const w = worker<string>({ stream, group: 'g', concurrency: 1 }, (job) => {
      started.push(job.payload);
    });
    await w.start();
    await waitFor(() => started.length === 41, '41 started');
    const byPriority = [...expectPrio].sort((a, b) => a.p - b.p || a.i - b.i).map((x) => x.name);
    assert.deepEqual(started, [...expectPlain, ...byPriority]);
  });

  test('an idle worker wakes for a prioritized add (no periodic check needed); jobs added while it runs go by priority', async () => {
    const stream = unique('prio-wake');
    const producer = new Producer<string>(conn, { stream });
    const started: string[] = [];
    // pauseCheckMs 60 s: the periodic check cannot be what delivers the job.
    const w = worker<string>({ stream, group: 'g', pauseCheckMs: 60_000, blockMs: 60_000 }, (job) => {
      started.push(job.payload);
    });
    await w.start();
    await producer.add('plain');
    await waitFor(() => started.length === 1, 'plain handled');
    await producer.add('first', { priority: 5 });
    await waitFor(() => started.length === 2, 'the prioritized job handled', 5000);
    await producer.add('second', { priority: 2 });
    await waitFor(() => started.length === 3, 'a second prioritized job handled', 5000);
    assert.deepEqual(started, ['plain', 'first', 'second']);
    const queue = new Queue(conn, { stream });
    const counts = await queue.getJobCounts();
    assert.equal(counts.prioritized, 0);
  });

  test('two workers take 300 prioritized jobs: each handled exactly once', async () => {
    const stream = unique('prio-two');
    const producer = new Producer<number>(conn, { stream });
    const seen = new Map<number, number>();
    const handler = (job: { payload: number }): void => void seen.set(job.payload, (seen.get(job.payload) ?? 0) + 1);
    const w1 = worker<number>({ stream, group: 'g', concurrency: 10 }, handler);
    const w2 = worker<number>({ stream, group: 'g', concurrency: 10 }, handler);
    await Promise.all([w1.start(), w2.start()]);
    await producer.addMany(
      Array.from({ length: 300 }, (_, n) => ({ payload: n, priority: 1 + (n % 7) })),
      { keyed: true },
    );
    await waitFor(() => seen.size === 300, '300 handled');
    await new Promise((r) => setTimeout(r, 100)); // a duplicate would show up here
    assert.deepEqual([...seen.values()].filter((c) => c !== 1), []);
    assert.equal(Number(await conn.call('ZCARD', prioritizedKey(stream))), 0);
  });

  test('getJob shows state prioritized and the priority; getJobs lists them lowest first; getJobCounts counts them', async () => {
    const stream = unique('prio-view');
    const producer = new Producer<string>(conn, { stream });
    const queue = new Queue<string, string>(conn, { stream });
    const low = await producer.add('low', { priority: 9 });
    const high = await producer.add('high', { priority: 1 });
    const plain = await producer.add('plain');
    const view = await queue.getJob(high);
    assert.equal(view?.state, 'prioritized');
    assert.equal(view?.priority, 1);
    assert.equal(view?.data, 'high');
    assert.equal((await queue.getJob(plain))?.priority, 0);
    assert.deepEqual(
      (await queue.getJobs('prioritized')).map((j) => j.id),
      [high, low],
    );
    assert.equal((await queue.getJobCounts()).prioritized, 2);
    const w = worker<string>({ stream, group: 'g' }, (job) => `done ${job.payload}`);
    await w.start();
    assert.equal(await queue.waitUntilFinished(low, 10_000), 'done low');
    const done = await queue.getJob(low);
    assert.equal(done?.state, 'completed');
    assert.equal(done?.priority, 9);
    assert.match(done?.entryId ?? '', /^\d+-\d+$/, 'the record names the entry it was moved in as');
    assert.equal((await queue.getJobCounts()).prioritized, 0);
  });

  test('delayed jobs with a priority go into the prioritized set when due (state delayed, then prioritized), then by priority', async () => {
    const stream = unique('prio-delayed');
    const producer = new Producer<string>(conn, { stream });
    const queue = new Queue<string>(conn, { stream });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const started: string[] = [];
    const w = worker<string>({ stream, group: 'g', concurrency: 1 }, async (job) => {
      started.push(job.payload);
      if (job.payload === 'gate') await gate; // holds the only slot while the others fall due
    });
    await w.start();
    await producer.add('gate');
    await waitFor(() => started.length === 1, 'the gate job running');
    const ids = new Map<string, string>();
    for (const [name, priority] of [['c', 3], ['a', 1], ['b', 2]] as const) ids.set(name, await producer.add(name, { priority, delayMs: 200 }));
    const before = await queue.getJob(ids.get('a')!);
    assert.equal(before?.state, 'delayed');
    assert.equal(before?.priority, 1);
    await waitFor(async () => Number(await conn.call('ZCARD', prioritizedKey(stream))) === 3, 'moved into the prioritized set when due', 5000);
    assert.equal((await queue.getJob(ids.get('a')!))?.state, 'prioritized');
    open();
    await waitFor(() => started.length === 4, 'all started', 5000);
    assert.deepEqual(started, ['gate', 'a', 'b', 'c']);
  });

  test('a prioritized add with a jobId: a second add of that id is the same job; an idle worker still wakes for it', async () => {
    const stream = unique('prio-jobid');
    const producer = new Producer<string>(conn, { stream });
    const started: string[] = [];
    const w = worker<string>({ stream, group: 'g', pauseCheckMs: 60_000, blockMs: 60_000 }, (job) => {
      started.push(`${job.id}:${job.payload}`);
    });
    await w.start();
    assert.equal(await producer.add('first', { priority: 4, jobId: 'order-1' }), 'order-1');
    await waitFor(() => started.length === 1, 'handled', 5000);
    assert.equal(await producer.add('second', { priority: 4, jobId: 'order-1' }), 'order-1');
    await producer.add('after', { priority: 1 });
    await waitFor(() => started.length === 2, 'the next job handled', 5000);
    assert.deepEqual(started.map((s) => s.split(':')[1]), ['first', 'after'], 'the second add of order-1 added nothing');
    await producer.close();
  });

  test('bad priorities and priority without jobs are refused with RangeError', async () => {
    const stream = unique('prio-bad');
    const producer = new Producer<string>(conn, { stream });
    for (const priority of [-1, 1.5, 2 ** 21 + 1, Number.NaN]) {
      await assert.rejects(producer.add('x', { priority }), RangeError, `priority ${priority}`);
    }
    await producer.add('x', { priority: 2 ** 21 }); // the lowest priority is allowed
    const plain = new Producer<string>(conn, { stream, jobs: false });
    await assert.rejects(plain.add('x', { priority: 1 }), /priority needs jobs/);
  });
});
