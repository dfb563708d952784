// The dashboard in a real browser: headless Chromium (Debian's package, driven by
// playwright-core) loads the page from a real `sluice dashboard` in front of a real
// `sluice server` with data, reads the tables, sees the charts draw and update without a
// reload, retries a dead letter through the UI, opens a stream, and asks for a token when one
// is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { startSluice, type Target } from '../cli/helpers.js';
import { launchBrowser, startDashboardCli, type DashboardProcess } from './helpers.js';
import { EMAILS, ORDERS, seed, type Seeded } from './seed.js';
import { fairIndexKey, laneKey } from '../../src/broker/fairness/lanes.js';

let target: Target;
let conn: Connection;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let data: Seeded;

before(async () => {
  [target, browser] = await Promise.all([startSluice(), launchBrowser()]);
  conn = await connect(target.url);
  data = await seed(conn);
});
after(async () => {
  await browser?.close();
  await conn?.close();
  await target?.stop();
});

const cells = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allInnerTexts();

describe('dashboard page', () => {
  let dash: DashboardProcess;
  let page: Page;
  const errors: string[] = [];
  before(async () => {
    dash = await startDashboardCli(target.url);
    // `tsc` alone does not copy the page's files; say so rather than time out on a blank page.
    const asset = await fetch(`${dash.url}/assets/app.js`);
    assert.equal(asset.status, 200, 'dashboard assets missing from dist: build with npm run build');
    page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${dash.url}/`);
    await page.waitForSelector('body[data-loaded]');
  });
  after(async () => {
    await page.close();
    await dash.stop();
  });

  test('shows streams, groups, consumers and dead letters in tables', async () => {
    assert.deepEqual(await cells(page, '#streams tbody tr td:first-child'), [EMAILS, ORDERS]);
    const orders = await cells(page, `#streams tr[data-stream="${ORDERS}"] td`);
    assert.deepEqual([orders[0], orders[1], orders[2], orders[3], orders[6], orders[7]], [ORDERS, '31', data.orderIds[0], data.orderIds[30], '2', '2']);
    const billing = await cells(page, `#groups tr[data-group="${ORDERS}/billing"] td`);
    assert.deepEqual(billing, [ORDERS, 'billing', '26', '3', data.pendingIds[2], '1', 'running Pause']);
    assert.equal(await page.locator(`#groups tr[data-group="${ORDERS}/billing"]`).getAttribute('class'), 'behind');
    const consumer = await cells(page, `#consumers tr[data-consumer="${ORDERS}/billing/worker-1"] td`);
    assert.deepEqual([consumer[2], consumer[3], consumer[5]], ['worker-1', '3', 'active']);
    const dead = await cells(page, `#dead-letters tr[data-dead-letter="${data.deadIds[1]}"] td`);
    assert.deepEqual(dead.slice(0, 6), [data.deadIds[1]!, data.orderIds[1]!, 'billing', 'worker-1', '5', 'timeout talking to the bank']);
    assert.equal(dead[7], '{"order":2,"sku":"sku-2"}');
    assert.deepEqual(errors, []);
  });

  test("shows a stream's fair keys' backlog, busiest first, and updates it", async () => {
    // Lanes written as a producer's fairKey adds write them (broker/fairness/lanes.ts), without its wake-up entry.
    const lanes = [['tenant-a', 3], ['tenant-b', 1]] as const;
    for (const [key, n] of lanes) {
      for (let i = 0; i < n; i++) await conn.call('RPUSH', laneKey(EMAILS, key), JSON.stringify(['payload', '{}', 'fair-key', key]));
      await conn.call('ZADD', fairIndexKey(EMAILS), 'NX', Date.now(), key);
    }
    const cell = page.locator(`#streams tr[data-stream="${EMAILS}"] td.fair`);
    await page.waitForFunction((s) => document.querySelector(s)?.textContent?.includes('4 waiting'), `#streams tr[data-stream="${EMAILS}"] td.fair`, { timeout: 15_000 });
    assert.equal(await cell.innerText(), '2 keys, 4 waiting: tenant-a 3, tenant-b 1');
    assert.equal(await page.locator(`#streams tr[data-stream="${ORDERS}"] td.fair`).innerText(), '-');
    await conn.call('DEL', laneKey(EMAILS, 'tenant-a'), laneKey(EMAILS, 'tenant-b'), fairIndexKey(EMAILS));
    await page.waitForFunction((s) => document.querySelector(s)?.textContent === '-', `#streams tr[data-stream="${EMAILS}"] td.fair`, { timeout: 15_000 });
    assert.deepEqual(errors, []);
  });

  test('draws the throughput and lag charts and updates them and the tables without a reload', async () => {
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const pointsBefore = Number(await page.getAttribute('#chart-rate', 'data-points'));
    for (let i = 0; i < 5; i++) await conn.call('XADD', EMAILS, '*', 'payload', `{"n":${i}}`);
    await page.waitForFunction((name) => document.querySelector(`#streams tr[data-stream="${name}"] td:nth-child(2)`)?.textContent === '8', EMAILS);
    await page.waitForFunction((n) => Number(document.getElementById('chart-rate')!.dataset['points']) > n + 1, pointsBefore);
    assert.equal(await page.evaluate(() => (window as unknown as { marker: number }).marker), 42, 'same document: no reload');
    for (const id of ['chart-rate', 'chart-lag']) {
      // uPlot drew a canvas of the container's width with something on it, and a legend of series.
      const drawn = await page.evaluate((chartId) => {
        const canvas = document.querySelector<HTMLCanvasElement>(`#${chartId} canvas`);
        if (canvas === null) return null;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
        const legend = [...document.querySelectorAll(`#${chartId} .u-legend .u-label`)].map((e) => e.textContent);
        return { width: canvas.width, painted, legend };
      }, id);
      assert.ok(drawn !== null, `${id} has a canvas`);
      assert.ok(drawn.width > 200, `${id} width ${drawn.width}`);
      assert.ok(drawn.painted > 1000, `${id} painted ${drawn.painted}`);
      assert.deepEqual(drawn.legend, id === 'chart-rate' ? [EMAILS, ORDERS] : [`${ORDERS} / billing`, `${ORDERS} / shipping`]);
    }
  });

  test('retrying a dead letter in the page puts it back in its source stream', async () => {
    const lengthBefore = Number(await conn.call('XLEN', ORDERS));
    await page.click(`#dead-letters tr[data-dead-letter="${data.deadIds[0]}"] button:has-text("Retry")`);
    await page.waitForSelector(`#dead-letters tr[data-dead-letter="${data.deadIds[0]}"]`, { state: 'detached' });
    assert.equal(await conn.call('XLEN', ORDERS), lengthBefore + 1);
    const [[, fields]] = (await conn.call('XREVRANGE', ORDERS, '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
    assert.deepEqual(fields, ['payload', '{"order":1,"sku":"sku-1"}', 'content-type', 'application/json', 'key', 'customer-1']);
    assert.equal(await conn.call('XLEN', 'orders:dead'), 1);
    await page.waitForFunction((name) => document.querySelector(`#streams tr[data-stream="${name}"] td:nth-child(8)`)?.textContent === '1', ORDERS);
  });

  test('pausing a group in the page sets the flag its workers read; resuming clears it', async () => {
    const row = `#groups tr[data-group="${ORDERS}/shipping"]`;
    await page.click(`${row} button:has-text("Pause")`);
    await page.waitForSelector(`${row} button:has-text("Resume")`);
    assert.equal(Number(await conn.call('HEXISTS', 'orders:paused', 'shipping')), 1);
    assert.match(await page.locator(`${row} td:nth-child(7)`).innerText(), /^paused/);
    await page.click(`${row} button:has-text("Resume")`);
    await page.waitForSelector(`${row} button:has-text("Pause")`);
    assert.equal(Number(await conn.call('EXISTS', 'orders:paused')), 0);
  });

  test('a stream opens with its entries newest first and its pending entries', async () => {
    await page.click(`#streams tr[data-stream="${ORDERS}"] a`);
    await page.waitForSelector('#entries tbody tr[data-entry]');
    const newest = (await conn.call('XREVRANGE', ORDERS, '+', '-', 'COUNT', 20)) as Array<[string, string[]]>;
    assert.deepEqual(await page.locator('#entries tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-entry'))), newest.map(([id]) => id));
    assert.equal(await page.locator(`#entries tr[data-entry="${newest[0]![0]}"] td:nth-child(2)`).innerText(), '{"order":1,"sku":"sku-1"}');
    assert.match(await page.locator(`#entries tr[data-entry="${data.orderIds[30]}"] td:nth-child(2)`).innerText(), /^malformed entry: /);
    await page.click('#entries-older');
    await page.waitForSelector(`#entries tr[data-entry="${newest[19]![0]}"]`, { state: 'detached' });
    assert.equal(await page.locator('#entries tbody tr').count(), 12); // 32 entries: 20 + 12
    const pending = await page.locator('#pending [data-pending-group="billing"] tr[data-pending]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pending')));
    assert.deepEqual(pending, data.pendingIds);
    // sluice has XNACK: the button is there to use; releasing an entry leaves it unowned.
    await page.click(`tr[data-pending="${data.pendingIds[0]}"] button:has-text("NACK")`);
    await page.waitForFunction((id) => document.querySelector(`tr[data-pending="${id}"] td:nth-child(2)`)?.textContent === '(released)', data.pendingIds[0]);
    assert.deepEqual(errors, []);
  });
});

describe('dashboard page with a token', () => {
  test('asks for the token, then shows the data', async () => {
    const dash = await startDashboardCli(target.url, ['--token', 'letmein']);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${dash.url}/`);
      await page.waitForSelector('#token-form', { state: 'visible' });
      assert.match(await page.locator('#error').innerText(), /token required/);
      assert.equal(await page.locator('#streams tbody tr').count(), 0);
      await page.fill('#token-input', 'letmein');
      await page.click('#token-form button');
      await page.waitForSelector('body[data-loaded]');
      assert.deepEqual(await cells(page, '#streams tbody tr td:first-child'), [EMAILS, ORDERS]);
      assert.equal(await page.locator('#token-form').isHidden(), true);
    } finally {
      await page.close();
      await dash.stop();
    }
  });
});
