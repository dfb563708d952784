// The job view in a real browser: headless Chromium (Debian's package, driven by
// playwright-core) on a real `sluice dashboard` in front of a real `sluice server`, with jobs a
// real Producer and Worker made (seed-jobs.ts): the jobs of a state with the counts, search by
// id, a job's detail (data, return value, error and stack, progress, logs, timeline), and the
// buttons: remove a waiting job, promote a delayed one, retry a failed one (which then runs).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { connect } from '../../src/client/connect.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { FlowProducer } from '../../src/broker/flows/flow-producer.js';
import { waitFor } from '../support/wait.js';
import type { Connection } from '../../src/client/connection.js';
import { startSluice, type Target } from '../cli/helpers.js';
import { launchBrowser, startDashboardCli, type DashboardProcess } from './helpers.js';
import { LATER, seedJobs, SHOP, type SeededJobs, type ShopOrder } from './seed-jobs.js';

let target: Target;
let conn: Connection;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let jobs: SeededJobs;
let dash: DashboardProcess;
let page: Page;
const errors: string[] = [];

before(async () => {
  [target, browser] = await Promise.all([startSluice(), launchBrowser()]);
  conn = await connect(target.url);
  jobs = await seedJobs(conn);
  dash = await startDashboardCli(target.url);
  page = await browser.context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${dash.url}/`);
  await page.waitForSelector('body[data-loaded]');
});
after(async () => {
  await page?.close();
  await dash?.stop();
  await browser?.close();
  await conn?.close();
  await target?.stop();
});

const jobRows = (p: Page): Promise<Array<string | null>> => p.locator('#jobs tbody tr[data-job]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job')));

/** Shows a state's jobs of `stream` and waits until the table is that state's. */
async function showState(stream: string, state: string): Promise<void> {
  await page.selectOption('#jobs-stream', stream);
  await page.click(`#job-states button[data-job-state="${state}"]`);
  await page.waitForSelector(`#job-states button[data-job-state="${state}"][aria-pressed="true"]`);
}

describe('job view', () => {
  test('the streams table leaves out the jobs events streams; the job view offers the queues', async () => {
    assert.deepEqual(await page.locator('#streams tbody tr td:first-child').allInnerTexts(), [SHOP]);
    assert.deepEqual(await page.locator('#jobs-stream option').allInnerTexts(), [LATER, SHOP]);
  });

  test('lists the jobs of a state, with every state counted', async () => {
    await showState(SHOP, 'waiting');
    await page.waitForFunction((ids) => [...document.querySelectorAll('#jobs tbody tr[data-job]')].map((r) => r.getAttribute('data-job')).join() === ids, jobs.waiting.join());
    const counts = await page.locator('#job-states button').evaluateAll((bs) => bs.map((b) => [b.getAttribute('data-job-state'), b.querySelector('.count')!.textContent]));
    assert.deepEqual(counts, [['waiting', '2'], ['prioritized', '0'], ['waiting-children', '0'], ['active', '0'], ['retrying', '0'], ['delayed', '1'], ['completed', '1'], ['failed', '1']]);
    await showState(SHOP, 'failed');
    await page.waitForSelector(`#jobs tr[data-job="${jobs.failed}"]`);
    assert.deepEqual(await jobRows(page), [jobs.failed]);
    assert.equal(await page.locator(`#jobs tr[data-job="${jobs.failed}"] td:nth-child(7)`).innerText(), 'out of boxes');
    await showState(LATER, 'delayed');
    await page.waitForSelector(`#jobs tr[data-job="${jobs.laterDelayed}"]`);
    assert.match(await page.locator(`#jobs tr[data-job="${jobs.laterDelayed}"] td:nth-child(5)`).innerText(), /^due \d{4}-/);
  });

  test("search by id opens the job's detail: data, return value, progress, logs and timeline", async () => {
    await page.fill('#job-search-input', jobs.completed);
    await page.click('#job-search button');
    await page.waitForSelector(`#job-detail[data-job="${jobs.completed}"]`);
    assert.equal(await page.locator('#job-detail-stream').innerText(), `in ${SHOP}`);
    assert.equal(await page.locator('#job-state').innerText(), 'completed');
    assert.equal(await page.locator('#job-attempts').innerText(), '1');
    assert.equal(await page.locator('#job-progress').innerText(), '50');
    assert.deepEqual(JSON.parse(await page.locator('#job-data').innerText()), { sku: 'tea', qty: 3 });
    assert.deepEqual(JSON.parse(await page.locator('#job-return').innerText()), { total: 12 });
    assert.deepEqual(await page.locator('#job-logs li').allInnerTexts(), ['packing 3 x tea']);
    const steps = await page.locator('#job-timeline tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')));
    for (const step of ['added', 'event added', 'event active', 'event progress', 'event completed']) assert.ok(steps.includes(step), `${step} in ${steps.join(', ')}`);
    assert.ok(steps.indexOf('event added') < steps.indexOf('event completed'));
  });

  test('a failed job shows its error and stack; an unknown id says where it looked', async () => {
    await showState(SHOP, 'failed');
    await page.click(`#jobs tr[data-job="${jobs.failed}"] a`);
    await page.waitForSelector(`#job-detail[data-job="${jobs.failed}"]`);
    assert.equal(await page.locator('#job-error').innerText(), 'out of boxes');
    assert.match(await page.locator('#job-stack').innerText(), /^Error: out of boxes\n\s+at /);
    assert.equal(await page.locator('#job-state').innerText(), 'failed');
    await page.fill('#job-search-input', 'nothing-like-it');
    await page.click('#job-search button');
    await page.waitForFunction(() => /no job nothing-like-it in 2 streams/.test(document.getElementById('job-search-result')!.textContent ?? ''));
    assert.deepEqual(errors, []);
  });

  test('Remove on a waiting job removes it (after a confirm)', async () => {
    await showState(SHOP, 'waiting');
    const row = `#jobs tr[data-job="${jobs.waiting[0]}"]`;
    await page.waitForSelector(row);
    assert.deepEqual(await page.locator(`${row} button`).allInnerTexts(), ['Remove']);
    page.once('dialog', (d) => void d.accept());
    await page.click(`${row} button[data-job-action="remove"]`);
    await page.waitForSelector(row, { state: 'detached' });
    const queue = new Queue(conn, { stream: SHOP });
    assert.equal(await queue.getJob(jobs.waiting[0]!), null);
    await queue.close();
  });

  test('Promote on a delayed job moves it into the stream', async () => {
    await showState(SHOP, 'delayed');
    const row = `#jobs tr[data-job="${jobs.delayed}"]`;
    await page.waitForSelector(row);
    assert.deepEqual(await page.locator(`${row} button`).allInnerTexts(), ['Promote', 'Remove']);
    await page.click(`${row} button[data-job-action="promote"]`);
    await page.waitForSelector(row, { state: 'detached' });
    await showState(SHOP, 'waiting');
    await page.waitForSelector(`#jobs tr[data-job="${jobs.delayed}"]`);
    assert.equal(await page.locator(`#job-states button[data-job-state="delayed"] .count`).innerText(), '0');
  });

  test("Retry in a failed job's detail runs it again: a worker completes it this time", async () => {
    await page.goto(`${dash.url}/#job=${SHOP}/${jobs.failed}`);
    await page.waitForSelector(`#job-detail[data-job="${jobs.failed}"][data-state="failed"]`);
    assert.deepEqual(await page.locator('#job-detail-actions button').allInnerTexts(), ['Retry', 'Remove']);
    await page.click('#job-detail-actions button[data-job-action="retry"]');
    await page.waitForSelector(`#job-detail[data-job="${jobs.failed}"][data-state="waiting"]`);
    // A worker that packs whatever it gets: the retried job runs again and completes.
    const worker = new Worker<ShopOrder, { total: number }>(conn, { stream: SHOP, group: 'packers', consumer: 'packer-2', blockMs: 50 }, async (job) => ({ total: job.payload.qty * 4 }));
    await worker.start();
    try {
      await page.waitForSelector(`#job-detail[data-job="${jobs.failed}"][data-state="completed"]`);
    } finally {
      await worker.close();
    }
    assert.deepEqual(JSON.parse(await page.locator('#job-return').innerText()), { total: 8 });
    const steps = await page.locator('#job-timeline tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')));
    assert.equal(steps.filter((s) => s === 'event active').length, 2, steps.join(', '));
    assert.ok(steps.lastIndexOf('event completed') > steps.indexOf('event deadLettered'));
    const queue = new Queue(conn, { stream: SHOP });
    await waitFor(async () => (await queue.getJob(jobs.failed))?.consumer === 'packer-2', 'the record to name packer-2');
    await queue.close();
    assert.deepEqual(errors, []);
  });

  test('a stream with two groups is seen through one, chosen in a select', async () => {
    await conn.call('XGROUP', 'CREATE', SHOP, 'auditors', '$');
    await page.selectOption('#jobs-stream', LATER);
    await showState(SHOP, 'waiting');
    await page.waitForSelector('#jobs-group-label', { state: 'visible' });
    assert.deepEqual(await page.locator('#jobs-group option').allInnerTexts(), ['auditors', 'packers']);
    assert.equal(await page.locator('#jobs-group').inputValue(), 'auditors');
    await page.selectOption('#jobs-group', 'packers');
    // The choice holds across the page's refreshes (every interval, 300 ms here).
    const asPackers = (r: { url(): string }): boolean => r.url().includes(`/api/streams/${SHOP}/jobs?`) && r.url().includes('group=packers');
    for (let i = 0; i < 2; i++) await page.waitForResponse(asPackers);
    assert.equal(await page.locator('#jobs-group').inputValue(), 'packers');
    assert.deepEqual(errors, []);
  });

  test("a flow's tree in a job's detail: each job's state, the failing child named, links to each", async () => {
    const flows = new FlowProducer(conn);
    const stream = 'flowview';
    await flows.add({
      stream,
      data: 'order',
      opts: { jobId: 'fv-root' },
      children: [
        { stream, data: 'ok', opts: { jobId: 'fv-a' } },
        { stream, data: 'mid', opts: { jobId: 'fv-mid' }, children: [{ stream, data: 'bad', opts: { jobId: 'fv-bad', attempts: 1 } }] },
      ],
    });
    await page.goto(`${dash.url}/#job=${stream}/fv-a`);
    await page.waitForSelector('#job-detail[data-job="fv-a"] #job-flow');
    const tree = (): Promise<Array<string | null>> => page.locator('#job-flow li').evaluateAll((lis) => lis.map((li) => `${li.getAttribute('data-flow-job')}:${li.getAttribute('data-flow-state')}`));
    assert.deepEqual(await tree(), ['fv-root:waiting-children', 'fv-a:waiting', 'fv-mid:waiting-children', 'fv-bad:waiting']);
    assert.equal(await page.locator('#job-flow a.here').innerText(), 'fv-a');
    const worker = new Worker<string>(conn, { stream, group: 'g', blockMs: 50 }, (job) => {
      if (job.payload === 'bad') throw new Error('out of stock');
      return job.payload;
    });
    await worker.start();
    try {
      await page.waitForSelector('#job-flow li[data-flow-job="fv-root"][data-flow-state="failed"]');
    } finally {
      await worker.close();
    }
    assert.deepEqual(await tree(), ['fv-root:failed', 'fv-a:completed', 'fv-mid:failed', 'fv-bad:failed']);
    assert.match(await page.locator('#job-flow li[data-flow-job="fv-root"] > small.bad').innerText(), /child flowview fv-mid failed: child flowview fv-bad failed: out of stock/);
    await page.click('#job-flow a[href$="/fv-mid"]');
    await page.waitForSelector('#job-detail[data-job="fv-mid"][data-state="failed"]');
    assert.deepEqual(errors, []);
  });
});
