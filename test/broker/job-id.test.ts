// Job ids and deduplication on every backend (jobs/unique-adds.ts): a second add with a jobId
// (or idempotencyKey) returns the existing job and writes nothing; two producer processes
// racing on the same ids make one job per id; `deduplication` holds an id until the job
// finishes or for a ttl, `extend` renews the ttl, `replace` swaps a delayed job's data.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Connection, Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { delayedKey } from '../../src/broker/delayed.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor, within } from '../support/wait.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'job-id-producer-process.js');

async function events(conn: Connection, stream: string, name: string): Promise<string[]> {
  const rows = (await conn.call('XRANGE', jobKeys(stream).events, '-', '+')) as Array<[string, string[]]>;
  return rows.filter(([, f]) => f[f.indexOf('event') + 1] === name).map(([, f]) => f[f.indexOf('jobId') + 1]!);
}

function startProducer(url: string, stream: string, n: number): Promise<{ go(): void; ids: Promise<string[]> }> {
  const child = spawn(process.execPath, [SCRIPT, url, stream, String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolveReady, rejectReady) => {
    let resolveIds!: (ids: string[]) => void;
    let rejectIds!: (err: Error) => void;
    const ids = new Promise<string[]>((res, rej) => ((resolveIds = res), (rejectIds = rej)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('ready\n')) resolveReady({ go: () => child.stdin!.write('go\n'), ids });
      const lines = out.split('\n');
      if (lines.length > 2 && lines[1]!.startsWith('[')) resolveIds(JSON.parse(lines[1]!) as string[]);
    });
    child.on('exit', (code) => {
      rejectReady(new Error(`producer exited ${code}`));
      rejectIds(new Error(`producer exited ${code} before printing its ids`));
    });
  });
}

describeEach(backends, (name) => `job ids and deduplication on ${name}`, (b, name) => {
  let conn!: Connection;
  before(async () => (conn = await b.connect()));
  after(() => conn.close());

  test('a second add with the same jobId returns the existing job and writes nothing', async () => {
    const stream = unique('jobid');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    assert.equal(await producer.add({ v: 1 }, { jobId: 'order-1' }), 'order-1');
    assert.equal(await producer.add({ v: 2 }, { jobId: 'order-1' }), 'order-1');
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    assert.deepEqual((await queue.getJob('order-1'))?.data, { v: 1 }, 'the record is untouched');
    assert.deepEqual(await events(conn, stream, 'added'), ['order-1']);
    // idempotencyKey is the job id for jobs: no second entry either (it used to add one on Redis 7)
    assert.equal(await producer.add({ v: 3 }, { idempotencyKey: 'order-2' }), 'order-2');
    assert.equal(await producer.add({ v: 4 }, { idempotencyKey: 'order-2' }), 'order-2');
    // delayed, and a delayed id added again without delay
    assert.equal(await producer.add({ v: 5 }, { jobId: 'later', delayMs: 60_000 }), 'later');
    assert.equal(await producer.add({ v: 6 }, { jobId: 'later' }), 'later');
    assert.equal(Number(await conn.call('XLEN', stream)), 2);
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 1);
    assert.equal((await queue.getJob('later'))?.state, 'delayed');
    await producer.close();
  });

  test('addMany with jobIds: duplicates in the batch and with existing jobs are added once', async () => {
    const stream = unique('jobid-many');
    const producer = new Producer(conn, { stream });
    await producer.add({ v: 0 }, { jobId: 'a' });
    const ids = await producer.addMany(
      [
        { payload: { v: 1 }, jobId: 'a' },
        { payload: { v: 2 }, jobId: 'b' },
        { payload: { v: 3 }, jobId: 'b' },
        { payload: { v: 4 } },
        { payload: { v: 5 }, jobId: 'c', delayMs: 60_000 },
      ],
      { keyed: true },
    );
    assert.deepEqual(ids.filter((_, i) => i !== 3), ['a', 'b', 'b', 'c']);
    assert.equal(Number(await conn.call('XLEN', stream)), 3, 'a, b and the random one');
    const queue = new Queue(conn, { stream });
    assert.deepEqual((await queue.getJob('b'))?.data, { v: 2 });
    assert.equal(await producer.add({ v: 6 }, { jobId: 'c' }), 'c');
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 1);
    await producer.close();
  });

  test('two producers racing on the same ids make one job per id', async () => {
    const stream = unique('jobid-race');
    const n = 200;
    let ids: string[][];
    if (b.url === undefined) {
      // the embedded engine lives in this process: two Producers on connections of their own
      const [c1, c2] = [await b.connect(), await b.connect()];
      const add = (c: Connection): Promise<string[]> => {
        const p = new Producer(c, { stream });
        return Promise.all([
          Promise.all(Array.from({ length: n / 2 }, (_, i) => p.add({ i }, { jobId: `race-${i}` }))),
          p.addMany(Array.from({ length: n / 2 }, (_, j) => ({ payload: { i: n / 2 + j }, jobId: `race-${n / 2 + j}` })), { keyed: true }),
        ]).then(async ([x, y]) => {
          await p.close();
          return [...x, ...y];
        });
      };
      ids = await Promise.all([add(c1), add(c2)]);
    } else {
      const [p1, p2] = await Promise.all([startProducer(b.url, stream, n), startProducer(b.url, stream, n)]);
      p1.go();
      p2.go();
      ids = await within(Promise.all([p1.ids, p2.ids]), 'both producers added');
    }
    const expected = Array.from({ length: n }, (_, i) => `race-${i}`);
    assert.deepEqual(ids[0], expected);
    assert.deepEqual(ids[1], expected);
    const rows = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
    const jobIds = rows.map(([, f]) => f[f.indexOf('job-id') + 1]!).filter((id) => id.startsWith('race-'));
    assert.equal(jobIds.length, n, 'one entry per id');
    assert.equal(new Set(jobIds).size, n);
    assert.equal((await events(conn, stream, 'added')).filter((id) => id.startsWith('race-')).length, n, 'one added event per id');
  });

  test('deduplication without ttl: held until the job finishes, then a new job can take the id', async () => {
    const stream = unique('dedup');
    const producer = new Producer(conn, { stream });
    const first = await producer.add({ v: 1 }, { deduplication: { id: 'report' } });
    assert.equal(await producer.add({ v: 2 }, { deduplication: { id: 'report' } }), first);
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    const queue = new Queue(conn, { stream });
    const worker = new Worker(conn, { stream, group: 'g', blockMs: 50 }, async (job) => job.payload);
    await worker.start();
    const run = worker.run();
    assert.deepEqual(await queue.waitUntilFinished(first, 20_000), { v: 1 });
    await waitFor(async () => (await conn.call('EXISTS', jobKeys(stream).dedup('report'))) === 0, 'the id released with the completion');
    const second = await producer.add({ v: 3 }, { deduplication: { id: 'report' } });
    assert.notEqual(second, first);
    assert.deepEqual(await queue.waitUntilFinished(second, 20_000), { v: 3 });
    await worker.close();
    await run;
    await producer.close();
    await queue.close();
  });

  test('deduplication with ttl holds the id for the ttl; extend renews it', async () => {
    const stream = unique('dedup-ttl');
    const producer = new Producer(conn, { stream });
    const key = jobKeys(stream).dedup('t');
    const first = await producer.add({ v: 1 }, { deduplication: { id: 't', ttl: 60_000 } });
    const ttl1 = Number(await conn.call('PTTL', key));
    assert.ok(ttl1 > 0 && ttl1 <= 60_000, `ttl ${ttl1}`);
    assert.equal(await producer.add({ v: 2 }, { deduplication: { id: 't', ttl: 60_000 } }), first);
    // extend: the ttl is set again (to the new ttl given)
    assert.equal(await producer.add({ v: 3 }, { deduplication: { id: 't', ttl: 600_000, extend: true } }), first);
    assert.ok(Number(await conn.call('PTTL', key)) > 60_000, 'extended');
    // a short ttl runs out: the next add is a new job
    const s = await producer.add({ v: 4 }, { deduplication: { id: 'short', ttl: 50 } });
    await waitFor(async () => (await conn.call('EXISTS', jobKeys(stream).dedup('short'))) === 0, 'the ttl ran out');
    assert.notEqual(await producer.add({ v: 5 }, { deduplication: { id: 'short', ttl: 50 } }), s);
    assert.equal(Number(await conn.call('XLEN', stream)), 3);
    await assert.rejects(producer.add({}, { deduplication: { id: 'x', extend: true } }), /extend needs a ttl/);
    await producer.close();
  });

  test('deduplication replace (debounce): the delayed job gets the newest data and due time, once', async () => {
    const stream = unique('debounce');
    const producer = new Producer(conn, { stream });
    const queue = new Queue(conn, { stream });
    const id = await producer.add({ v: 1 }, { delayMs: 60_000, deduplication: { id: 'd', replace: true } });
    assert.equal(await producer.add({ v: 2 }, { delayMs: 120_000, deduplication: { id: 'd', replace: true } }), id);
    const [x, y] = await producer.addMany(
      [
        { payload: { v: 3 }, delayMs: 90_000, deduplication: { id: 'd', replace: true } },
        { payload: { v: 4 }, delayMs: 100_000, deduplication: { id: 'd', replace: true } },
      ],
      { keyed: true },
    );
    assert.deepEqual([x, y], [id, id]);
    const members = (await conn.call('ZRANGE', delayedKey(stream), 0, -1, 'WITHSCORES')) as Value[];
    assert.equal(members.length, 2, 'one delayed member');
    const job = await queue.getJob(id);
    assert.deepEqual(job?.data, { v: 4 });
    assert.equal(job?.state, 'delayed');
    assert.equal(job?.dueAt, Number(members[1]));
    assert.ok(String(members[0]).includes('"v\\":4') || String(members[0]).includes('{\\"v\\":4}'), String(members[0]));
    // a job no longer delayed (waiting here) is not replaced: the add returns it, changes nothing
    const waiting = await producer.add({ v: 5 }, { deduplication: { id: 'w', replace: true } });
    assert.equal(await producer.add({ v: 6 }, { delayMs: 1000, deduplication: { id: 'w', replace: true } }), waiting);
    assert.deepEqual((await queue.getJob(waiting))?.data, { v: 5 });
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 1);
    await producer.close();
  });
});
