// The package as users import it: by its name, `sluice`, through package.json's exports. Every
// runtime export of the entry is listed here and used once; the surface (types included) is in
// api/sluice.api.md (api-report.test.ts keeps it in step).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { Cluster, Redis } from 'ioredis';
import * as sluice from 'sluice';
import {
  ClusterConnection,
  connect,
  connectCluster,
  dashboardHandler,
  DashboardRefusal,
  DeadLetters,
  delayedKey,
  DelayedMover,
  EmbeddedConnection,
  EmbeddedDatabase,
  EmbeddedSession,
  exponentialBackoff,
  groupLag,
  type Job,
  jsonCodec,
  LeaseLostError,
  MalformedEntryError,
  Metrics,
  metricsHandler,
  open,
  partitionOf,
  partitionStreams,
  pausedGroups,
  pauseGroup,
  isGroupPaused,
  resumeGroup,
  Scheduler,
  probeStreamFeatures,
  Producer,
  RedisConnection,
  ReplicationError,
  ReplyError,
  serve,
  serverMetricsRegistry,
  silentLogger,
  startDashboard,
  startMetricsServer,
  TimeoutError,
  TransactionError,
  Worker,
  WorkerClosedError,
  CloseTimeoutError,
  SandboxExitError,
  SandboxLoadError,
  Queue,
  QueueEvents,
  JobView,
  JobFailedError,
  JobNotFoundError,
  JobActiveError,
  JobStateError,
  WaitTimeoutError,
  FlowProducer,
  FlowSlotError,
  FlowJobIdError,
} from 'sluice';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';

test('the entry exports exactly the documented runtime names', () => {
  assert.deepEqual(Object.keys(sluice).sort(), [
    'CloseTimeoutError', 'ClusterConnection', 'DashboardRefusal', 'DeadLetters', 'DelayedMover', 'EmbeddedConnection', 'EmbeddedDatabase', 'EmbeddedSession',
    'LeaseLostError', 'MalformedEntryError', 'Metrics', 'Producer', 'RedisConnection', 'ReplicationError', 'ReplyError',
    'TimeoutError', 'TransactionError', 'Worker', 'WorkerClosedError', 'connect', 'connectCluster', 'dashboardHandler',
    'delayedKey', 'exponentialBackoff', 'groupLag', 'jsonCodec', 'metricsHandler', 'open', 'partitionOf', 'partitionStreams',
    'probeStreamFeatures', 'serve', 'Queue', 'QueueEvents', 'SandboxExitError', 'SandboxLoadError', 'JobView', 'JobFailedError', 'JobNotFoundError', 'JobActiveError', 'JobStateError', 'WaitTimeoutError', 'FlowProducer', 'FlowSlotError', 'FlowJobIdError', 'Scheduler', 'pauseGroup', 'resumeGroup', 'pausedGroups', 'isGroupPaused', 'serverMetricsRegistry', 'silentLogger', 'startDashboard', 'startMetricsServer',
  ].sort());
});

test('every export works from the package name: embedded and served, produce, consume, dead letters, metrics, dashboard', async () => {
  const db = await open({ logger: silentLogger });
  assert.ok(db instanceof EmbeddedDatabase);
  const session = db.session();
  assert.ok(session instanceof EmbeddedSession);
  assert.equal(session.id, await session.call('CLIENT', 'ID'));
  session.close();
  // The handles carry no engine internals, in their types (api/sluice.api.md) or at run time.
  assert.deepEqual(Object.keys(db), []);
  assert.deepEqual(Object.keys(new EmbeddedSession(db)), ['db']);
  const conn = await connect(db);
  assert.ok(conn instanceof EmbeddedConnection);
  assert.deepEqual(await probeStreamFeatures(conn), { readClaim: true, xnack: true, idmp: true, deletionPolicies: true });
  await assert.rejects(db.call('XADD', 's', 'bad-id', 'f', 'v'), ReplyError);
  await assert.rejects(conn.multi([['XADD', 's', 'bad-id', 'f', 'v']]), TransactionError);

  const streams = partitionStreams('orders', 2);
  const producer = new Producer(conn, { stream: 'orders', partitions: 2 });
  const events = new QueueEvents(conn, { stream: 'orders', partitions: 2 });
  const seen: string[] = [];
  events.on('completed', (e) => seen.push(e.jobId));
  await events.start();
  const first = await producer.add({ n: 1, bad: false }, { key: 'a' });
  const second = await producer.add({ n: 2, bad: true }, { key: 'b' });
  const queue = new Queue<{ n: number; bad: boolean }, void>(conn, { stream: 'orders', partitions: 2 });
  assert.equal(producer.streamFor('a'), streams[partitionOf('a', 2)]);
  const metrics = new Metrics();
  const handled: Array<Job<{ n: number; bad: boolean }>> = [];
  const worker = new Worker<{ n: number; bad: boolean }>(
    conn,
    { stream: 'orders', partitions: 2, group: 'g', maxDeliveries: 1, metrics, codec: jsonCodec, backoff: exponentialBackoff(10) },
    (job) => {
      if (job.payload.bad) throw new MalformedEntryError('bad order');
      handled.push(job);
    },
  );
  await worker.start();
  await waitFor(() => metrics.snapshot().processed + metrics.snapshot().deadLettered === 2, 'one handled, one dead-lettered', WAIT_LIMIT_MS, 5);
  await worker.close();
  assert.deepEqual(handled.map((j) => j.payload.n), [1]);
  const done = await queue.getJob(first);
  assert.ok(done instanceof JobView);
  assert.equal(done.state, 'completed');
  await assert.rejects(queue.waitUntilFinished(second, 1000), JobFailedError);
  await assert.rejects(queue.waitUntilFinished('no-such-job', 1000), JobNotFoundError);
  await assert.rejects(queue.promote(first), JobStateError);
  assert.equal(await queue.remove(first), true);
  assert.equal(new JobActiveError(first).name, 'JobActiveError');
  await waitFor(() => seen.length === 1, 'the completed event', WAIT_LIMIT_MS, 5);
  assert.deepEqual(seen, [first]);
  await events.close();
  await queue.close();
  const dead = new DeadLetters(conn, { source: producer.streamFor('b') });
  assert.equal((await dead.list())[0]!.error, 'bad order');
  assert.equal((await groupLag(conn, producer.streamFor('a')))[0]!.lag, 0);
  // A delayed job, moved into its stream by a standalone mover.
  await new Producer(conn, { stream: 'later' }).add({ n: 3 }, { delayMs: 0 });
  assert.equal(Number(await conn.call('ZCARD', delayedKey('later'))), 1);
  const mover = new DelayedMover(conn, { stream: 'later' });
  await mover.start();
  await waitFor(async () => Number(await conn.call('XLEN', 'later')) === 1, 'the delayed job moved', WAIT_LIMIT_MS, 5);
  await mover.close();
  assert.equal(Number(await conn.call('ZCARD', delayedKey('later'))), 0);
  await pauseGroup(conn, 'orders', 'g', { partitions: 2 });
  assert.equal(await isGroupPaused(conn, streams[0]!, 'g'), true);
  assert.deepEqual([...(await pausedGroups(conn, streams[1]!)).keys()], ['g']);
  await resumeGroup(conn, 'orders', 'g', { partitions: 2 });
  await producer.schedule('tick', { everyMs: 50 }, { n: 3, bad: false });
  await new Promise((r) => setTimeout(r, 120));
  const scheduler = new Scheduler(conn, producer.streamFor('tick'));
  assert.equal(await scheduler.tick(), 1);
  await scheduler.close();
  assert.equal(await producer.unschedule('tick'), true);
  assert.equal(await isGroupPaused(conn, streams[1]!, 'g'), false);
  for (const E of [LeaseLostError, TimeoutError, WorkerClosedError, CloseTimeoutError, ReplicationError, WaitTimeoutError, SandboxExitError]) assert.ok(E.prototype instanceof Error);
  // A flow: the parent runs once its child is done, and reads its value.
  const flows = new FlowProducer(conn);
  const flow = await flows.add({ stream: 'flow', data: 'parent', children: [{ stream: 'flow', data: 'child' }] });
  const flowWorker = new Worker<string>(conn, { stream: 'flow', group: 'g', blockMs: 50 }, async (job) => (job.payload === 'child' ? 'value' : job.getChildrenValues()));
  await flowWorker.start();
  const flowQueue = new Queue(conn, { stream: 'flow' });
  assert.deepEqual(await flowQueue.waitUntilFinished(flow.id, WAIT_LIMIT_MS), { [flow.children[0]!.id]: 'value' });
  await flowQueue.close();
  await flowWorker.close();
  assert.ok(FlowSlotError.prototype instanceof Error);
  assert.ok(FlowJobIdError.prototype instanceof Error);
  // A sandboxed processor (a module path) whose module is missing fails start().
  const sandboxed = new Worker(conn, { stream: 'sandboxed', group: 'g', sandbox: { kind: 'thread', size: 1 } }, '/no/such/processor.js');
  await assert.rejects(sandboxed.start(), SandboxLoadError);
  await sandboxed.close();

  // The same database behind a RESP server, reached by URL (the options go to ioredis) or
  // through an ioredis client of one's own (wrapped, not closed with the connection).
  const server = await serve({ port: 0 });
  assert.deepEqual(Object.keys(server).sort(), ['close', 'closed', 'connectionCount', 'host', 'onShutdown', 'port', 'url']);
  const remote = await connect(server.url, { connectionName: 'entry-test' });
  assert.ok(remote instanceof RedisConnection);
  assert.equal(await remote.call('CLIENT', 'GETNAME'), 'entry-test');
  await remote.close();
  const own = new Redis(server.url, { protocol: 2 });
  const wrapped = await connect(own);
  assert.ok(wrapped instanceof RedisConnection);
  assert.equal(await wrapped.call('PING'), 'PONG');
  await wrapped.close();
  assert.equal(await own.ping(), 'PONG');
  own.disconnect();
  const serverMetrics = await startMetricsServer(serverMetricsRegistry(server), { port: 0 });
  assert.match(await get(serverMetrics.url), /sluice_connected_clients \d+\n/);
  await serverMetrics.close();
  await server.close();

  const workerMetrics = await startMetricsServer(metrics.registry, { port: 0 });
  assert.match(await get(workerMetrics.url), /sluice_messages_processed_total 1/);
  await workerMetrics.close();
  assert.equal(typeof metricsHandler(metrics.registry), 'function');
  assert.equal(typeof dashboardHandler(conn), 'function');
  await assert.rejects(startDashboard(conn, { host: '0.0.0.0', port: 0 }), DashboardRefusal);
  await assert.rejects(connectCluster('redis://not-a-cluster'), TypeError);
  assert.equal(typeof ClusterConnection.fromUrl, 'function');
  await conn.close();
  await db.close();
});

// Compiled, never run: the client types sluice declares tell an ioredis Redis from a Cluster.
export function clientTypes(redis: Redis, cluster: Cluster): Array<Promise<unknown> | object> {
  return [
    connect(redis),
    connect(cluster),
    new RedisConnection(redis, false),
    new ClusterConnection(cluster, false),
    // @ts-expect-error a Cluster is not a single server's client
    new RedisConnection(cluster),
    // @ts-expect-error a single server's client is not a Cluster
    new ClusterConnection(redis),
  ];
}

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
}
