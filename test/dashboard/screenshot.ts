// `npm run screenshot`: writes docs/dashboard.png, the main view of the dashboard over a real
// `sluice server` with the test data (seed.ts) plus a few seconds of traffic, so the charts
// have something to show: a producer adding orders and emails, a billing worker falling behind.
// Then docs/dashboard-job.png: the job view with a failed job's detail (seed-jobs.ts).
import { fileURLToPath } from 'node:url';
import { connect } from '../../src/client/connect.js';
import { encodeEntry, jsonCodec } from '../../src/broker/codec.js';
import { startSluice } from '../cli/helpers.js';
import { launchBrowser, startDashboardCli } from './helpers.js';
import { EMAILS, ORDERS, seed } from './seed.js';
import { seedJobs, SHOP } from './seed-jobs.js';

const OUT = fileURLToPath(new URL('../../../docs/dashboard.png', import.meta.url));
const OUT_JOB = fileURLToPath(new URL('../../../docs/dashboard-job.png', import.meta.url));
const TRAFFIC_MS = 8000;

const target = await startSluice();
const conn = await connect(target.url);
const dash = await startDashboardCli(target.url, ['--interval', '400']);
const browser = await launchBrowser();
try {
  await seed(conn);
  await conn.call('XGROUP', 'CREATE', EMAILS, 'mailer', '0');
  const page = await browser.context.newPage();
  await page.goto(`${dash.url}/`);
  await page.waitForSelector('body[data-loaded]');
  // Traffic: orders speed up over time, billing acknowledges at a steady pace and falls
  // behind; the mailer keeps up with emails.
  const started = Date.now();
  let n = 0;
  while (Date.now() - started < TRAFFIC_MS) {
    const burst = 1 + Math.floor(((Date.now() - started) / TRAFFIC_MS) * 6);
    for (let i = 0; i < burst; i++) await conn.call('XADD', ORDERS, '*', ...encodeEntry(jsonCodec, { order: 1000 + n++ }, `customer-${n % 3}`));
    if (n % 3 === 0) await conn.call('XADD', EMAILS, '*', ...encodeEntry(jsonCodec, { to: `user${n}@example.com` }));
    const taken = (await conn.call('XREADGROUP', 'GROUP', 'billing', 'worker-2', 'COUNT', 2, 'STREAMS', ORDERS, '>')) as Array<[string, Array<[string]>]> | null;
    for (const [id] of taken?.[0]?.[1] ?? []) await conn.call('XACK', ORDERS, 'billing', id);
    const mailed = (await conn.call('XREADGROUP', 'GROUP', 'mailer', 'mailer-1', 'COUNT', 10, 'STREAMS', EMAILS, '>')) as Array<[string, Array<[string]>]> | null;
    for (const [id] of mailed?.[0]?.[1] ?? []) await conn.call('XACK', EMAILS, 'mailer', id);
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.waitForTimeout(1000);
  await page.screenshot({ path: OUT, fullPage: true });
  process.stdout.write(`wrote ${OUT}\n`);

  const jobs = await seedJobs(conn);
  await page.goto(`${dash.url}/#job=${SHOP}/${jobs.failed}`);
  await page.waitForSelector(`#job-detail[data-job="${jobs.failed}"]`);
  await page.selectOption('#jobs-stream', SHOP);
  await page.click('#job-states button[data-job-state="failed"]');
  await page.waitForSelector(`#jobs tr[data-job="${jobs.failed}"]`);
  // From the Jobs section's top to the detail's bottom, in page coordinates.
  const clip = await page.evaluate(() => {
    const top = document.getElementById('jobs-section')!.getBoundingClientRect().top + window.scrollY;
    const bottom = document.getElementById('job-detail')!.getBoundingClientRect().bottom + window.scrollY;
    return { x: 0, y: top - 10, width: document.documentElement.clientWidth, height: bottom - top + 20 };
  });
  await page.screenshot({ path: OUT_JOB, fullPage: true, clip });
  process.stdout.write(`wrote ${OUT_JOB}\n`);
} finally {
  await browser.close();
  await dash.stop();
  await conn.close();
  await target.stop();
}
