// The broker on a server with the Redis 8 stream features (the embedded engine): idempotent
// production, CLAIM reads recovering a dead consumer's entries, retries that keep their backoff
// although XNACK could hand them back at once. (Idempotent adds on every backend, redis-server 7
// included: idempotent-adds.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { open } from '../../src/client/embedded.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const t = setInterval(() => {
      if (cond()) {
        clearInterval(t);
        resolve();
      }
    }, 2);
  });
}

test('Producer with producerId: a resend returns the first id and adds nothing', async () => {
  const db = await open();
  const conn = new EmbeddedConnection(db, false);
  const p = new Producer(conn, { jobs: false, stream: 'orders', producerId: 'shop-1' });
  const first = await p.add({ order: 1 }, { idempotencyKey: 'order-1' });
  assert.equal(await p.add({ order: 1 }, { idempotencyKey: 'order-1' }), first);
  const auto = await p.add({ order: 2 });
  assert.equal(await p.add({ order: 2 }), auto); // IDMPAUTO: same content, same iid
  const [x, y] = await p.addMany([{ payload: { order: 3 }, idempotencyKey: 'order-3' }, { payload: { order: 3 }, idempotencyKey: 'order-3' }], { keyed: true });
  assert.equal(x, y);
  assert.equal(await conn.call('XLEN', 'orders'), 3);
  await db.close();
});

test('Worker with CLAIM reads takes a dead consumer\'s entries; a failure still waits out its backoff', async () => {
  const db = await open();
  const conn = new EmbeddedConnection(db, false);
  await conn.call('XGROUP', 'CREATE', 's', 'g', '0', 'MKSTREAM');
  const p = new Producer(conn, { stream: 's' });
  await p.addMany([{ n: 1 }, { n: 2 }]);
  await conn.call('XREADGROUP', 'GROUP', 'g', 'dead', 'COUNT', 1, 'STREAMS', 's', '>');
  const deliveries = new Map<number, Array<{ n: number; at: number }>>();
  const claimed: string[] = [];
  const w = new Worker<{ n: number }>(conn, { stream: 's', group: 'g', claimIdleMs: 1000, backoff: () => 300 }, (job) => {
    const seen = deliveries.get(job.payload.n) ?? [];
    seen.push({ n: job.deliveries, at: Date.now() });
    deliveries.set(job.payload.n, seen);
    if (job.payload.n === 2 && job.deliveries === 1) throw new Error('transient');
  });
  w.on('claimed', (ids) => claimed.push(...ids));
  await w.start();
  assert.deepEqual(w.features, { readClaim: true, xnack: true, idmp: true, deletionPolicies: true });
  // 1 was the dead consumer's: claimed as its 2nd delivery once idle for claimIdleMs. 2 failed
  // once and came back no earlier than its 300 ms backoff, though XNACK could release it at once.
  await until(() => (deliveries.get(1)?.length ?? 0) >= 1 && (deliveries.get(2)?.length ?? 0) >= 2);
  await w.close();
  assert.deepEqual(deliveries.get(1)!.map((d) => d.n), [2]);
  const [first, second] = deliveries.get(2)!;
  assert.deepEqual([first!.n, second!.n], [1, 2]);
  assert.ok(second!.at - first!.at >= 290, `retried after ${second!.at - first!.at} ms`);
  assert.equal(claimed.length, 1, 'a retry of our own is not a claim');
  assert.equal(w.metrics.snapshot().retried, 1);
  assert.equal(w.metrics.snapshot().redelivered, 2, 'the claimed entry and the retried one');
  assert.deepEqual(await conn.call('XPENDING', 's', 'g'), [0, null, null, null]);
  await db.close();
});

test('Worker with streamFeatures redis7 uses none of them on the same engine', async () => {
  const db = await open();
  const conn = new EmbeddedConnection(db, false);
  const w = new Worker(conn, { stream: 's', group: 'g', streamFeatures: 'redis7' }, () => {});
  await w.start();
  assert.deepEqual(w.features, { readClaim: false, xnack: false, idmp: false, deletionPolicies: false });
  await w.close();
  await db.close();
});
