// The dashboard's JSON API end to end: a real `sluice dashboard` child process in front of a
// real `sluice server` child and a real redis-server, each seeded with the same data (seed.ts).
// Views, actions, their refusals, and the token rule.
import { Producer } from '../../src/broker/producer.js';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { Connection, Value } from '../../src/client/connection.js';
import { startRedis, startSluice, type Target } from '../cli/helpers.js';
import { waitFor } from '../support/wait.js';
import { apiGet, apiPost, startDashboardCli, type DashboardProcess } from './helpers.js';
import { EMAILS, ORDERS, seed, type Seeded } from './seed.js';

const targets = await Promise.all([startSluice(), startRedis()]);
after(async () => {
  for (const t of targets) await t.stop();
});

interface StreamJson {
  name: string;
  length: number;
  firstId: string | null;
  lastId: string | null;
  entriesAdded: number | null;
  rate: number | null;
  groups: Array<{ name: string; lag: number | null; pending: number; lastDeliveredId: string; consumers: Array<{ name: string; pending: number; idleMs: number }> }>;
  deadLetters: number | null;
  deadLetterStream: string;
}
interface PageJson<T> {
  items: T[];
  next: string | null;
}
type EntryJson = { id: string; fields: Record<string, string>; payload?: unknown; payloadError?: string };
type PendingJson = { id: string; consumer: string; idleMs: number; deliveries: number };
type DeadJson = { id: string; sourceStream: string; sourceId: string; group: string; consumer: string; deliveries: number; error: string; payload?: unknown };

for (const target of targets) {
  describe(`dashboard API against ${target.name}`, () => {
    let conn: Connection;
    let dash: DashboardProcess;
    let data: Seeded;
    const get = <T>(path: string) => apiGet<T>(dash.url, path);
    const post = <T>(path: string, body: unknown) => apiPost<T>(dash.url, path, body);

    before(async () => {
      conn = await connect(target.url);
      dash = await startDashboardCli(target.url);
    });
    after(async () => {
      await dash.stop();
      await conn.close();
    });
    beforeEach(async () => {
      await conn.call('FLUSHALL');
      data = await seed(conn);
    });

    test('GET /api/streams lists every stream with groups, consumers and dead letters', async () => {
      await conn.call('SET', 'not-a-stream', 'x');
      const { status, body } = await get<StreamJson[]>('streams');
      assert.equal(status, 200);
      // orders:dead is folded into orders (its count); the string key is not a stream.
      assert.deepEqual(body.map((s) => s.name), [EMAILS, ORDERS]);
      const orders = body.find((s) => s.name === ORDERS)!;
      assert.equal(orders.length, 31);
      assert.equal(orders.firstId, data.orderIds[0]);
      assert.equal(orders.lastId, data.orderIds[30]);
      assert.equal(orders.entriesAdded, 31);
      assert.equal(orders.deadLetters, 2);
      assert.equal(orders.deadLetterStream, 'orders:dead');
      const [billing, shipping] = orders.groups;
      assert.equal(billing!.name, 'billing');
      assert.equal(billing!.lag, 26);
      assert.equal(billing!.pending, 3);
      assert.equal(billing!.lastDeliveredId, data.pendingIds[2]);
      assert.deepEqual(billing!.consumers.map((c) => [c.name, c.pending]), [['worker-1', 3]]);
      assert.ok(billing!.consumers[0]!.idleMs >= 0);
      assert.equal(shipping!.name, 'shipping');
      assert.equal(shipping!.lag, 0);
      assert.deepEqual(shipping!.consumers, []);
      const emails = body.find((s) => s.name === EMAILS)!;
      assert.equal(emails.length, 3);
      assert.equal(emails.deadLetters, 0);
      assert.deepEqual((orders as unknown as { delayed: unknown }).delayed, { count: 0, nextDue: null });
      assert.deepEqual((orders as unknown as { schedules: unknown }).schedules, []);
    });

    test('GET /api/streams/:stream: one stream; 404 when missing, 400 when not a stream', async () => {
      const { status, body } = await get<StreamJson>(`streams/${ORDERS}`);
      assert.equal(status, 200);
      assert.equal(body.name, ORDERS);
      assert.equal(body.groups.length, 2);
      assert.equal((await get(`streams/nope`)).status, 404);
      await conn.call('SET', 'plain', 'x');
      const wrong = await get<{ error: string }>('streams/plain');
      assert.equal(wrong.status, 400);
      assert.match(wrong.body.error, /not a stream/);
    });

    test('entries are paged newest first with decoded payloads', async () => {
      const first = await get<PageJson<EntryJson>>(`streams/${ORDERS}/entries?count=10`);
      assert.equal(first.status, 200);
      const newestFirst = [...data.orderIds].reverse();
      assert.deepEqual(first.body.items.map((e) => e.id), newestFirst.slice(0, 10));
      // The newest entry is the malformed one: the reason is shown, not a payload.
      assert.match(first.body.items[0]!.payloadError!, /^malformed entry: /);
      assert.equal(first.body.items[0]!.payload, undefined);
      assert.deepEqual(first.body.items[1]!.payload, { order: 30, sku: 'sku-30' });
      assert.equal(first.body.items[1]!.fields['key'], 'customer-0');
      const ids: string[] = [];
      let before: string | null = null;
      do {
        const page: { body: PageJson<EntryJson> } = await get<PageJson<EntryJson>>(`streams/${ORDERS}/entries?count=10${before === null ? '' : `&before=${before}`}`);
        ids.push(...page.body.items.map((e) => e.id));
        before = page.body.next;
        assert.ok(ids.length <= newestFirst.length, `pages go on past the ${newestFirst.length} entries`);
      } while (before !== null);
      assert.deepEqual(ids, newestFirst);
      assert.equal((await get(`streams/${ORDERS}/entries?count=0`)).status, 400);
      assert.equal((await get(`streams/${ORDERS}/entries?before=abc`)).status, 400);
    });

    test('pending entries of a group with consumer, deliveries and idle time', async () => {
      const { status, body } = await get<PageJson<PendingJson>>(`streams/${ORDERS}/groups/billing/pending`);
      assert.equal(status, 200);
      assert.deepEqual(body.items.map((p) => [p.id, p.consumer, p.deliveries]), data.pendingIds.map((id) => [id, 'worker-1', 1]));
      assert.ok(body.items.every((p) => p.idleMs >= 0));
      assert.equal(body.next, null);
      const paged = await get<PageJson<PendingJson>>(`streams/${ORDERS}/groups/billing/pending?count=2`);
      assert.deepEqual(paged.body.items.map((p) => p.id), data.pendingIds.slice(0, 2));
      assert.equal(paged.body.next, data.pendingIds[1]);
      const rest = await get<PageJson<PendingJson>>(`streams/${ORDERS}/groups/billing/pending?count=2&after=${paged.body.next}`);
      assert.deepEqual(rest.body.items.map((p) => p.id), data.pendingIds.slice(2));
      const missing = await get<{ error: string }>(`streams/${ORDERS}/groups/nogroup/pending`);
      assert.equal(missing.status, 404);
      assert.match(missing.body.error, /^NOGROUP/);
    });

    test('dead letters with error, deliveries and source id', async () => {
      const { status, body } = await get<PageJson<DeadJson> & { stream: string }>(`streams/${ORDERS}/dead-letters`);
      assert.equal(status, 200);
      assert.equal(body.stream, 'orders:dead');
      assert.deepEqual(body.items.map((d) => d.id), data.deadIds);
      const [a, b] = body.items;
      assert.equal(a!.error, 'card declined');
      assert.equal(a!.deliveries, 5);
      assert.equal(a!.sourceStream, ORDERS);
      assert.equal(a!.sourceId, data.orderIds[0]);
      assert.equal(a!.group, 'billing');
      assert.equal(a!.consumer, 'worker-1');
      assert.deepEqual(a!.payload, { order: 1, sku: 'sku-1' });
      assert.equal(b!.error, 'timeout talking to the bank');
    });

    test('retry one dead letter puts it back in the source stream; purge all empties the rest', async () => {
      const retried = await post<{ retried: Array<{ id: string; newId: string }> }>(`streams/${ORDERS}/dead-letters/retry`, { ids: [data.deadIds[0]] });
      assert.equal(retried.status, 200);
      assert.equal(retried.body.retried.length, 1);
      assert.equal(retried.body.retried[0]!.id, data.deadIds[0]);
      const newId = retried.body.retried[0]!.newId;
      const back = (await conn.call('XRANGE', ORDERS, newId, newId)) as Array<[string, string[]]>;
      assert.deepEqual(back[0]![1], ['payload', '{"order":1,"sku":"sku-1"}', 'content-type', 'application/json', 'key', 'customer-1']);
      assert.equal(await conn.call('XLEN', 'orders:dead'), 1);

      const unknown = await post<{ error: string }>(`streams/${ORDERS}/dead-letters/retry`, { ids: ['1-1'] });
      assert.equal(unknown.status, 404);
      assert.equal((await post(`streams/${ORDERS}/dead-letters/retry`, {})).status, 400);
      assert.equal((await post(`streams/${ORDERS}/dead-letters/purge`, { all: true, ids: [data.deadIds[1]] })).status, 400);

      const purged = await post<{ purged: number }>(`streams/${ORDERS}/dead-letters/purge`, { all: true });
      assert.deepEqual(purged, { status: 200, body: { purged: 1 } });
      assert.equal(await conn.call('XLEN', 'orders:dead'), 0);
    });

    test('retry all and purge one', async () => {
      const purged = await post<{ purged: number }>(`streams/${ORDERS}/dead-letters/purge`, { ids: [data.deadIds[1]] });
      assert.deepEqual(purged.body, { purged: 1 });
      const retried = await post<{ retried: Array<{ id: string; newId: string }> }>(`streams/${ORDERS}/dead-letters/retry`, { all: true });
      assert.deepEqual(retried.body.retried.map((r) => r.id), [data.deadIds[0]]);
      assert.equal(await conn.call('XLEN', 'orders:dead'), 0);
      assert.equal(await conn.call('XLEN', ORDERS), 32);
    });

    test('claim gives a pending entry to another consumer, keeping its delivery count', async () => {
      const { status, body } = await post<{ claimed: string[] }>(`streams/${ORDERS}/groups/billing/pending/claim`, { ids: [data.pendingIds[0]], consumer: 'ops' });
      assert.equal(status, 200);
      assert.deepEqual(body.claimed, [data.pendingIds[0]]);
      const pel = (await conn.call('XPENDING', ORDERS, 'billing', '-', '+', 10)) as Value[][];
      assert.deepEqual(pel.map((r) => [r[0], r[1], r[3]]), [[data.pendingIds[0], 'ops', 1], [data.pendingIds[1], 'worker-1', 1], [data.pendingIds[2], 'worker-1', 1]]);
      // Guarded by min idle time: an entry claimed just now is not taken again.
      const guarded = await post<{ claimed: string[] }>(`streams/${ORDERS}/groups/billing/pending/claim`, { ids: [data.pendingIds[0]], consumer: 'x', minIdleMs: 3_600_000 });
      assert.deepEqual(guarded.body.claimed, []);
      assert.equal((await post(`streams/${ORDERS}/groups/billing/pending/claim`, { ids: [data.pendingIds[0]] })).status, 400);
    });

    test('XNACK releases a pending entry where the server has it, and says why not elsewhere', async () => {
      const info = await get<{ xnack: boolean }>('info');
      const reply = await post<{ released?: number; error?: string }>(`streams/${ORDERS}/groups/billing/pending/nack`, { ids: [data.pendingIds[1]] });
      if (target.name === 'sluice server') {
        assert.equal(info.body.xnack, true);
        assert.deepEqual(reply, { status: 200, body: { released: 1 } });
        const pending = await get<PageJson<PendingJson>>(`streams/${ORDERS}/groups/billing/pending`);
        const released = pending.body.items.find((p) => p.id === data.pendingIds[1])!;
        assert.notEqual(released.consumer, 'worker-1');
      } else {
        assert.equal(info.body.xnack, false);
        assert.equal(reply.status, 501);
        assert.match(reply.body.error!, /XNACK is not available on this server/);
      }
    });

    test('delete an entry', async () => {
      const { status, body } = await post<{ deleted: number }>(`streams/${ORDERS}/entries/delete`, { ids: [data.orderIds[5]] });
      assert.deepEqual({ status, body }, { status: 200, body: { deleted: 1 } });
      assert.deepEqual(await conn.call('XRANGE', ORDERS, data.orderIds[5]!, data.orderIds[5]!), []);
      assert.equal((await post(`streams/${ORDERS}/entries/delete`, { ids: ['x'] })).status, 400);
    });

    test('delayed jobs and schedules of a stream are in the overview', async () => {
      const producer = new Producer(conn, { stream: ORDERS });
      await producer.add({ later: true }, { delayMs: 60_000 });
      const info = await producer.schedule('nightly', { everyMs: 86_400_000 }, { job: 'report' });
      const orders = (await get<StreamJson[]>('streams')).body.find((s) => s.name === ORDERS)! as unknown as {
        delayed: { count: number; nextDue: number };
        schedules: unknown[];
      };
      assert.equal(orders.delayed.count, 1);
      assert.ok(orders.delayed.nextDue > Date.now() + 50_000);
      assert.deepEqual(orders.schedules, [{ id: 'nightly', every: '86400000 ms', next: info.next }]);
      await producer.unschedule('nightly');
      await conn.call('DEL', 'orders:delayed');
    });

    test('pause and resume a group: the flag workers read, shown in the overview', async () => {
      const paused = await post<{ paused: boolean }>(`streams/${ORDERS}/groups/shipping/pause`, {});
      assert.deepEqual({ status: paused.status, body: paused.body }, { status: 200, body: { paused: true } });
      assert.equal(Number(await conn.call('HEXISTS', 'orders:paused', 'shipping')), 1);
      const groups = (await get<StreamJson[]>('streams')).body.find((s) => s.name === ORDERS)!.groups;
      assert.deepEqual(groups.map((g) => [g.name, (g as { paused?: boolean }).paused]), [['billing', false], ['shipping', true]]);
      assert.equal((await post(`streams/${ORDERS}/groups/shipping/resume`, {})).status, 200);
      assert.equal(Number(await conn.call('EXISTS', 'orders:paused')), 0);
    });

    test('actions: POST only, JSON only, same origin only', async () => {
      const viaGet = await get<{ error: string }>(`streams/${ORDERS}/entries/delete`);
      assert.equal(viaGet.status, 405);
      const asForm = await fetch(`${dash.url}/api/streams/${ORDERS}/entries/delete`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `ids=${data.orderIds[0]}`,
      });
      assert.equal(asForm.status, 415);
      const crossSite = await fetch(`${dash.url}/api/streams/${ORDERS}/entries/delete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
        body: JSON.stringify({ ids: [data.orderIds[0]] }),
      });
      assert.equal(crossSite.status, 403);
      assert.equal(await conn.call('XLEN', ORDERS), 31, 'nothing was deleted');
      assert.equal((await get('nothing-here')).status, 404);
    });

    test('without a token only loopback Host names are answered (DNS rebinding)', async () => {
      const status = (host: string, path: string): Promise<number> =>
        new Promise((resolve, reject) => {
          const { port } = new URL(dash.url);
          request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          }).on('error', reject).end();
        });
      const port = new URL(dash.url).port;
      assert.equal(await status(`rebound.example:${port}`, '/api/streams'), 403);
      assert.equal(await status(`rebound.example:${port}`, '/'), 403);
      assert.equal(await status(`localhost:${port}`, '/api/streams'), 200);
      assert.equal(await status(`127.0.0.1:${port}`, '/'), 200);
      assert.equal(await status(`[::1]:${port}`, '/api/info'), 200);
    });

    test('history: throughput and lag over time', async () => {
      type History = { intervalMs: number; points: Array<{ t: number; streams: Record<string, { entriesAdded: number | null; rate: number | null; groups: Record<string, { lag: number | null }> }> }> };
      const points = async (since: number) => (await get<History>(`history?since=${since}`)).body.points;
      // First a sample of the seeded state, so the next ones have something to compare with.
      const seeded = Date.now();
      await waitFor(async () => (await points(seeded)).some((p) => p.streams[ORDERS]?.entriesAdded === 31), 'a sample of the seeded data');
      const start = Date.now();
      for (let i = 0; i < 20; i++) await conn.call('XADD', ORDERS, '*', 'payload', String(i));
      let seen: History['points'] = [];
      await waitFor(async () => {
        seen = await points(start);
        return seen.some((p) => (p.streams[ORDERS]?.rate ?? 0) > 0) && seen.at(-1)?.streams[ORDERS]?.groups['billing']?.lag === 46;
      }, 'a sample with the new entries').catch(async (err: Error) => {
        const info = await get<{ samplingError: string | null }>('info');
        throw new Error(`${err.message}; sampling error ${info.body.samplingError}; last points ${JSON.stringify(seen.slice(-3))}`);
      });
      assert.ok(seen.every((p) => p.t > start));
    });
  });
}

describe('dashboard token', () => {
  const target = targets[0]!;
  let dash: DashboardProcess;
  before(async () => {
    dash = await startDashboardCli(target.url, ['--token', 's3cret']);
  });
  after(() => dash.stop());

  test('every API call needs the token; the page itself does not', async () => {
    assert.equal((await apiGet(dash.url, 'streams')).status, 401);
    assert.equal((await apiGet(dash.url, 'streams', 'wrong')).status, 401);
    assert.equal((await apiGet(dash.url, 'streams', 's3cret')).status, 200);
    const unauth = await apiPost<{ error: string }>(dash.url, 'streams/orders/dead-letters/purge', { all: true });
    assert.equal(unauth.status, 401);
    assert.match(unauth.body.error, /token required/);
    assert.equal((await apiPost(dash.url, 'streams/orders/dead-letters/purge', { all: true }, 'wrong')).status, 401);
    assert.equal((await fetch(`${dash.url}/`)).status, 200);
  });
});
