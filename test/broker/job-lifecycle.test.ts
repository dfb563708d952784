// A job's whole life on every backend, through the public API only (Producer, Worker, Queue,
// QueueEvents): delayed → waiting → active (progress, logs) → retrying → active → completed,
// and another job failing every attempt → failed (dead-lettered) with its reason and stack.
// Each state is checked in the record (getJob), in the lists (getJobs) and counts
// (getJobCounts); QueueEvents sees each job's events in order; waitUntilFinished runs on a
// second connection, as another process's would.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { DelayedMover } from '../../src/broker/delayed.js';
import { Producer } from '../../src/broker/producer.js';
import { JobFailedError, Queue } from '../../src/broker/queue.js';
import { QueueEvents } from '../../src/broker/queue-events.js';
import { Worker } from '../../src/broker/worker.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { backends, deferred, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

interface Order {
  sku: string;
  qty: number;
}
interface Receipt {
  total: number;
  sku: string;
}

describeEach(backends, (name) => `a job's whole life on ${name}`, (b) => {
  let conn!: Connection;
  let other!: Connection;
  const closers: Array<() => Promise<unknown>> = [];
  before(async () => {
    conn = await b.connect();
    other = await b.connect();
  });
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await conn?.close();
    await other?.close();
  });

  test('delayed → waiting → active (progress, logs) → retrying → completed; another → failed with reason and stack', async () => {
    const stream = unique('life');
    const producer = new Producer<Order>(conn, { stream });
    const queue = new Queue<Order, Receipt>(conn, { stream });
    const remote = new Queue<Order, Receipt>(other, { stream }); // waits as another process would
    closers.push(() => queue.close(), () => remote.close());

    const events = new QueueEvents<Receipt>(other, { stream });
    const seen: Array<{ id: string; name: string; jobId: string | undefined; event: Record<string, unknown> }> = [];
    for (const name of ['added', 'delayed', 'waiting', 'active', 'progress', 'completed', 'failed', 'retrying', 'deadLettered', 'claimed', 'drained'] as const) {
      events.on(name, (event: Record<string, unknown>, id: string) => seen.push({ id, name, jobId: event['jobId'] as string | undefined, event }));
    }
    events.on('error', () => {});
    await events.start();
    closers.push(() => events.close());

    // --- delayed ---------------------------------------------------------------------------
    const before = Date.now();
    const okId = await producer.add({ sku: 'tea', qty: 3 }, { jobId: 'ok', delayMs: 600, attempts: 3, backoff: { type: 'fixed', delay: 1500 } });
    assert.equal(okId, 'ok');
    const finished = remote.waitUntilFinished(okId, 30_000); // registered before anything ran
    let job = await queue.getJob(okId);
    assert.ok(job);
    assert.equal(job.state, 'delayed');
    assert.deepEqual(job.data, { sku: 'tea', qty: 3 });
    assert.deepEqual(job.opts, { attempts: 3, backoff: { type: 'fixed', delay: 1500 } });
    assert.equal(job.attemptsMade, 0);
    assert.ok(job.addedAt >= before - 1000 && job.addedAt <= Date.now() + 1000, `addedAt ${job.addedAt}`);
    assert.ok(job.dueAt !== undefined && job.dueAt - job.addedAt >= 590, `due ${job.dueAt} added ${job.addedAt}`);
    assert.equal(job.startedAt, undefined);
    assert.equal(job.finishedAt, undefined);
    assert.deepEqual((await queue.getJobs('delayed')).map((j) => j.id), ['ok']);
    assert.equal((await queue.getJobCounts()).delayed, 1);

    // --- the worker: delivery 1 reports progress, logs and fails; delivery 2 holds at a gate, then completes
    const gate = deferred();
    const inSecond = deferred();
    const worker = new Worker<Order, Receipt>(conn, { stream, group: 'g', blockMs: 200, concurrency: 4 }, async (j) => {
      if (j.id === 'bad') throw new Error('card declined');
      await j.updateProgress(j.deliveries === 1 ? 10 : { step: 'packed', pct: 100 });
      await j.log(`try ${j.deliveries}: packing ${j.payload.qty} x ${j.payload.sku}`);
      if (j.deliveries === 1) throw new Error('scanner offline');
      inSecond.resolve();
      await gate.promise;
      return { total: j.payload.qty * 4, sku: j.payload.sku };
    });
    worker.on('error', () => {});
    const completions: Receipt[] = [];
    worker.on('completed', (_j, r) => completions.push(r)); // r: Receipt, by the Worker's R
    closers.push(() => worker.close({ timeoutMs: 1000 }));
    await worker.start();

    // --- waiting (moved in at its due time), active, retrying ---------------------------------
    // The first delivery fails and waits out a 1.5 s backoff in state retrying.
    await waitFor(async () => (await queue.getJob(okId))?.state === 'retrying', 'ok retrying');
    job = (await queue.getJob(okId))!;
    assert.equal(job.failedReason, 'scanner offline');
    assert.match(job.stacktrace ?? '', /scanner offline[\s\S]*job-lifecycle\.test\.js/);
    assert.equal(job.attemptsMade, 1);
    assert.equal(job.progress, 10);
    assert.ok(job.startedAt !== undefined && job.startedAt >= job.dueAt! - 50, `started ${job.startedAt} due ${job.dueAt}`);
    assert.match(job.entryId ?? '', /^\d+-\d+$/);
    assert.equal(job.consumer, worker.consumer);

    // --- active again, held at the gate -------------------------------------------------------
    await inSecond.promise;
    await waitFor(async () => (await queue.getJob(okId))?.state === 'active', 'ok active');
    job = (await queue.getJob(okId))!;
    assert.equal(job.attemptsMade, 2);
    assert.deepEqual(job.progress, { step: 'packed', pct: 100 });
    assert.deepEqual(await job.logs(), ['try 1: packing 3 x tea', 'try 2: packing 3 x tea']);
    assert.deepEqual((await queue.getJobs('active')).map((j) => j.id), ['ok']);
    let counts = await queue.getJobCounts();
    assert.equal(counts.active, 1);
    assert.equal(counts.delayed, 0);
    assert.equal(counts.completed, 0);

    // --- a job that fails every attempt: dead-lettered --------------------------------------
    const badId = await producer.add({ sku: 'gold', qty: 1 }, { jobId: 'bad', attempts: 2, backoff: 0 });
    await assert.rejects(remote.waitUntilFinished(badId, 20_000), (err: unknown) => {
      assert.ok(err instanceof JobFailedError);
      assert.equal(err.jobId, 'bad');
      assert.equal(err.failedReason, 'card declined');
      assert.equal(err.attemptsMade, 2);
      return true;
    });
    const bad = (await queue.getJob(badId))!;
    assert.equal(bad.state, 'failed');
    assert.equal(bad.failedReason, 'card declined');
    assert.match(bad.stacktrace ?? '', /^Error: card declined\n\s+at /);
    assert.equal(bad.attemptsMade, 2);
    assert.ok(bad.finishedAt !== undefined && bad.finishedAt >= bad.startedAt!);
    assert.equal(bad.returnValue, undefined);
    assert.deepEqual((await queue.getJobs('failed')).map((j) => j.id), ['bad']);
    assert.equal(Number(await conn.call('XLEN', `${stream}:dead`)), 1, 'its dead letter');

    // --- completed -----------------------------------------------------------------------------
    gate.resolve();
    const receipt = await finished;
    const typed: Receipt | undefined = receipt; // R flows from Queue<Order, Receipt>
    assert.deepEqual(typed, { total: 12, sku: 'tea' });
    job = (await queue.getJob(okId))!;
    assert.equal(job.state, 'completed');
    const value: Receipt | undefined = job.returnValue;
    assert.deepEqual(value, { total: 12, sku: 'tea' });
    assert.equal(job.attemptsMade, 2);
    assert.ok(job.finishedAt! >= job.startedAt! && job.startedAt! >= job.dueAt! - 50 && job.dueAt! > job.addedAt, JSON.stringify(job));
    assert.equal(await job.waitUntilFinished(1000).then((r) => r?.total), 12, 'a finished job resolves at once');
    assert.deepEqual((await queue.getJobs('completed')).map((j) => j.id), ['ok']);
    await waitFor(() => completions.length === 1, 'the completed event');
    counts = await queue.getJobCounts();
    assert.deepEqual(counts, { delayed: 0, prioritized: 0, 'waiting-children': 0, waiting: 0, active: 0, retrying: 0, completed: 1, failed: 1 });
    for (const state of ['delayed', 'waiting', 'active', 'retrying'] as const) assert.deepEqual(await queue.getJobs(state), [], state);

    // --- the events, each job's in order -------------------------------------------------------
    await waitFor(() => seen.some((e) => e.name === 'completed'), 'the completed event on the listener');
    const names = (id: string): string[] => seen.filter((e) => e.jobId === id).map((e) => e.name);
    assert.deepEqual(names('ok'), ['delayed', 'waiting', 'active', 'progress', 'failed', 'retrying', 'active', 'progress', 'completed']);
    assert.deepEqual(names('bad'), ['added', 'active', 'failed', 'retrying', 'active', 'failed', 'deadLettered']);
    const ids = seen.map((e) => e.id);
    assert.deepEqual([...ids].sort(compareIds), ids, 'in event-id order');
    assert.equal(new Set(ids).size, ids.length, 'none twice');
    const completed = seen.find((e) => e.name === 'completed')!.event;
    assert.deepEqual(completed['returnvalue'], { total: 12, sku: 'tea' });
    const retrying = seen.find((e) => e.name === 'retrying' && e.jobId === 'ok')!.event;
    assert.equal(retrying['delay'], 1500);
    assert.equal(retrying['attemptsMade'], 1);
    const dead = seen.find((e) => e.name === 'deadLettered')!.event;
    assert.equal(dead['failedReason'], 'card declined');
    assert.equal(dead['attemptsMade'], 2);
    const actives = seen.filter((e) => e.name === 'active' && e.jobId === 'ok').map((e) => [e.event['consumer'], e.event['attemptsMade']]);
    assert.deepEqual(actives, [
      [worker.consumer, 1],
      [worker.consumer, 2],
    ]);
  });

  test('a waiting job: state waiting, in getJobs and counted, with its entry id', async () => {
    const stream = unique('waiting');
    const producer = new Producer<Order>(conn, { stream });
    const queue = new Queue<Order, Receipt>(conn, { stream });
    closers.push(() => queue.close());
    await conn.call('XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM');
    const id = await producer.add({ sku: 'jam', qty: 1 });
    const job = (await queue.getJob(id))!;
    assert.equal(job.state, 'waiting');
    assert.equal(job.attemptsMade, 0);
    const [[entryId]] = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
    assert.equal(job.entryId, entryId, "the record names the job's entry");
    assert.deepEqual((await queue.getJobs('waiting')).map((j) => j.id), [id]);
    assert.equal((await queue.getJobCounts()).waiting, 1);
  });

  test('a delayed job moved in names its entry; one moved into the prioritized set names none', async () => {
    const stream = unique('moved');
    const producer = new Producer<Order>(conn, { stream });
    const queue = new Queue<Order, Receipt>(conn, { stream });
    closers.push(() => queue.close());
    await conn.call('XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM');
    const plain = await producer.add({ sku: 'jam', qty: 1 }, { delayMs: 1 });
    const urgent = await producer.add({ sku: 'tea', qty: 2 }, { delayMs: 1, priority: 1 });
    const mover = new DelayedMover(conn, { stream, pollMs: 20 });
    closers.push(() => mover.close());
    await mover.start();
    await waitFor(async () => (await queue.getJob(plain))?.entryId !== undefined, 'the moved job to name its entry');
    const entries = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
    const mine = entries.find(([, fields]) => fields.includes(plain))!;
    assert.equal((await queue.getJob(plain))!.entryId, mine[0]);
    assert.equal((await queue.getJob(plain))!.state, 'waiting');
    await waitFor(async () => (await queue.getJob(urgent))?.state === 'prioritized', 'the prioritized one moved');
    assert.equal((await queue.getJob(urgent))!.entryId, undefined, 'no entry yet (its ZADD replied a count)');
  });

  test('fast jobs (a sync handler, their start and completion in one write): each record ends completed with its start, each job has its events in order', async () => {
    const stream = unique('fast');
    const producer = new Producer<Order>(conn, { stream });
    const queue = new Queue<Order, Receipt>(conn, { stream });
    closers.push(() => queue.close());
    for (const concurrency of [1, 50]) {
      const ids = await producer.addMany(Array.from({ length: 120 }, (_, i) => ({ sku: `s${concurrency}-${i}`, qty: 1 })));
      let done = 0;
      const worker = new Worker<Order, Receipt>(conn, { stream, group: 'g', concurrency }, (job) => ({ total: job.payload.qty, sku: job.payload.sku }));
      worker.on('completed', () => done++);
      worker.on('error', () => {});
      await worker.start();
      await waitFor(() => done === ids.length, 'every job completed');
      await worker.close();
      for (const job of await Promise.all(ids.map((id) => queue.getJob(id)))) {
        assert.equal(job?.state, 'completed', JSON.stringify(job));
        assert.equal(job.attemptsMade, 1);
        assert.ok(job.startedAt !== undefined && job.finishedAt! >= job.startedAt, 'started, then finished');
        assert.match(job.entryId ?? '', /^\d+-\d+$/);
        assert.ok(job.consumer !== undefined);
      }
      const events = (await conn.call('XRANGE', jobKeys(stream).events, '-', '+')) as Array<[string, string[]]>;
      const byJob = new Map<string, string[]>();
      for (const [, fields] of events) {
        const jobId = fields[fields.indexOf('jobId') + 1]!;
        if (fields.includes('jobId')) byJob.set(jobId, [...(byJob.get(jobId) ?? []), fields[fields.indexOf('event') + 1]!]);
      }
      for (const id of ids) assert.deepEqual(byJob.get(id), ['added', 'active', 'completed'], id);
    }
  });
});

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
