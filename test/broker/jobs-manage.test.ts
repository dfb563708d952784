// Managing jobs on every backend (jobs/manage.ts through Queue): remove a waiting, delayed or
// finished job (not an active one), promote or re-delay a delayed job, retry a failed one,
// clean, drain, obliterate; and the same operations racing a running worker and the delayed
// mover: no job runs after it was removed, none is moved twice or lost.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { JobActiveError, JobNotFoundError, JobStateError, Queue } from '../../src/broker/queue.js';
import { Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { delayedKey } from '../../src/broker/delayed.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

async function eventsOf(conn: Connection, stream: string, name: string): Promise<Array<Record<string, string>>> {
  const rows = (await conn.call('XRANGE', jobKeys(stream).events, '-', '+')) as Array<[string, string[]]>;
  return rows
    .map(([, f]) => Object.fromEntries(f.map((v, i) => [v, f[i + 1]]).filter((_, i) => i % 2 === 0)) as Record<string, string>)
    .filter((e) => e['event'] === name);
}

describeEach(backends, (name) => `managing jobs on ${name}`, (b) => {
  let conn!: Connection;
  before(async () => (conn = await b.connect()));
  after(() => conn.close());

  async function running<T>(stream: string, handler: (payload: T) => Promise<unknown>, options: Partial<WorkerOptions> = {}): Promise<{ close(): Promise<void> }> {
    const worker = new Worker<T>(conn, { stream, group: 'g', blockMs: 50, ...options }, async (job) => handler(job.payload));
    worker.on('error', () => {});
    await worker.start();
    const run = worker.run();
    return { close: async () => (await worker.close(), await run) };
  }

  test('remove: waiting, delayed, completed and failed jobs go; an active one rejects; none is false', async () => {
    const stream = unique('remove');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const w1 = await producer.add({ n: 1 });
    const w2 = await producer.add({ n: 2 });
    const d = await producer.add({ n: 3 }, { delayMs: 60_000, deduplication: { id: 'dd' } });
    assert.equal(await queue.remove(w1), true);
    assert.equal(await queue.getJob(w1), null);
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    assert.equal(await queue.remove(d), true);
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 0);
    assert.equal(Number(await conn.call('EXISTS', jobKeys(stream).dedup('dd'))), 0, 'its deduplication id is free again');
    assert.equal(await queue.remove('no-such-job'), false);
    assert.deepEqual((await eventsOf(conn, stream, 'removed')).map((e) => [e['jobId'], e['prev']]), [[w1, 'waiting'], [d, 'delayed']]);

    // with a group: w2 waits; then one runs and holds (active), the others finish
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const worker = await running<{ n: number }>(stream, async (p) => {
      if (p.n === 5) await held;
      if (p.n === 6) throw new Error('boom');
      return p.n;
    }, { maxDeliveries: 1 });
    assert.equal(await queue.waitUntilFinished(w2, 20_000), 2);
    const active = await producer.add({ n: 5 });
    const failed = await producer.add({ n: 6 });
    await waitFor(async () => (await queue.getJob(active))?.state === 'active', 'job 5 active');
    await assert.rejects(queue.remove(active), JobActiveError);
    await waitFor(async () => (await queue.getJob(failed))?.state === 'failed', 'job 6 failed');
    assert.equal(await queue.remove(w2), true, 'completed');
    assert.equal(await queue.remove(failed), true, 'failed');
    assert.equal(Number(await conn.call('ZCARD', jobKeys(stream).completed)), 0);
    assert.equal(Number(await conn.call('ZCARD', jobKeys(stream).failed)), 0);
    release();
    await queue.waitUntilFinished(active, 20_000);
    await worker.close();
    // a waiter of a job that is removed learns it is gone
    const gone = await producer.add({ n: 7 });
    const waiting = assert.rejects(queue.waitUntilFinished(gone, 20_000), JobNotFoundError);
    await waitFor(async () => (await conn.call('EXISTS', jobKeys(stream).record(gone))) === 1, 'added');
    assert.equal(await queue.remove(gone), true);
    await waiting;
    await queue.close();
    await producer.close();
  });

  test('promote and changeDelay a delayed job; retryJob a failed one', async () => {
    const stream = unique('promote');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const ran: number[] = [];
    let failOnce = true;
    const worker = await running<{ n: number }>(stream, async (p) => {
      if (p.n === 3 && failOnce) {
        failOnce = false;
        throw new Error('first time');
      }
      ran.push(p.n);
      return p.n;
    }, { maxDeliveries: 1 });
    const a = await producer.add({ n: 1 }, { delayMs: 3_600_000 });
    const bId = await producer.add({ n: 2 }, { delayMs: 3_600_000 });
    await queue.promote(a);
    assert.equal(await queue.waitUntilFinished(a, 20_000), 1);
    assert.equal((await eventsOf(conn, stream, 'promoted')).length, 1);
    await assert.rejects(queue.promote(a), JobStateError);
    await assert.rejects(queue.promote('nope'), JobStateError);
    await queue.changeDelay(bId, 0);
    assert.equal(await queue.waitUntilFinished(bId, 20_000), 2);
    await assert.rejects(queue.changeDelay(bId, 10), JobStateError);

    const c = await producer.add({ n: 3 });
    await waitFor(async () => (await queue.getJob(c))?.state === 'failed', 'job 3 failed');
    await assert.rejects(queue.retryJob(a), JobStateError, 'a completed job is not retried');
    await queue.retryJob(c);
    assert.equal(await queue.waitUntilFinished(c, 20_000), 3);
    const job = await queue.getJob(c);
    assert.equal(job?.attemptsMade, 1, 'attempts counted from 0 again');
    assert.equal(job?.failedReason, undefined);
    assert.deepEqual(ran.sort(), [1, 2, 3]);
    assert.equal(Number(await conn.call('ZCARD', jobKeys(stream).failed)), 0);
    await worker.close();
    await queue.close();
    await producer.close();
  });

  test('clean, drain and obliterate', async () => {
    const stream = unique('clean');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const waiting = await producer.addMany([{ n: 4 }, { n: 5 }]);
    const delayed = await producer.add({ n: 6 }, { delayMs: 60_000 });
    assert.deepEqual(await queue.clean(3_600_000, 0, 'waiting'), [], 'none older than an hour');
    assert.deepEqual(await queue.clean(0, 1, 'waiting'), [waiting[0]]);
    assert.deepEqual(await queue.clean(0, 0, 'delayed'), [delayed]);
    await producer.addMany([{ n: 7 }, { n: 8 }]);
    await producer.add({ n: 9 }, { delayMs: 60_000 });
    assert.equal(await queue.drain(), 4);
    const counts = await queue.getJobCounts();
    assert.equal(counts.waiting + counts.delayed, 0);
    assert.equal(Number(await conn.call('XLEN', stream)), 0);

    const done = await producer.addMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const worker = await running<{ n: number }>(stream, async (p) => p.n);
    for (const id of done) await queue.waitUntilFinished(id, 20_000);
    await worker.close();
    assert.deepEqual(await queue.clean(3_600_000, 0, 'completed'), [], 'none older than an hour');
    assert.equal((await queue.clean(0, 2, 'completed')).length, 2, 'limit');
    assert.equal((await queue.clean(0, 0, 'completed')).length, 1);
    assert.equal(Number(await conn.call('ZCARD', jobKeys(stream).completed)), 0);

    // obliterate refuses while a job is active, unless forced
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const w2 = await running<{ n: number }>(stream, async () => held);
    const busy = await producer.add({ n: 10 });
    await waitFor(async () => (await queue.getJob(busy))?.state === 'active', 'job 10 active');
    await assert.rejects(queue.obliterate(), JobActiveError);
    release();
    await queue.waitUntilFinished(busy, 20_000);
    await w2.close();
    await producer.add({ n: 11 }, { delayMs: 60_000, deduplication: { id: 'x' } });
    await queue.obliterate();
    const left = (await conn.call('KEYS', `*${stream.slice(1, -1)}*`)) as Value[];
    assert.deepEqual(left, []);
    await queue.close();
    await producer.close();
  });

  test('prioritized jobs: remove one, promote a delayed one into the prioritized set, drain the rest', async () => {
    const stream = unique('prio-manage');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const a = await producer.add({ n: 1 }, { priority: 2 });
    const b = await producer.add({ n: 2 }, { priority: 2 });
    const c = await producer.add({ n: 3 }, { priority: 5, delayMs: 3_600_000 });
    assert.equal((await queue.getJob(a))?.state, 'prioritized');
    assert.equal(await queue.remove(a), true);
    assert.equal(await queue.getJob(a), null);
    assert.equal((await queue.getJobCounts()).prioritized, 1);
    await queue.promote(c);
    assert.equal((await queue.getJob(c))?.state, 'prioritized');
    assert.equal((await queue.getJobCounts()).prioritized, 2);
    assert.equal(await queue.drain(), 2);
    assert.equal(await queue.getJob(b), null);
    const counts = await queue.getJobCounts();
    assert.equal(counts.prioritized + counts.delayed, 0);
    // a promoted prioritized job runs
    const d = await producer.add({ n: 4 }, { priority: 1, delayMs: 3_600_000 });
    const worker = await running<{ n: number }>(stream, async (p) => p.n);
    await queue.promote(d);
    assert.equal(await queue.waitUntilFinished(d, 20_000), 4);
    await worker.close();
    await queue.close();
    await producer.close();
  });

  test('a waiting job linked to its entry is removed through it', async () => {
    const stream = unique('linked');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const id = await producer.add({ n: 1 });
    await producer.add({ n: 2 });
    const entry = (await queue.getJob(id))?.entryId;
    assert.ok(entry !== undefined, 'the record names its entry');
    assert.equal(await queue.remove(id), true);
    assert.deepEqual(((await conn.call('XRANGE', stream, entry, entry)) as Value[]).length, 0);
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    await queue.close();
    await producer.close();
  });

  test('removing waiting jobs while a worker takes them: each job either runs once or is removed', async () => {
    const stream = unique('remove-race');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const n = 300;
    const ids = await producer.addMany(Array.from({ length: n }, (_, i) => ({ i })));
    const ran = new Map<number, number>();
    // The worker takes jobs from the front while the removes go from the back: they meet.
    const worker = await running<{ i: number }>(stream, async (p) => {
      ran.set(p.i, (ran.get(p.i) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 2));
      // No read-ahead: entries it held would be delivered, not waiting, when the removes reach them.
    }, { concurrency: 2, readAhead: 0 });
    await waitFor(() => ran.size > 0, 'the worker runs');
    let activeErrors = 0;
    await Promise.all(
      [...ids].reverse().map(async (id) => {
        try {
          await queue.remove(id);
        } catch (err) {
          if (!(err instanceof JobActiveError)) throw err;
          activeErrors++;
        }
      }),
    );
    await waitFor(async () => (await queue.getJobCounts()).active === 0 && (await queue.getJobCounts()).waiting === 0, 'the rest ran');
    await worker.close();
    // removed while waiting: never ran; every other job (run, then maybe removed once finished) ran once
    const removed = new Set((await eventsOf(conn, stream, 'removed')).filter((e) => e['prev'] === 'waiting').map((e) => ids.indexOf(e['jobId']!)));
    for (const i of removed) assert.equal(ran.get(i), undefined, `job ${i} was removed while waiting and ran`);
    for (let i = 0; i < n; i++) if (!removed.has(i)) assert.equal(ran.get(i), 1, `job ${i} ran once`);
    assert.ok(activeErrors >= 0);
    assert.ok(removed.size > 0 && ran.size > 0, `${removed.size} removed while waiting, ${ran.size} ran`);
    await queue.close();
    await producer.close();
  });

  test('promoting delayed jobs while the mover moves them: each is delivered once', async () => {
    const stream = unique('promote-race');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const n = 200;
    const ids = await producer.addMany(Array.from({ length: n }, (_, i) => ({ payload: { i }, delayMs: 30 + (i % 20) })), { keyed: true });
    const ran = new Map<number, number>();
    const worker = await running<{ i: number }>(stream, async (p) => {
      ran.set(p.i, (ran.get(p.i) ?? 0) + 1);
    }, { delayed: { pollMs: 5 } });
    let promoted = 0;
    await Promise.all(
      ids.map(async (id) => {
        try {
          await queue.promote(id);
          promoted++;
        } catch (err) {
          if (!(err instanceof JobStateError)) throw err; // the mover was first
        }
      }),
    );
    await waitFor(() => ran.size === n, 'every job ran');
    await worker.close();
    for (let i = 0; i < n; i++) assert.equal(ran.get(i), 1, `job ${i} ran once`);
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 0);
    assert.ok(promoted >= 0);
    await queue.close();
    await producer.close();
  });
});
