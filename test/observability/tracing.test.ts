// Tracing through @opentelemetry/api with the SDK's in-memory exporter: the producer's span and
// the worker's span of the same message share the trace (the entry carries `traceparent`), on
// the embedded engine, on `sluice server` and on a real redis-server; failures, retries and dead
// letters are recorded.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { connect, type Connection, exponentialBackoff, open, Producer, Worker } from 'sluice';
import { type RedisServer, type SluiceServer, startRedisServer, startSluiceServer, stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const exporter = new InMemorySpanExporter();
const tracer = () => trace.getTracer('test');

before(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

after(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

let redis: RedisServer | null = null;
let sluiceServer: SluiceServer | null = null;
after(async () => {
  if (redis) await stopChild(redis.child);
  if (sluiceServer) await stopChild(sluiceServer.child);
});

const backends: Array<{ name: string; connect: () => Promise<{ conn: Connection; done: () => Promise<void> }> }> = [
  {
    name: 'embedded',
    connect: async () => {
      const db = await open();
      const conn = await connect(db);
      return { conn, done: async () => (await conn.close(), await db.close()) };
    },
  },
  { name: 'sluice server', connect: async () => emptiedServer((sluiceServer ??= await startSluiceServer()).port) },
  { name: 'redis-server', connect: async () => emptiedServer((redis ??= await startRedisServer()).port) },
];

/** A connection to a server this file started once, emptied for the test that asks for it. */
async function emptiedServer(port: number): Promise<{ conn: Connection; done: () => Promise<void> }> {
  const conn = await connect(`redis://127.0.0.1:${port}`);
  await conn.call('FLUSHALL');
  return { conn, done: () => conn.close() };
}

function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.name === name);
}

function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

for (const backend of backends) {
  test(`${backend.name}: the producer span, the worker span and the handler's own span share one trace`, async () => {
    exporter.reset();
    const { conn, done } = await backend.connect();
    const stream = `orders-${backend.name}`;
    const producer = new Producer(conn, { stream });
    let id = '';
    await tracer().startActiveSpan('checkout', async (span) => {
      id = await producer.add({ order: 7 }, { key: 'customer-1' });
      span.end();
    });
    const worker = new Worker(conn, { stream, group: 'billing', consumer: 'w1' }, async () => {
      // Started inside the handler: a child of the job's span.
      tracer().startSpan('charge').end();
    });
    await worker.start();
    await waitFor(() => spansNamed(`process ${stream}`).length === 1, 'the consumer span');
    await worker.close();

    const [checkout] = spansNamed('checkout');
    const [send] = spansNamed(`send ${stream}`);
    const [consume] = spansNamed(`process ${stream}`);
    const [charge] = spansNamed('charge');
    assert.ok(checkout && send && consume && charge);
    const traceId = checkout.spanContext().traceId;
    for (const s of [send, consume, charge]) assert.equal(s.spanContext().traceId, traceId, s.name);
    assert.equal(send.kind, SpanKind.PRODUCER);
    assert.equal(parentId(send), checkout.spanContext().spanId);
    assert.equal(send.attributes['messaging.message.id'], id);
    assert.equal(consume.kind, SpanKind.CONSUMER);
    assert.equal(parentId(consume), send.spanContext().spanId);
    assert.deepEqual(consume.links.map((l) => l.context.spanId), [send.spanContext().spanId]);
    assert.equal(parentId(charge), consume.spanContext().spanId);
    assert.deepEqual(
      { ...consume.attributes },
      {
        'messaging.system': 'redis',
        'messaging.destination.name': stream,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.message.id': id,
        'messaging.consumer.group.name': 'billing',
        'messaging.sluice.consumer': 'w1',
        'messaging.sluice.deliveries': 1,
        'messaging.sluice.key': 'customer-1',
      },
    );
    assert.equal(consume.status.code, SpanStatusCode.OK);

    // The wire: a traceparent field naming the producer span, after the documented fields.
    const [[, fields]] = (await conn.call('XRANGE', stream, '-', '+')) as [[string, string[]]];
    assert.deepEqual(fields, [
      'payload', '{"order":7}', 'content-type', 'application/json', 'key', 'customer-1', 'job-id', id,
      'traceparent', `00-${traceId}-${send.spanContext().spanId}-01`,
    ]);
    await done();
  });

  test(`${backend.name}: a failing job's spans have ERROR status, the exception, then a retry and a dead-letter event`, async () => {
    exporter.reset();
    const { conn, done } = await backend.connect();
    const stream = `failing-${backend.name}`;
    await new Producer(conn, { stream }).add({ order: 8 });
    const worker = new Worker(conn, { stream, group: 'g', maxDeliveries: 2, backoff: exponentialBackoff(10) }, () => {
      throw new Error('card declined');
    });
    worker.on('error', () => {});
    const dead = new Promise((resolve) => worker.once('deadLettered', resolve));
    await worker.start();
    await dead;
    await worker.close();
    const [send] = spansNamed(`send ${stream}`);
    const runs = spansNamed(`process ${stream}`);
    assert.equal(runs.length, 2);
    for (const [i, span] of runs.entries()) {
      assert.equal(span.spanContext().traceId, send!.spanContext().traceId);
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.equal(span.status.message, 'card declined');
      assert.equal(span.attributes['messaging.sluice.deliveries'], i + 1);
      const exception = span.events.find((e) => e.name === 'exception');
      assert.equal(exception?.attributes?.['exception.message'], 'card declined');
    }
    assert.deepEqual(runs[0]!.events.map((e) => e.name), ['sluice.retry', 'exception']);
    assert.deepEqual(runs[1]!.events.map((e) => e.name), ['sluice.dead_letter', 'exception']);
    assert.equal(runs[1]!.events[0]!.attributes?.['sluice.dead_letter.stream'], `${stream}:dead`);
    await done();
  });
}

test('an entry that does not decode is dead-lettered in a span of its own, in the producer\'s trace', async () => {
  exporter.reset();
  const db = await open();
  const conn = await connect(db);
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  await conn.call('XADD', 'raw', '*', 'payload', '{not json', 'traceparent', `00-${traceId}-b7ad6b7169203331-01`);
  const worker = new Worker(conn, { stream: 'raw', group: 'g' }, () => assert.fail('the handler never sees it'));
  const dead = new Promise((resolve) => worker.once('deadLettered', resolve));
  await worker.start();
  await dead;
  await worker.close();
  const [span] = spansNamed('process raw');
  assert.equal(span!.spanContext().traceId, traceId);
  assert.equal(parentId(span!), 'b7ad6b7169203331');
  assert.equal(span!.status.code, SpanStatusCode.ERROR);
  assert.match(span!.status.message!, /^malformed entry/);
  assert.deepEqual(span!.events.map((e) => e.name), ['sluice.dead_letter', 'exception']);
  await conn.close();
  await db.close();
});

test('without a registered propagator the producer writes traceparent itself, and the worker still joins the trace', async () => {
  exporter.reset();
  propagation.disable();
  try {
    const db = await open();
    const conn = await connect(db);
    const id = await new Producer(conn, { stream: 'plain' }).add('x');
    const [send] = spansNamed('send plain');
    const [[, fields]] = (await conn.call('XRANGE', 'plain', '-', '+')) as [[string, string[]]];
    assert.equal(fields[fields.indexOf('traceparent') + 1], `00-${send!.spanContext().traceId}-${send!.spanContext().spanId}-01`);
    const worker = new Worker(conn, { stream: 'plain', group: 'g' }, () => {});
    await worker.start();
    await waitFor(() => spansNamed('process plain').length === 1, 'the consumer span');
    await worker.close();
    assert.equal(parentId(spansNamed('process plain')[0]!), send!.spanContext().spanId);
    await conn.close();
    await db.close();
  } finally {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
});

test('with the api but no SDK registered, entries carry no trace fields and jobs run as usual', () => {
  const script = `
    import { connect, open, Producer, Worker } from 'sluice';
    const db = await open();
    const conn = await connect(db);
    const id = await new Producer(conn, { stream: 's' }).add({ a: 1 });
    const [[, fields]] = await conn.call('XRANGE', 's', '-', '+');
    let seen = null;
    const worker = new Worker(conn, { stream: 's', group: 'g' }, (job) => { seen = job.payload; });
    await worker.start();
    for (const deadline = Date.now() + 20_000; seen === null; await new Promise((r) => setTimeout(r, 5))) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the job');
    }
    await worker.close();
    console.log(JSON.stringify({ id, fields, seen }));
    await conn.close();
    await db.close();
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  const { id, fields, seen } = JSON.parse(run.stdout);
  assert.deepEqual({ fields, seen }, { fields: ['payload', '{"a":1}', 'content-type', 'application/json', 'job-id', id], seen: { a: 1 } });
});
