// `sluice dashboard` over the other backends connect() takes: an embedded data directory (the
// AOF a process wrote and closed) and a local 3-master Redis Cluster, where the streams live
// on different masters and every master must be scanned (jobs' events streams included).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { ClusterConnection } from '../../src/client/cluster-connection.js';
import { clusterClientOf } from '../../src/client/ioredis-link.js';
import { LocalCluster } from '../cluster/local-cluster.js';
import { apiGet, apiPost, startDashboardCli } from './helpers.js';
import { EMAILS, ORDERS, seed } from './seed.js';
import { LATER, seedJobs, SHOP } from './seed-jobs.js';

interface StreamJson {
  name: string;
  length: number;
  deadLetters: number | null;
  groups: Array<{ name: string; lag: number | null; pending: number }>;
}

describe('dashboard over an embedded data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-dash-embedded-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('lists the streams persisted there and acts on them', async () => {
    const writer = await connect(`embedded:${dir}`);
    const data = await seed(writer);
    await writer.close();

    const dash = await startDashboardCli(`embedded:${dir}`);
    try {
      const { status, body } = await apiGet<StreamJson[]>(dash.url, 'streams');
      assert.equal(status, 200);
      assert.deepEqual(body.map((s) => [s.name, s.length, s.deadLetters]), [[EMAILS, 3, 0], [ORDERS, 31, 2]]);
      // After an AOF reload entries-read is unknown, so is billing's lag: Redis 7.0.15 does the same.
      assert.deepEqual(body[1]!.groups.map((g) => [g.name, g.lag, g.pending]), [['billing', null, 3], ['shipping', 0, 0]]);
      const retried = await apiPost<{ retried: unknown[] }>(dash.url, `streams/${ORDERS}/dead-letters/retry`, { ids: [data.deadIds[0]] });
      assert.equal(retried.status, 200);
      const after = await apiGet<StreamJson>(dash.url, `streams/${ORDERS}`);
      assert.deepEqual([after.body.length, after.body.deadLetters], [32, 1]);
    } finally {
      await dash.stop();
    }
    // The retry was written to the directory's AOF.
    const reader = await connect(`embedded:${dir}`);
    assert.equal(await reader.call('XLEN', ORDERS), 32);
    await reader.close();
  });
});

describe('dashboard over Redis Cluster', () => {
  test('scans every master and reads each stream from its node', async () => {
    const cluster = await LocalCluster.start({ masters: 3, replicas: 0 });
    const conn = await connect(cluster.url);
    try {
      await seed(conn);
      const extra = Array.from({ length: 9 }, (_, i) => `jobs-${i}`);
      for (const name of extra) await conn.call('XADD', name, '*', 'payload', '{}');
      // The point of the test: the streams are spread over more than one master.
      const owners = new Set<string>();
      for (const name of [ORDERS, EMAILS, ...extra]) {
        const slot = Number(await conn.call('CLUSTER', 'KEYSLOT', name));
        const node = clusterClientOf(conn as ClusterConnection).slots[slot]![0]!;
        owners.add(node);
      }
      assert.ok(owners.size >= 2, `streams on ${owners.size} master(s)`);

      const dash = await startDashboardCli(cluster.url);
      try {
        const { status, body } = await apiGet<StreamJson[]>(dash.url, 'streams');
        assert.equal(status, 200);
        assert.deepEqual(body.map((s) => s.name), [EMAILS, ...extra, ORDERS].sort());
        const orders = body.find((s) => s.name === ORDERS)!;
        assert.deepEqual([orders.length, orders.deadLetters], [31, 2]);
        assert.deepEqual(orders.groups.map((g) => [g.name, g.lag, g.pending]), [['billing', 26, 3], ['shipping', 0, 0]]);
        // orders and orders:dead hash to different slots: retry still works (no MULTI across them).
        const retried = await apiPost<{ retried: unknown[] }>(dash.url, `streams/${ORDERS}/dead-letters/retry`, { all: true });
        assert.equal(retried.status, 200);
        assert.equal(retried.body.retried.length, 2);
        assert.equal(await conn.call('XLEN', ORDERS), 33);

        // Jobs: their events streams are not listed; search and detail reach each queue's node.
        // Hash-tagged names, as on any cluster: `{shop}:dead` must share `{shop}`'s slot.
        const [shop, later] = [`{${SHOP}}`, `{${LATER}}`];
        const jobs = await seedJobs(conn, { shop, later });
        const names = (await apiGet<StreamJson[]>(dash.url, 'streams')).body.map((s) => s.name);
        assert.deepEqual(names, [EMAILS, ...extra, ORDERS, shop].sort());
        const offered = await apiGet<{ streams: string[] }>(dash.url, 'jobs');
        // `{later}:events` alone is `later`'s or `{later}`'s: the delayed jobs in `{later}:delayed` say which.
        assert.deepEqual(offered.body.streams, [EMAILS, ...extra, ORDERS, later, shop].sort());
        const found = await apiGet<{ matches: unknown[] }>(dash.url, `jobs/${jobs.failed}`);
        assert.deepEqual(found.body.matches, [{ stream: shop, state: 'failed' }]);
        const delayed = await apiGet<{ matches: unknown[] }>(dash.url, `jobs/${jobs.laterDelayed}`);
        assert.deepEqual(delayed.body.matches, [{ stream: later, state: 'delayed' }]);
        const list = await apiGet<{ items: Array<{ id: string }> }>(dash.url, `streams/${encodeURIComponent(later)}/jobs?state=delayed`);
        assert.deepEqual(list.body.items.map((j) => j.id), [jobs.laterDelayed]);
        const detail = await apiGet<{ events: Array<{ event: string }> }>(dash.url, `streams/${encodeURIComponent(shop)}/jobs/${jobs.completed}`);
        // The set, not the order: on a cluster the worker's buffered `active` write can land after
        // the handler's `progress` (seen here; the single-node order is checked in jobs-api.test.ts).
        assert.deepEqual(detail.body.events.map((e) => e.event).sort(), ['active', 'added', 'completed', 'progress']);
      } finally {
        await dash.stop();
      }
    } finally {
      await conn.close();
      await cluster.stop();
    }
  });
});
