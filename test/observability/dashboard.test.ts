// The Grafana board in docs/ is built on the metric names a worker really exposes: a real
// worker (one job done, one failed and retried, one held running) is scraped over HTTP, and
// every metric the board's queries use must be in the scrape; the new gauges carry real values.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect, exponentialBackoff, Metrics, open, Producer, startMetricsServer, Worker } from 'sluice';
import { waitFor } from '../support/wait.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Every PromQL expression of the board: panel targets and template variable queries. */
function dashboardQueries(): string[] {
  const board = JSON.parse(readFileSync(join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ query: { query: string } | string }> };
  };
  const exprs = board.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const vars = board.templating.list.map((v) => (typeof v.query === 'string' ? v.query : v.query.query));
  return [...exprs, ...vars];
}

/** Series names (before `{` or the value) in a Prometheus text scrape. */
function seriesNames(text: string): Set<string> {
  return new Set(text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]));
}

async function get(url: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return res.text();
}

test('every metric the Grafana dashboard queries is in a real worker scrape', async () => {
  const queries = dashboardQueries();
  const used = new Set(queries.flatMap((q) => q.match(/\bsluice_[a-z_]+/g) ?? []));
  assert.ok(used.size >= 10, [...used].join(' '));

  const db = await open();
  const conn = await connect(db);
  const metrics = new Metrics();
  await new Producer(conn, { stream: 'orders' }).addMany(['ok', 'flaky', 'slow']);
  let flakyRuns = 0;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const worker = new Worker<string>(conn, { stream: 'orders', group: 'billing', metrics, backoff: exponentialBackoff(5) }, async (job) => {
    if (job.payload === 'flaky' && flakyRuns++ === 0) throw new Error('once');
    if (job.payload === 'slow') await held;
  });
  await worker.start();
  const server = await startMetricsServer(metrics, { port: 0 });
  try {
    await waitFor(() => metrics.snapshot().processed === 2 && metrics.snapshot().retried === 1, 'two jobs done, one after a retry');
    await new Promise((r) => setTimeout(r, 20)); // the held job has been pending a measurable while
    const text = await get(server.url);
    const names = seriesNames(text);
    const missing = [...used].filter((n) => !names.has(n));
    assert.deepEqual(missing, [], `metrics the dashboard queries but the worker does not expose:\n${text}`);

    assert.match(text, /^sluice_group_consumers\{stream="orders",group="billing"\} 1$/m);
    assert.match(text, /^sluice_group_pending\{stream="orders",group="billing"\} 1$/m);
    const age = Number(/^sluice_group_oldest_pending_age_seconds\{stream="orders",group="billing"\} (\S+)$/m.exec(text)?.[1]);
    assert.ok(age >= 0.02 && age < 60, `oldest pending age ${age}`);
    // Three handler runs so far (ok, flaky's failure, flaky's retry), labelled by stream and group.
    assert.match(text, /^sluice_group_handler_duration_seconds_count\{stream="orders",group="billing"\} 3$/m);
    assert.match(text, /^sluice_handler_duration_seconds_count 3$/m);

    release();
    await waitFor(() => metrics.snapshot().processed === 3, 'the held job');
    await waitFor(async () => /^sluice_group_oldest_pending_age_seconds\{stream="orders",group="billing"\} 0$/m.test(await get(server.url)), 'nothing pending');
  } finally {
    release();
    await server.close();
    await worker.close();
    await conn.close();
    await db.close();
  }
});
