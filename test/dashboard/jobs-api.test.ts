// The job view's JSON API on every backend (embedded, sluice server, redis-server): the
// dashboard's handler served over HTTP in front of jobs a real Producer and Worker made
// (seed-jobs.ts). Discovery folds the jobs' events stream into its queue; lists by state with
// counts and paging; a job's detail with its logs, events and timeline; search by id; the
// retry / remove / promote actions (Queue.retryJob / remove / promote) and their refusals.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { dashboardHandler, type DashboardHandler } from '../../src/dashboard/handler.js';
import { backends, describeEach } from '../broker/backends.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { waitFor } from '../support/wait.js';
import { compact } from '../../src/broker/jobs/archive.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { WatchLink } from '../../src/broker/jobs/watch-link.js';
import { apiGet, apiPost } from './helpers.js';
import { LATER, seedJobs, SHOP, type SeededJobs } from './seed-jobs.js';

interface JobJson {
  id: string;
  stream: string;
  state: string;
  data?: unknown;
  opts: Record<string, unknown>;
  attemptsMade: number;
  addedAt: number;
  dueAt?: number;
  startedAt?: number;
  finishedAt?: number;
  returnValue?: unknown;
  failedReason?: string;
  stacktrace?: string;
  progress?: unknown;
  consumer?: string;
}
interface ListJson {
  stream: string;
  state: string;
  counts: Record<string, number>;
  start: number;
  items: JobJson[];
  more: boolean;
}
interface DetailJson {
  job: JobJson;
  logs: string[];
  eventsStream: string;
  events: Array<{ id: string; event: string; fields: Record<string, string> }>;
  eventsTruncated: boolean;
  timeline: Array<{ at: number; what: string; eventId?: string }>;
}

describeEach(backends, (name) => `dashboard job view API on ${name}`, (backend) => {
  let conn: Connection;
  let handler: DashboardHandler;
  let server: Server;
  let base: string;
  let jobs: SeededJobs;
  const get = <T>(path: string) => apiGet<T>(base, path);
  const post = <T>(path: string, body: unknown = {}) => apiPost<T>(base, path, body);
  interface ActionJson {
    id: string;
    stream: string;
    action: string;
    state: string | null;
    error?: string;
  }

  before(async () => {
    conn = await backend.connect();
    await conn.call('FLUSHALL');
    jobs = await seedJobs(conn);
    await conn.call('XADD', 'plain', '*', 'payload', '{"n":1}');
    handler = dashboardHandler(conn, { sampleIntervalMs: 200 });
    server = createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    handler.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await conn.close();
  });

  test('the jobs events streams are not listed as streams; a queue known only by its events is offered to the job view', async () => {
    // They are streams, and SCAN TYPE stream finds them:
    assert.ok(Number(await conn.call('XLEN', `{${SHOP}}:events`)) > 0);
    assert.ok(Number(await conn.call('XLEN', `{${LATER}}:events`)) > 0);
    assert.equal(Number(await conn.call('EXISTS', LATER)), 0);
    const streams = await get<Array<{ name: string }>>('streams');
    assert.equal(streams.status, 200);
    assert.deepEqual(streams.body.map((s) => s.name), ['plain', SHOP]);
    const offered = await get<{ streams: string[]; truncated: boolean }>('jobs');
    assert.deepEqual(offered.body, { streams: [LATER, 'plain', SHOP], truncated: false });
  });

  test('lists jobs by state with the counts of every state', async () => {
    const failed = await get<ListJson>(`streams/${SHOP}/jobs?state=failed`);
    assert.equal(failed.status, 200);
    assert.deepEqual(failed.body.counts, { delayed: 1, prioritized: 0, 'waiting-children': 0, waiting: 2, active: 0, retrying: 0, completed: 1, failed: 1 });
    assert.deepEqual(failed.body.items.map((j) => [j.id, j.state, j.failedReason, j.attemptsMade]), [[jobs.failed, 'failed', 'out of boxes', 1]]);
    assert.equal(failed.body.items[0]!.stacktrace, undefined, 'the list leaves stacks to the detail');
    const completed = await get<ListJson>(`streams/${SHOP}/jobs?state=completed`);
    assert.deepEqual(completed.body.items.map((j) => [j.id, j.returnValue, j.progress]), [[jobs.completed, { total: 12 }, 50]]);
    const delayed = await get<ListJson>(`streams/${SHOP}/jobs?state=delayed`);
    assert.deepEqual(delayed.body.items.map((j) => [j.id, j.data]), [[jobs.delayed, { sku: 'jam', qty: 1 }]]);
    assert.ok(delayed.body.items[0]!.dueAt! > Date.now() + 3_000_000);
    const later = await get<ListJson>(`streams/${LATER}/jobs?state=delayed`);
    assert.deepEqual(later.body.items.map((j) => j.id), [jobs.laterDelayed]);
    assert.equal(later.body.counts['delayed'], 1);
  });

  test('pages a state with start and count; the default state is waiting', async () => {
    const all = await get<ListJson>(`streams/${SHOP}/jobs`);
    assert.deepEqual([all.body.state, all.body.items.map((j) => j.id), all.body.more], ['waiting', jobs.waiting, false]);
    const first = await get<ListJson>(`streams/${SHOP}/jobs?state=waiting&count=1`);
    assert.deepEqual([first.body.items.map((j) => j.id), first.body.more], [[jobs.waiting[0]], true]);
    const second = await get<ListJson>(`streams/${SHOP}/jobs?state=waiting&count=1&start=1`);
    assert.deepEqual([second.body.items.map((j) => j.id), second.body.more, second.body.start], [[jobs.waiting[1]], false, 1]);
  });

  test('refuses a bad state, start or count, and asks for a group when the stream has several', async () => {
    assert.equal((await get(`streams/${SHOP}/jobs?state=done`)).status, 400);
    assert.equal((await get(`streams/${SHOP}/jobs?start=-1`)).status, 400);
    assert.equal((await get(`streams/${SHOP}/jobs?count=0`)).status, 400);
    await conn.call('XGROUP', 'CREATE', SHOP, 'auditors', '0');
    try {
      const ambiguous = await get<{ error: string }>(`streams/${SHOP}/jobs?state=waiting`);
      assert.equal(ambiguous.status, 400);
      assert.match(ambiguous.body.error, /2 consumer groups.*group=NAME/);
      // auditors has read nothing, but a job's state is its record's: two waiting.
      const auditors = await get<ListJson>(`streams/${SHOP}/jobs?state=waiting&group=auditors`);
      assert.deepEqual(auditors.body.items.map((j) => j.id), jobs.waiting);
      const packers = await get<ListJson>(`streams/${SHOP}/jobs?state=waiting&group=packers`);
      assert.deepEqual(packers.body.items.map((j) => j.id), jobs.waiting);
      assert.equal((await get(`streams/${SHOP}/jobs?group=nobody`)).status, 404);
    } finally {
      await conn.call('XGROUP', 'DESTROY', SHOP, 'auditors');
    }
  });

  test("a completed job's detail: data, options, return value, progress, logs, events and timeline", async () => {
    const { status, body } = await get<DetailJson>(`streams/${SHOP}/jobs/${jobs.completed}`);
    assert.equal(status, 200);
    assert.equal(body.job.state, 'completed');
    assert.deepEqual(body.job.data, { sku: 'tea', qty: 3 });
    assert.deepEqual(body.job.opts, {});
    assert.deepEqual([body.job.returnValue, body.job.progress, body.job.attemptsMade, body.job.consumer], [{ total: 12 }, 50, 1, 'packer-1']);
    assert.deepEqual(body.logs, ['packing 3 x tea']);
    assert.equal(body.eventsStream, `{${SHOP}}:events`);
    assert.deepEqual(body.events.map((e) => e.event), ['added', 'active', 'progress', 'completed']);
    assert.deepEqual(body.events[3]!.fields['returnvalue'], '{"total":12}');
    assert.equal(body.eventsTruncated, false);
    const ats = body.timeline.map((s) => s.at);
    assert.deepEqual(ats, [...ats].sort((a, b) => a - b));
    assert.ok(['added', 'last started', 'finished', 'event completed'].every((w) => body.timeline.some((s) => s.what === w)), JSON.stringify(body.timeline));
    assert.ok(body.job.addedAt <= body.job.startedAt! && body.job.startedAt! <= body.job.finishedAt!);
  });

  test('a completed job moved to the archive (jobs/archive.ts): the same detail, and search finds it', async () => {
    const link = new WatchLink(conn);
    await compact(conn, link, jobKeys(SHOP), Infinity, Date.now() + 5000);
    await link.close();
    assert.equal(Number(await conn.call('EXISTS', jobKeys(SHOP).record(jobs.completed))), 0, 'archived');
    const { status, body } = await get<DetailJson>(`streams/${SHOP}/jobs/${jobs.completed}`);
    assert.equal(status, 200);
    assert.equal(body.job.state, 'completed');
    assert.deepEqual(body.job.data, { sku: 'tea', qty: 3 });
    assert.deepEqual([body.job.returnValue, body.job.progress, body.job.attemptsMade, body.job.consumer], [{ total: 12 }, 50, 1, 'packer-1']);
    assert.deepEqual(body.logs, ['packing 3 x tea']);
    assert.ok(body.job.addedAt <= body.job.startedAt! && body.job.startedAt! <= body.job.finishedAt!);
    const found = await get<{ matches: unknown[] }>(`jobs/${jobs.completed}`);
    assert.deepEqual(found.body.matches, [{ stream: SHOP, state: 'completed' }]);
    const list = await get<ListJson>(`streams/${SHOP}/jobs?state=completed`);
    assert.deepEqual([list.body.counts['completed'], list.body.items.map((j) => j.id)], [1, [jobs.completed]]);
  });

  test("a failed job's detail has the error and its stack; unknown ids are 404", async () => {
    const { body } = await get<DetailJson>(`streams/${SHOP}/jobs/${jobs.failed}`);
    assert.equal(body.job.state, 'failed');
    assert.equal(body.job.failedReason, 'out of boxes');
    assert.match(body.job.stacktrace!, /^Error: out of boxes\n\s+at /);
    assert.deepEqual(body.job.opts, { attempts: 1 });
    assert.ok(body.events.some((e) => e.event === 'deadLettered' && e.fields['failedReason'] === 'out of boxes'), JSON.stringify(body.events));
    const missing = await get<{ error: string }>(`streams/${SHOP}/jobs/no-such-job`);
    assert.equal(missing.status, 404);
    assert.match(missing.body.error, /no job no-such-job in shop/);
    assert.equal((await get(`streams/plain/jobs/${jobs.failed}`)).status, 404);
  });

  test('search finds a job by id in whichever stream holds it', async () => {
    const found = await get<{ id: string; matches: Array<{ stream: string; state: string }>; searched: number }>(`jobs/${jobs.delayed}`);
    assert.deepEqual(found.body, { id: jobs.delayed, matches: [{ stream: SHOP, state: 'delayed' }], searched: 3 });
    const later = await get<{ matches: unknown[] }>(`jobs/${jobs.laterDelayed}`);
    assert.deepEqual(later.body.matches, [{ stream: LATER, state: 'delayed' }]);
    const none = await get<{ matches: unknown[] }>(`jobs/${encodeURIComponent('no such/job')}`);
    assert.deepEqual([none.status, none.body.matches], [200, []]);
  });

  test('retry runs a failed job again; promote moves a delayed one in; the wrong state is 409', async () => {
    const notFailed = await post<ActionJson>(`streams/${SHOP}/jobs/${jobs.completed}/retry`);
    assert.equal(notFailed.status, 409);
    assert.match(notFailed.body.error!, /is completed, not failed/);
    const retried = await post<ActionJson>(`streams/${SHOP}/jobs/${jobs.failed}/retry`);
    assert.deepEqual([retried.status, retried.body], [200, { id: jobs.failed, stream: SHOP, action: 'retry', state: 'waiting' }]);
    const waiting = await get<ListJson>(`streams/${SHOP}/jobs?state=waiting`);
    assert.deepEqual(waiting.body.items.map((j) => j.id), [...jobs.waiting, jobs.failed]);
    assert.equal(waiting.body.counts['failed'], 0);

    assert.equal((await post(`streams/${SHOP}/jobs/${jobs.completed}/promote`)).status, 409);
    const promoted = await post<ActionJson>(`streams/${SHOP}/jobs/${jobs.delayed}/promote`);
    assert.deepEqual([promoted.status, promoted.body.state], [200, 'waiting']);
    const events = (await get<DetailJson>(`streams/${SHOP}/jobs/${jobs.delayed}`)).body.events.map((e) => e.event);
    assert.deepEqual(events.slice(-2), ['promoted', 'waiting']);
    assert.equal((await post(`streams/${SHOP}/jobs/no-such-job/promote`)).status, 404);
  });

  test('remove deletes a waiting or finished job; an unknown one is 404', async () => {
    const removed = await post<ActionJson>(`streams/${SHOP}/jobs/${jobs.waiting[0]}/remove`);
    assert.deepEqual([removed.status, removed.body.state], [200, null]);
    assert.equal((await get(`streams/${SHOP}/jobs/${jobs.waiting[0]}`)).status, 404);
    const list = await get<ListJson>(`streams/${SHOP}/jobs?state=waiting`);
    assert.ok(!list.body.items.some((j) => j.id === jobs.waiting[0]));
    const finished = await post<ActionJson>(`streams/${SHOP}/jobs/${jobs.completed}/remove`);
    assert.deepEqual([finished.status, finished.body.state], [200, null]);
    assert.equal((await post(`streams/${SHOP}/jobs/${jobs.waiting[0]}/remove`)).status, 404);
  });

  test('a job a worker holds cannot be removed (409); actions keep the POST, JSON and token rules', async () => {
    const stream = 'held';
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = new Worker(conn, { stream, group: 'g', blockMs: 50 }, async () => {
      await gate;
    });
    await worker.start();
    const queue = new Queue(conn, { stream });
    try {
      const id = await new Producer(conn, { stream }).add({ n: 1 });
      await waitFor(async () => (await queue.getJob(id))?.state === 'active', 'the job to be active');
      const refused = await post<ActionJson>(`streams/${stream}/jobs/${id}/remove`);
      assert.equal(refused.status, 409);
      assert.match(refused.body.error!, /active/);
      release();
      await queue.waitUntilFinished(id, 10_000);
    } finally {
      release();
      await worker.close();
      await queue.close();
    }
    assert.equal((await fetch(`${base}/api/streams/${SHOP}/jobs/${jobs.waiting[1]}/remove`)).status, 405);
    const form = await fetch(`${base}/api/streams/${SHOP}/jobs/${jobs.waiting[1]}/remove`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' });
    assert.equal(form.status, 415);
    const guarded = dashboardHandler(conn, { token: 'sesame' });
    const server2 = createServer(guarded);
    await new Promise<void>((r) => server2.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server2.address() as AddressInfo).port}`;
      assert.equal((await apiPost(url, `streams/${SHOP}/jobs/${jobs.waiting[1]}/remove`, {})).status, 401);
      assert.equal((await apiPost(url, `streams/${SHOP}/jobs/${jobs.waiting[1]}/remove`, {}, 'sesame')).status, 200);
    } finally {
      guarded.close();
      server2.closeAllConnections();
      await new Promise((r) => server2.close(r));
    }
  });
});
