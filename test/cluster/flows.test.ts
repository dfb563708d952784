// Flows on a real Redis Cluster (3 masters): a flow whose streams share one hash tag is written
// in one MULTI and reported to in WATCHed MULTIs without CROSSSLOT, over two streams and three
// levels; a flow whose streams are in different slots is refused at add() with a FlowSlotError
// naming them (nothing written), instead of a CROSSSLOT from the server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlowProducer, FlowSlotError } from '../../src/broker/flows/flow-producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { useCluster } from './use-cluster.js';

const shared = useCluster();
const { workers } = shared;

test('streams sharing a hash tag: the flow runs; streams in different slots: FlowSlotError at add, nothing written', async () => {
  const { conn } = shared;
  const flows = new FlowProducer(conn);
  for (const stream of ['{shop}orders', '{shop}parts']) {
    const w = new Worker<string>(conn, { stream, group: 'g', blockMs: 200 }, async (job) => (job.payload === 'parent' || job.payload === 'mid' ? Object.keys(await job.getChildrenValues()).sort().join(',') : job.payload.toUpperCase()));
    w.on('error', () => {});
    workers.push(w as Worker);
    await w.start();
  }
  const node = await flows.add({
    stream: '{shop}orders',
    data: 'parent',
    opts: { jobId: 'o1' },
    children: [
      { stream: '{shop}parts', data: 'a', opts: { jobId: 'a' } },
      { stream: '{shop}orders', data: 'mid', opts: { jobId: 'm' }, children: [{ stream: '{shop}parts', data: 'b', opts: { jobId: 'b' } }] },
    ],
  });
  const queue = new Queue(conn, { stream: '{shop}orders' });
  assert.equal(await queue.waitUntilFinished(node.id, 20_000), 'a,m');
  assert.deepEqual(await queue.getChildrenValues('m'), { b: 'B' });
  await queue.close();

  await assert.rejects(
    flows.add({ stream: 'orders', data: 'parent', opts: { jobId: 'x1' }, children: [{ stream: 'parts', data: 'a', opts: { jobId: 'x2' } }] }),
    (err: unknown) => {
      assert.ok(err instanceof FlowSlotError);
      assert.deepEqual(err.streams, ['orders', 'parts']);
      assert.match(err.message, /share one hash tag on Redis Cluster.*orders \(slot \d+\), parts \(slot \d+\).*\{flow\}orders and \{flow\}parts/);
      return true;
    },
  );
  assert.equal(await conn.call('EXISTS', '{orders}:job:x1'), 0);
});
