// Retention bounds on every backend, over many jobs: removeOnComplete's count holds the
// completed set, the records and (acknowledged entries trimmed) the stream to about that count
// however many jobs ran; an age bound removes what finished longer ago; removeOnFail bounds
// the failed set and records; keepAcknowledged keeps the entries but not the records;
// removeOnComplete: false keeps the records (compacted into the archive, jobs/archive.ts)
// but not the acknowledged entries.
//
// The big run is 100,000 jobs on the embedded engine and 10,000 on redis-server and sluice
// server (JOB_RETENTION_JOBS=100000 runs 100,000 everywhere), added with addMany in batches of
// 5,000 (idempotent adds off, to be quick) and run by a trivial handler at concurrency 200. At
// the 2,000 to 8,000 jobs a second this takes on a loaded 2-core machine (one process adding,
// running and checking), 100,000 on every backend would add a minute or more to a suite that
// must stay under 15; the bound the test checks (about the count, never growing with the
// number of jobs) shows as well at 10,000. The other cases use a few thousand jobs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

const jobsOn = (backend: string): number => Number(process.env.JOB_RETENTION_JOBS ?? (backend === 'embedded' ? 100_000 : 10_000));
const BATCH = 5000;

/** Completed jobs kept: in the completed set, or moved to the archive (jobs/archive.ts). */
async function completedKept(conn: Connection, stream: string): Promise<number> {
  const [z, x] = await conn.pipeline([['ZCARD', `${stream}:completed`], ['XLEN', `${stream}:archive`]]);
  return Number(z) + Number(x);
}

/** The records of a stream's jobs: PREFIX:job:ID hashes (log lists aside) and archived ones. */
async function records(conn: Connection, stream: string): Promise<number> {
  return (await hashRecords(conn, stream)) + Number(await conn.call('XLEN', `${stream}:archive`));
}

async function hashRecords(conn: Connection, stream: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = (await conn.call('SCAN', cursor, 'MATCH', `${stream}:job:*`, 'COUNT', 10_000)) as [string, string[]];
    cursor = String(next);
    n += keys.filter((k) => !String(k).endsWith(':logs')).length;
  } while (cursor !== '0');
  return n;
}

async function addJobs(producer: Producer<{ n: number }>, from: number, count: number, options: { attempts?: number } = {}): Promise<void> {
  for (let i = from; i < from + count; i += BATCH) {
    const n = Math.min(BATCH, from + count - i);
    await producer.addMany(Array.from({ length: n }, (_, k) => ({ payload: { n: i + k }, ...options })), { keyed: true });
  }
}

describeEach(backends, (name) => `job retention on ${name}`, (b, name) => {
  const JOBS = jobsOn(name);
  let conn!: Connection;
  const workers: Worker[] = [];
  before(async () => {
    conn = await b.connect();
  });
  after(async () => {
    for (const w of workers) await w.close({ timeoutMs: 1000 });
    await conn?.close();
  });

  function start(options: Omit<WorkerOptions, 'group'>, handler: () => unknown = () => 1): Worker {
    const w = new Worker(conn, { group: 'g', blockMs: 200, concurrency: 200, ...options }, handler);
    w.on('error', () => {});
    workers.push(w as Worker);
    return w;
  }

  test(`removeOnComplete { count: 1000 } over ${JOBS} jobs: completed set, records and stream stay about 1000`, async () => {
    const stream = unique('keep');
    const producer = new Producer<{ n: number }>(conn, { stream, idempotent: false });
    const w = start({ stream, removeOnComplete: { count: 1000 } });
    let done = 0;
    w.on('completed', () => done++);
    const began = Date.now();
    // All added first, then run: on one process, adding while running is slower for both.
    await addJobs(producer, 0, JOBS);
    const added = Date.now();
    await w.start();
    let peak = { zcard: 0, xlen: 0 };
    const sample = async (): Promise<void> => {
      const [z, a, x] = await conn.pipeline([['ZCARD', `${stream}:completed`], ['XLEN', `${stream}:archive`], ['XLEN', stream]]);
      peak = { zcard: Math.max(peak.zcard, Number(z) + Number(a)), xlen: Math.max(peak.xlen, Number(x)) };
    };
    const sampler = setInterval(() => void sample().catch(() => {}), 100);
    try {
      await waitFor(() => done === JOBS, `${JOBS} completed`, 120_000, 50);
    } finally {
      clearInterval(sampler);
    }
    const ms = Date.now() - began;
    // The last pass runs within the retention interval (1 s) of the last completion.
    await waitFor(async () => (await completedKept(conn, stream)) === 1000, 'the completed jobs at 1000', 5000);
    await waitFor(async () => (await records(conn, stream)) === 1000, 'the records at 1000', 5000);
    await waitFor(async () => Number(await conn.call('XLEN', stream)) <= 1000, 'the stream trimmed to 1000', 5000);
    const [pending] = (await conn.call('XPENDING', stream, 'g')) as Value[];
    assert.equal(Number(pending), 0);
    // The newest 1000 are kept: the last job added is among them, an early one is not.
    const queue = new Queue<{ n: number }>(conn, { stream });
    const newest = await queue.getJobs('completed', 0, 0);
    assert.equal(newest.length, 1);
    assert.equal(newest[0]!.state, 'completed');
    assert.ok(newest[0]!.data!.n >= JOBS - 1000 - 200, `newest kept is job ${newest[0]!.data!.n}`);
    assert.equal((await queue.getJobCounts()).completed, 1000);
    // During the run too, bounded by the count plus what finishes between two passes, not by
    // JOBS. (XLEN peaks at the backlog: entries not yet read are never trimmed.)
    process.stdout.write(`# ${name}: ${JOBS} jobs added in ${added - began} ms, run in ${ms - (added - began)} ms; peak completed set ${peak.zcard}, peak XLEN ${peak.xlen}\n`);
    // A pass runs once half the count has finished since the last: a few passes' worth over.
    assert.ok(peak.zcard <= 5000, `completed set peaked at ${peak.zcard}`);
  });

  test('removeOnComplete { age }: jobs finished longer ago than age are removed', async () => {
    const stream = unique('age');
    const producer = new Producer<{ n: number }>(conn, { stream, idempotent: false });
    const w = start({ stream, removeOnComplete: { age: 1 } });
    let done = 0;
    w.on('completed', () => done++);
    await w.start();
    await addJobs(producer, 0, 2000);
    await waitFor(() => done === 2000, 'the first wave');
    const firstWaveDone = Date.now();
    await waitFor(() => Date.now() - firstWaveDone > 1100, 'a second to pass', 5000); // the age bound itself
    await addJobs(producer, 2000, 500);
    await waitFor(() => done === 2500, 'the second wave');
    await waitFor(async () => (await completedKept(conn, stream)) <= 500, 'the first wave removed', 5000);
    const queue = new Queue<{ n: number }>(conn, { stream });
    const left = await queue.getJobs('completed');
    assert.ok(left.length > 0 && left.every((j) => j.data!.n >= 2000), 'only the second wave is left');
    assert.equal(await records(conn, stream), left.length);
  });

  test('removeOnFail { count: 100 }: the failed set and records stay at 100; dead letters all kept', async () => {
    const stream = unique('fail');
    const producer = new Producer<{ n: number }>(conn, { stream, idempotent: false });
    const w = start({ stream, removeOnFail: { count: 100 } }, () => {
      throw new Error('no');
    });
    let dead = 0;
    w.on('deadLettered', () => dead++);
    await w.start();
    await addJobs(producer, 0, 3000, { attempts: 1 });
    await waitFor(() => dead === 3000, '3000 dead-lettered', 60_000);
    await waitFor(async () => Number(await conn.call('ZCARD', `${stream}:failed`)) === 100, 'the failed set at 100', 5000);
    await waitFor(async () => (await records(conn, stream)) === 100, 'the records at 100', 5000);
    assert.equal(Number(await conn.call('XLEN', `${stream}:dead`)), 3000);
    const queue = new Queue<{ n: number }>(conn, { stream });
    const kept = await queue.getJobs('failed');
    assert.equal(kept.length, 100);
    assert.ok(kept.every((j) => j.failedReason === 'no' && j.data!.n >= 3000 - 100 - 200));
  });

  test('keepAcknowledged: the stream keeps every entry, the records are still bounded', async () => {
    const stream = unique('history');
    const producer = new Producer<{ n: number }>(conn, { stream, idempotent: false });
    const w = start({ stream, removeOnComplete: 100, keepAcknowledged: true });
    let done = 0;
    w.on('completed', () => done++);
    await w.start();
    await addJobs(producer, 0, 3000);
    await waitFor(() => done === 3000, '3000 completed', 60_000);
    await waitFor(async () => (await records(conn, stream)) === 100, 'the records at 100', 5000);
    assert.equal(Number(await conn.call('XLEN', stream)), 3000);
  });

  test('removeOnComplete: false keeps every record; the acknowledged entries are trimmed all the same', async () => {
    const stream = unique('keepall');
    const producer = new Producer<{ n: number }>(conn, { stream, idempotent: false });
    const w = start({ stream, removeOnComplete: false });
    let done = 0;
    w.on('completed', () => done++);
    await w.start();
    await addJobs(producer, 0, 3000);
    await waitFor(() => done === 3000, '3000 completed', 60_000);
    await waitFor(async () => Number(await conn.call('XLEN', stream)) === 0, 'every acknowledged entry trimmed', 10_000);
    assert.equal(await records(conn, stream), 3000);
    assert.equal(await completedKept(conn, stream), 3000);
    // Kept without a bound, they are kept compact: all of them in the archive after a pass.
    await waitFor(async () => (await hashRecords(conn, stream)) === 0, 'every record archived', 10_000);
    assert.equal(Number(await conn.call('XLEN', `${stream}:archive`)), 3000);
  });
});
