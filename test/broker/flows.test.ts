// Flows on every backend: a tree added in one call (children on other streams, three levels),
// a parent that runs only once its children are done and reads their values, the per-child
// failure policies (fail-parent up the tree, ignore, remove), a report applied twice (a worker
// killed after its EXEC, the child re-claimed) that changes nothing, and the counts / lists of
// the waiting-children state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { FlowJobIdError, type FlowJob, FlowProducer } from '../../src/broker/flows/flow-producer.js';
import { reportToParent } from '../../src/broker/flows/report.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { JobFailedError, Queue } from '../../src/broker/queue.js';
import { serverTimeMs } from '../../src/broker/delayed.js';
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

  test('delayMs and priority in a flow: leaves wait or go by priority; a parent applies its own once its children are done', async () => {
    const s = unique('flow-when');
    const flows = new FlowProducer(conn);
    const addedAt = await serverTimeMs(conn);
    await flows.add({
      stream: s,
      data: 'p',
      opts: { jobId: 'p', delayMs: 300, priority: 5 },
      children: [
        { stream: s, data: 'low', opts: { jobId: 'low', priority: 9 } },
        { stream: s, data: 'high', opts: { jobId: 'high', priority: 1 } },
        { stream: s, data: 'later', opts: { jobId: 'later', delayMs: 400 } },
        { stream: s, data: 'plain', opts: { jobId: 'plain' } },
      ],
    });
    const q = new Queue(conn, { stream: s });
    const states = async (): Promise<Record<string, string | undefined>> =>
      Object.fromEntries(await Promise.all(['p', 'low', 'high', 'later', 'plain'].map(async (id) => [id, (await q.getJob(id))?.state])));
    assert.deepEqual(await states(), { p: 'waiting-children', low: 'prioritized', high: 'prioritized', later: 'delayed', plain: 'waiting' });
    assert.ok(((await q.getJob('later'))?.dueAt ?? 0) >= addedAt + 400, 'the leaf is due 400 ms after the add (server clock)');
    assert.ok(((await q.getJob('later'))?.dueAt ?? Infinity) <= (await serverTimeMs(conn)) + 400);

    // One slot: the order they start in is the order they are taken.
    const ran: Array<{ id: string; at: number }> = [];
    await worker<string>({ stream: s, group: 'g', concurrency: 1, delayed: { pollMs: 50 } }, async (job) => {
      ran.push({ id: job.id, at: await serverTimeMs(conn) });
      return job.payload;
    }).start();
    await waitFor(() => ran.some((r) => r.id === 'p'), 'the parent to run', 10_000);
    const order = ran.map((r) => r.id);
    assert.deepEqual(order, ['plain', 'high', 'low', 'later', 'p'], 'plain entries first, then by priority; the delayed leaf at its time; the parent last');
    assert.ok(ran[3]!.at >= addedAt + 400, `the delayed leaf ran ${ran[3]!.at - addedAt} ms after the add`);
    const later = await q.getJob('later');
    assert.ok(ran[4]!.at >= (later?.finishedAt ?? Infinity) + 300 - 5, `the parent ran ${ran[4]!.at - (later?.finishedAt ?? 0)} ms after its last child finished`);
    assert.equal((await q.getJob('p'))?.priority, 5);
    assert.deepEqual(await q.getChildrenValues('p'), { low: 'low', high: 'high', later: 'later', plain: 'plain' });
    await waitFor(async () => (await q.getJob('p'))?.state === 'completed', 'the parent to complete');
    await q.close();
  });

  test("a root's jobId makes add idempotent: a repeat adds nothing and returns the flow; two racing adds make one; a taken child id is refused", async () => {
    const s = unique('flow-once');
    const flows = new FlowProducer(conn);
    const other = new FlowProducer(conn);
    try {
      const tree = (n: number): FlowJob => ({ stream: s, data: `root-${n}`, opts: { jobId: 'root' }, children: [{ stream: s, data: `kid-${n}` }, { stream: s, data: `kid2-${n}`, opts: { jobId: 'kid2' } }] });
      const [a, b] = await Promise.all([flows.add(tree(1)), other.add(tree(2))]);
      assert.deepEqual(a, b, 'both adds resolve to the one flow');
      assert.equal(Number(await conn.call('XLEN', s)), 2, 'two children entered the stream, once');
      const again = await flows.add(tree(3));
      assert.deepEqual(again, a);
      assert.equal(Number(await conn.call('XLEN', s)), 2);
      const q = new Queue(conn, { stream: s });
      const data = (await q.getJob('root'))?.data;
      assert.ok(data === 'root-1' || data === 'root-2', `the first add's data stays (${String(data)})`);
      await assert.rejects(flows.add({ stream: s, data: 'new', opts: { jobId: 'root-b' }, children: [{ stream: s, data: 'x', opts: { jobId: 'kid2' } }] }), (err: unknown) => err instanceof FlowJobIdError && err.jobId === 'kid2');
      assert.equal(await q.getJob('root-b'), null, 'nothing of the refused flow was written');
      assert.equal(Number(await conn.call('XLEN', s)), 2);
      await q.close();
    } finally {
      await flows.close();
      await other.close();
    }
  });

  test('a flow rejects a bad delayMs or priority before writing anything', async () => {
    const s = unique('flow-bad');
    const flows = new FlowProducer(conn);
    await assert.rejects(flows.add({ stream: s, data: 1, children: [{ stream: s, data: 2, opts: { delayMs: -1 } }] }), /delayMs must be a finite number >= 0/);
    await assert.rejects(flows.add({ stream: s, data: 1, opts: { priority: 1.5 }, children: [{ stream: s, data: 2 }] }), /priority must be an integer/);
    assert.equal(Number(await conn.call('EXISTS', s)), 0);
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
