// The job view's JSON API on every backend (embedded, sluice server, redis-server): the
// dashboard's handler served over HTTP in front of jobs a real Producer and Worker made
// (seed-jobs.ts). Discovery folds the jobs' events stream into its queue; lists by state with
// counts and paging; a job's detail with its logs, events and timeline; search by id.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { dashboardHandler, type DashboardHandler } from '../../src/dashboard/handler.js';
import { backends, describeEach } from '../broker/backends.js';
import { apiGet } from './helpers.js';
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
    assert.deepEqual(failed.body.counts, { delayed: 1, prioritized: 0, waiting: 2, active: 0, retrying: 0, completed: 1, failed: 1 });
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
});
