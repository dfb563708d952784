// The archive of completed jobs (jobs/archive.ts) on every backend: once the retention pass has
// run, completed records leave their hashes for the archive stream and its bucketed index, and
// every reader finds them there as before: getJob (data, result, times, attempts, progress,
// options), getJobs('completed') newest first across the set and the archive, getJobCounts,
// waitUntilFinished, remove, clean, retention by count and by age, a jobId added again, and a
// job completed twice (archived once).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { type FlowJob, FlowJobIdError, FlowProducer } from '../../src/broker/flows/flow-producer.js';
import { JobStateError, Queue } from '../../src/broker/queue.js';
import { Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { bucketOf, bucketsFor, compact, recordOfEntry } from '../../src/broker/jobs/archive.js';
import { WatchLink } from '../../src/broker/jobs/watch-link.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

interface Order {
  n: number;
}

test('bucketsFor: about 64 jobs a bucket, a power of two, 1024 at most (and when unbounded)', () => {
  assert.equal(bucketsFor(1), 1);
  assert.equal(bucketsFor(64), 1);
  assert.equal(bucketsFor(65), 2);
  assert.equal(bucketsFor(1000), 16);
  assert.equal(bucketsFor(10_000_000), 1024);
  assert.equal(bucketsFor(Infinity), 1024);
  const counts = new Array<number>(16).fill(0);
  for (let i = 0; i < 16_000; i++) counts[bucketOf(`job-${i}`, 16)]!++;
  assert.ok(counts.every((c) => c > 850 && c < 1150), `spread: ${counts.join(' ')}`);
});

test('recordOfEntry: times relative to the entry id, the entry id unpacked, an empty payload kept, a bad `x` ignored', () => {
  const fields = ['j', 'job-1', 'd', '', 'r', '', 'f', '-2', 'a', '-50', 's', '-10', 'n', '1', 'c', 'w1', 'e', '45003', 'x', '{not json'];
  const hit = recordOfEntry('1000000-4', fields)!;
  assert.equal(hit.jobId, 'job-1');
  assert.deepEqual(hit.record, { state: 'completed', data: '', result: '', finished: '999998', added: '999950', started: '999990', attempts: '1', consumer: 'w1', entry: '999955-3' });
  assert.equal(recordOfEntry('1-0', ['d', 'x']), null, 'not an archive entry');
});

describeEach(backends, (name) => `the completed-jobs archive on ${name}`, (b) => {
  let conn!: Connection;
  const workers: Worker[] = [];
  before(async () => (conn = await b.connect()));
  after(async () => {
    for (const w of workers) await w.close({ timeoutMs: 1000 });
    await conn.close();
  });

  async function run(stream: string, options: Partial<WorkerOptions>, handler: (n: number) => unknown = (n) => ({ doubled: n * 2 })): Promise<{ done: () => number }> {
    let done = 0;
    const w = new Worker<Order>(conn, { stream, group: 'g', blockMs: 100, concurrency: 50, ...options }, (job) => handler(job.payload.n));
    w.on('error', () => {});
    w.on('completed', () => done++);
    workers.push(w as Worker);
    await w.start();
    return { done: () => done };
  }

  const archived = async (stream: string): Promise<number> => Number(await conn.call('XLEN', jobKeys(stream).archive));
  const inSet = async (stream: string): Promise<number> => Number(await conn.call('ZCARD', jobKeys(stream).completed));

  test('completed records move to the archive; every reader finds them there', async () => {
    const stream = unique('archive');
    const producer = new Producer<Order>(conn, { stream });
    const queue = new Queue<Order, { doubled: number }>(conn, { stream });
    const w = await run(stream, { removeOnComplete: false });
    const ids = await producer.addMany(Array.from({ length: 300 }, (_, n) => ({ payload: { n }, jobId: `order-${n}` })), { keyed: true });
    await waitFor(() => w.done() === 300, '300 completed');
    await waitFor(async () => (await archived(stream)) === 300, 'all 300 archived', 10_000);
    assert.equal(await inSet(stream), 0);
    assert.equal(Number(await conn.call('EXISTS', jobKeys(stream).record(ids[0]!))), 0, 'the hash is gone');
    assert.equal(Number(await conn.call('GET', jobKeys(stream).archiveBuckets)), 1024, 'unbounded retention: 1024 buckets');

    const job = await queue.getJob('order-7');
    assert.ok(job !== null);
    assert.equal(job.state, 'completed');
    assert.deepEqual(job.data, { n: 7 });
    assert.deepEqual(job.returnValue, { doubled: 14 });
    assert.equal(job.attemptsMade, 1);
    assert.ok(job.addedAt > 0 && job.startedAt! >= job.addedAt && job.finishedAt! >= job.startedAt!, `times ${job.addedAt} ${job.startedAt} ${job.finishedAt}`);
    assert.ok(typeof job.consumer === 'string' && job.consumer.length > 0);
    assert.deepEqual(await queue.waitUntilFinished('order-7', 1000), { doubled: 14 });

    const counts = await queue.getJobCounts();
    assert.equal(counts.completed, 300);
    const newest = await queue.getJobs('completed', 0, 9);
    assert.equal(newest.length, 10);
    for (let i = 1; i < newest.length; i++) assert.ok(newest[i - 1]!.finishedAt! >= newest[i]!.finishedAt!, 'newest first');
    assert.equal((await queue.getJobs('completed')).length, 300);

    // A jobId added again while its job is archived: the existing job, nothing added.
    const again = await producer.add({ n: 7 }, { jobId: 'order-7' });
    assert.equal(again, 'order-7');
    assert.equal((await queue.getJob('order-7'))!.state, 'completed');

    await assert.rejects(queue.retryJob('order-7'), (err: unknown) => err instanceof JobStateError && /is completed/.test(err.message));
    assert.equal(await queue.remove('order-7'), true);
    assert.equal(await queue.getJob('order-7'), null);
    assert.equal(await queue.remove('order-7'), false);
    assert.equal((await queue.getJobCounts()).completed, 299);

    const cleaned = await queue.clean(0, 50, 'completed');
    assert.equal(cleaned.length, 50);
    assert.equal(await archived(stream), 249);
    for (const id of cleaned) assert.equal(await queue.getJob(id), null);
    await queue.close();
  });

  test('progress, options and the key survive the move', async () => {
    const stream = unique('archive-opts');
    const producer = new Producer<Order>(conn, { stream });
    const queue = new Queue<Order>(conn, { stream });
    let done = 0;
    const w = new Worker<Order>(conn, { stream, group: 'g', blockMs: 100, removeOnComplete: false }, async (job) => {
      await job.updateProgress({ step: 2 });
      await job.log('half way');
      return 'ok';
    });
    w.on('completed', () => done++);
    workers.push(w as Worker);
    await w.start();
    await producer.add({ n: 1 }, { jobId: 'with-opts', attempts: 5, key: 'tenant-a' });
    await waitFor(() => done === 1, 'done');
    await waitFor(async () => (await archived(stream)) === 1, 'archived', 10_000);
    const job = (await queue.getJob('with-opts'))!;
    assert.equal(job.state, 'completed');
    assert.deepEqual(job.progress, { step: 2 });
    assert.equal(job.opts.attempts, 5);
    assert.equal(job.key, 'tenant-a');
    assert.equal(job.returnValue, 'ok');
    assert.deepEqual(await queue.getJobLogs('with-opts'), ['half way']);
    await queue.close();
  });

  test('removeOnComplete { count }: the archive and the set together stay at the count', async () => {
    const stream = unique('archive-count');
    const producer = new Producer<Order>(conn, { stream, idempotent: false });
    const w = await run(stream, { removeOnComplete: { count: 200 } });
    await producer.addMany(Array.from({ length: 1500 }, (_, n) => ({ n })));
    await waitFor(() => w.done() === 1500, '1500 completed', 60_000);
    await waitFor(async () => (await archived(stream)) + (await inSet(stream)) === 200, 'kept: 200', 10_000);
    // A second after they finished, the 200 kept are in the archive.
    await waitFor(async () => (await archived(stream)) === 200, 'the 200 archived', 10_000);
    const queue = new Queue<Order>(conn, { stream });
    const kept = await queue.getJobs('completed');
    assert.equal(kept.length, 200);
    assert.ok(kept.every((j) => j.data!.n >= 1500 - 200 - 100), 'the newest are kept');
    assert.equal(Number(await conn.call('GET', jobKeys(stream).archiveBuckets)), 4);
    // The index holds exactly the archived jobs.
    let indexed = 0;
    for (let i = 0; i < 4; i++) indexed += Number(await conn.call('HLEN', jobKeys(stream).archiveIndex(i)));
    assert.equal(indexed, await archived(stream));
    await queue.close();
  });

  test('removeOnComplete { age }: archived jobs older than the age go', async () => {
    const stream = unique('archive-age');
    const producer = new Producer<Order>(conn, { stream, idempotent: false });
    // Records are archived once finished for a second (archive.ts): an age of 3 s leaves them
    // time to get there before it removes them. With 1 s the age and the compaction raced for
    // the same records, and under load the age's pass could take them all first.
    const w = await run(stream, { removeOnComplete: { age: 3 } });
    await producer.addMany(Array.from({ length: 400 }, (_, n) => ({ n })));
    await waitFor(() => w.done() === 400, 'first wave');
    await waitFor(async () => (await archived(stream)) > 0, 'some archived', 10_000);
    await new Promise((r) => setTimeout(r, 3100));
    await producer.addMany(Array.from({ length: 100 }, (_, n) => ({ n: 1000 + n })));
    await waitFor(() => w.done() === 500, 'second wave');
    await waitFor(async () => (await archived(stream)) + (await inSet(stream)) <= 100, 'the first wave removed', 10_000);
    const queue = new Queue<Order>(conn, { stream });
    const left = await queue.getJobs('completed');
    assert.ok(left.length > 0 && left.every((j) => j.data!.n >= 1000), 'only the second wave is left');
    await queue.close();
  });

  test("a flow whose jobs are archived: its root's jobId still makes add idempotent, a taken child id is still refused", async () => {
    const stream = unique('archive-flow');
    const flows = new FlowProducer(conn);
    const w = await run(stream, { removeOnComplete: false }, (n) => n);
    try {
      const tree = (n: number): FlowJob => ({ stream, data: { n }, opts: { jobId: 'root' }, children: [{ stream, data: { n: n + 1 }, opts: { jobId: 'kid' } }] });
      const first = await flows.add(tree(1));
      await waitFor(() => w.done() === 2, 'child and parent completed');
      const link = new WatchLink(conn);
      await compact(conn, link, jobKeys(stream), Infinity, Date.now() + 5000);
      await link.close();
      assert.equal(await archived(stream), 2);
      const before = Number(await conn.call('XINFO', 'STREAM', stream).then((r) => (r as unknown[])[(r as unknown[]).indexOf('entries-added') + 1]));
      assert.deepEqual(await flows.add(tree(5)), first, 'the archived flow, not a new one');
      await assert.rejects(flows.add({ stream, data: { n: 9 }, opts: { jobId: 'root-2' }, children: [{ stream, data: { n: 10 }, opts: { jobId: 'kid' } }] }), (err: unknown) => err instanceof FlowJobIdError && err.jobId === 'kid');
      const after = Number(await conn.call('XINFO', 'STREAM', stream).then((r) => (r as unknown[])[(r as unknown[]).indexOf('entries-added') + 1]));
      assert.equal(after, before, 'nothing was added');
    } finally {
      await flows.close();
    }
  });

  test('a job completed twice is archived once', async () => {
    const stream = unique('archive-twice');
    const keys = jobKeys(stream);
    const now = Date.now();
    const record = (finished: number, result: string, entry: string, attempts: number): string[] => ['HSET', keys.record('twice'), 'state', 'completed', 'data', '{"n":1}', 'added', String(now - 10), 'finished', String(finished), 'result', result, 'attempts', String(attempts), 'entry', entry];
    const link = new WatchLink(conn);
    const queue = new Queue(conn, { stream });
    await conn.pipeline([record(now, '"first"', `${now - 3}-7`, 1), ['ZADD', keys.completed, now, 'twice']]);
    assert.deepEqual(await compact(conn, link, keys, Infinity, now + 2000), { moved: 1, more: false });
    assert.equal((await queue.getJob('twice'))!.entryId, `${now - 3}-7`, 'the entry id, kept as a small integer');
    // Delivered again after a claim, it completes again: a new record and set member.
    await conn.pipeline([record(now + 5, '"second"', `${now + 60_000}-1234`, 2), ['ZADD', keys.completed, now + 5, 'twice']]);
    assert.deepEqual(await compact(conn, link, keys, Infinity, now + 2000), { moved: 1, more: false });
    await link.close();
    assert.equal(await archived(stream), 1);
    const job = (await queue.getJob('twice'))!;
    assert.equal(job.entryId, `${now + 60_000}-1234`, 'an entry id that does not pack is kept as it is');
    assert.equal(job.returnValue, 'second');
    assert.equal(job.finishedAt, now + 5);
    assert.equal((await queue.getJobs('completed')).length, 1);
    await queue.close();
  });
});
