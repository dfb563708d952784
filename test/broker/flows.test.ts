// Flows on every backend: a tree added in one call (children on other streams, three levels),
// a parent that runs only once its children are done and reads their values, the per-child
// failure policies (fail-parent up the tree, ignore, remove), a report applied twice (a worker
// killed after its EXEC, the child re-claimed) that changes nothing, and the counts / lists of
// the waiting-children state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { FlowProducer } from '../../src/broker/flows/flow-producer.js';
import { reportToParent } from '../../src/broker/flows/report.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { JobFailedError, Queue } from '../../src/broker/queue.js';
import { backends, deferred, describeEach, useWorkers } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

describeEach(backends, (name) => `flows on ${name}`, (b) => {
  let conn!: Connection;
  const { worker } = useWorkers(b, (c) => (conn = c));

  test('a three-level tree over two streams: each parent runs after its children, with their values', async () => {
    const tag = unique('flow');
    const orders = `${tag}orders`;
    const parts = `${tag}parts`;
    const flows = new FlowProducer(conn);
    const gate = deferred();
    const ran: string[] = [];
    const node = await flows.add({
      stream: orders,
      data: { order: 1 },
      opts: { jobId: 'order-1' },
      children: [
        { stream: parts, data: { part: 'wheel' }, opts: { jobId: 'wheel' } },
        {
          stream: orders,
          data: { sub: 'frame' },
          opts: { jobId: 'frame' },
          children: [
            { stream: parts, data: { part: 'tube' }, opts: { jobId: 'tube' } },
            { stream: parts, data: { part: 'bolt' }, opts: { jobId: 'bolt' } },
          ],
        },
      ],
    });
    assert.deepEqual(
      node,
      { id: 'order-1', stream: orders, children: [{ id: 'wheel', stream: parts, children: [] }, { id: 'frame', stream: orders, children: [{ id: 'tube', stream: parts, children: [] }, { id: 'bolt', stream: parts, children: [] }] }] },
    );
    const qo = new Queue(conn, { stream: orders });
    const qp = new Queue(conn, { stream: parts });
    assert.equal((await qo.getJob('order-1'))?.state, 'waiting-children');
    assert.equal((await qo.getJob('frame'))?.state, 'waiting-children');
    assert.equal((await qp.getJob('tube'))?.state, 'waiting');
    assert.equal((await qo.getJobCounts())['waiting-children'], 2);
    assert.deepEqual((await qo.getJobs('waiting-children')).map((j) => j.id).sort(), ['frame', 'order-1']);

    const seenAtStart = new Map<string, Record<string, unknown>>();
    await worker<{ part: string }>({ stream: parts, group: 'g' }, async (job) => {
      await gate.promise;
      ran.push(job.id);
      return `${job.payload.part}!`;
    }).start();
    await worker({ stream: orders, group: 'g' }, async (job) => {
      ran.push(job.id);
      seenAtStart.set(job.id, await job.getChildrenValues());
      return job.id === 'frame' ? 'frame done' : { total: 3 };
    }).start();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ran.length, 0, 'no parent runs while its children wait');
    gate.resolve();
    assert.deepEqual(await qo.waitUntilFinished('order-1', 20_000), { total: 3 });
    assert.ok(ran.indexOf('frame') > ran.indexOf('tube') && ran.indexOf('frame') > ran.indexOf('bolt'), ran.join(' '));
    assert.ok(ran.indexOf('order-1') > ran.indexOf('frame') && ran.indexOf('order-1') > ran.indexOf('wheel'), ran.join(' '));
    assert.deepEqual(seenAtStart.get('frame'), { tube: 'tube!', bolt: 'bolt!' });
    assert.deepEqual(seenAtStart.get('order-1'), { wheel: 'wheel!', frame: 'frame done' });
    assert.deepEqual(await qo.getChildrenValues('order-1'), { wheel: 'wheel!', frame: 'frame done' });
    assert.equal((await qo.getJobCounts())['waiting-children'], 0);

    const tree = await flows.getFlow({ stream: orders, id: 'order-1' });
    assert.equal(tree?.state, 'completed');
    assert.deepEqual(tree?.children.map((c) => [c.id, c.state, c.children.map((g) => `${g.id}:${g.state}`)]), [['wheel', 'completed', []], ['frame', 'completed', ['tube:completed', 'bolt:completed']]]);
    await qo.close();
    await qp.close();
  });

  test("onFailure 'fail-parent' (the default) fails the parent and its parent, naming the child; the rest run on", async () => {
    const s = unique('failp');
    const flows = new FlowProducer(conn);
    await flows.add({
      stream: s,
      data: 'root',
      opts: { jobId: 'root' },
      children: [{ stream: s, data: 'mid', opts: { jobId: 'mid' }, children: [{ stream: s, data: 'bad', opts: { jobId: 'bad', attempts: 2, backoff: 10 } }, { stream: s, data: 'ok', opts: { jobId: 'ok' } }] }],
    });
    const ran: string[] = [];
    await worker<string>({ stream: s, group: 'g' }, (job) => {
      ran.push(job.id);
      if (job.payload === 'bad') throw new Error('boom');
      return job.payload;
    }).start();
    const q = new Queue(conn, { stream: s });
    await assert.rejects(q.waitUntilFinished('root', 20_000), (err: unknown) => {
      assert.ok(err instanceof JobFailedError);
      assert.match(err.failedReason, /child .* mid failed: child .* bad failed: boom/);
      return true;
    });
    const mid = await q.getJob('mid');
    assert.equal(mid?.state, 'failed');
    assert.match(mid?.failedReason ?? '', /bad failed: boom/);
    await waitFor(async () => (await q.getJob('ok'))?.state === 'completed', 'the sibling completes');
    assert.ok(!ran.includes('mid') && !ran.includes('root'), ran.join(' '));
    assert.equal((await q.getJobCounts())['waiting-children'], 0);
    assert.equal((await q.getJobCounts()).failed, 3);
    await q.close();
  });

  test("onFailure 'ignore' and 'remove': the parent runs on, without their values; ignored failures are kept", async () => {
    const s = unique('ign');
    const flows = new FlowProducer(conn);
    await flows.add({
      stream: s,
      data: 'p',
      opts: { jobId: 'p' },
      children: [
        { stream: s, data: 'bad1', opts: { jobId: 'c1', attempts: 1, onFailure: 'ignore' } },
        { stream: s, data: 'bad2', opts: { jobId: 'c2', attempts: 1, onFailure: 'remove' } },
        { stream: s, data: 'good', opts: { jobId: 'c3', onFailure: 'ignore' } },
      ],
    });
    let values: Record<string, unknown> | undefined;
    await worker<string>({ stream: s, group: 'g' }, async (job) => {
      if (job.payload.startsWith('bad')) throw new Error(`no ${job.payload}`);
      if (job.id === 'p') values = await job.getChildrenValues();
      return job.payload.toUpperCase();
    }).start();
    const q = new Queue(conn, { stream: s });
    assert.equal(await q.waitUntilFinished('p', 20_000), 'P');
    assert.deepEqual(values, { c3: 'GOOD' });
    assert.deepEqual(await q.getIgnoredFailures('p'), { c1: 'no bad1' });
    assert.equal((await q.getJob('c1'))?.state, 'failed');
    assert.equal((await q.getJob('c2'))?.state, 'failed');
    await q.close();
  });

  test('a report applied twice (its worker died after the EXEC, the child ran again) changes nothing', async () => {
    const s = unique('twice');
    const flows = new FlowProducer(conn);
    await flows.add({ stream: s, data: 'p', opts: { jobId: 'p' }, children: [{ stream: s, data: 'a', opts: { jobId: 'a' } }, { stream: s, data: 'b', opts: { jobId: 'b' } }] });
    const link = await conn.duplicate();
    try {
      const child = { stream: s, id: 'a' };
      const parent = { stream: s, id: 'p', onFailure: 'fail-parent' as const };
      await reportToParent(link, child, parent, { ok: true, value: '"A"' }, [], 100);
      await reportToParent(link, child, parent, { ok: true, value: '"A2"' }, [], 100);
      await reportToParent(link, child, parent, { ok: false, reason: 'late' }, [], 100);
      const keys = jobKeys(s);
      assert.equal(Number(await conn.call('SCARD', keys.dependencies('p'))), 1);
      assert.equal(await conn.call('XLEN', s), 2); // the two children; the parent not yet
      const q = new Queue(conn, { stream: s });
      assert.equal((await q.getJob('p'))?.state, 'waiting-children');
      assert.deepEqual(await q.getChildrenValues('p'), { a: 'A' });
      await reportToParent(link, { stream: s, id: 'b' }, parent, { ok: true, value: '"B"' }, [], 100);
      await reportToParent(link, { stream: s, id: 'b' }, parent, { ok: true, value: '"B"' }, [], 100);
      assert.equal(await conn.call('XLEN', s), 3); // the parent, once
      assert.equal((await q.getJob('p'))?.state, 'waiting');
      await q.close();
    } finally {
      await link.close();
    }
  });
});
