// The Prometheus endpoints scraped over HTTP and parsed: `sluice server --metrics-port` (a child
// process) and a worker's broker Metrics served with startMetricsServer / metricsHandler.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import { Metrics } from '../../src/broker/metrics.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { metricsHandler, startMetricsServer } from '../../src/server/metrics.js';
import { sampleValue, scrape, startSluice } from './helpers.js';
import { waitFor } from '../support/wait.js';

const server = await startSluice();
after(() => server.stop());

test('sluice server metrics: command counters move, stream length and group gauges appear', async () => {
  const conn = await connect(server.url);
  try {
    await conn.call('PING');
    const before = await scrape(server.metricsUrl!);
    const xaddsBefore = sampleValue(before, 'sluice_command_calls_total', { command: 'xadd' }) ?? 0;
    assert.ok((sampleValue(before, 'sluice_connected_clients') ?? 0) >= 1);

    for (let i = 1; i <= 5; i++) await conn.call('XADD', 'm:orders', `${i}-0`, 'n', String(i));
    await conn.call('XGROUP', 'CREATE', 'm:orders', 'billing', '0');
    await conn.call('XREADGROUP', 'GROUP', 'billing', 'c1', 'COUNT', '2', 'STREAMS', 'm:orders', '>');
    await conn.call('SELECT', '3');
    await conn.call('XADD', 'other', '*', 'a', 'b');

    const after = await scrape(server.metricsUrl!);
    assert.equal(sampleValue(after, 'sluice_command_calls_total', { command: 'xadd' }), xaddsBefore + 6);
    assert.equal(sampleValue(after, 'sluice_command_calls_total', { command: 'xgroup|create' }), 1);
    assert.ok((sampleValue(after, 'sluice_command_duration_seconds_total', { command: 'xadd' }) ?? 0) > 0);
    assert.ok(sampleValue(after, 'sluice_commands_processed_total')! > sampleValue(before, 'sluice_commands_processed_total')!);
    assert.equal(sampleValue(after, 'sluice_stream_length', { db: '0', stream: 'm:orders' }), 5);
    assert.equal(sampleValue(after, 'sluice_stream_length', { db: '3', stream: 'other' }), 1);
    const group = { db: '0', stream: 'm:orders', group: 'billing' };
    assert.equal(sampleValue(after, 'sluice_group_lag', group), 3);
    assert.equal(sampleValue(after, 'sluice_group_pending', group), 2);
    assert.equal(sampleValue(after, 'sluice_group_consumers', group), 1);

    await conn.call('SELECT', '0');
    await conn.call('XACK', 'm:orders', 'billing', '1-0');
    const acked = await scrape(server.metricsUrl!);
    assert.equal(sampleValue(acked, 'sluice_group_pending', group), 1);
    assert.equal(sampleValue(acked, 'sluice_command_calls_total', { command: 'xack' }), 1);
  } finally {
    await conn.close();
  }
});

test('the metrics endpoint answers 404 off /metrics and the Prometheus content type on it', async () => {
  const res = await fetch(server.metricsUrl!);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.match(await res.text(), /^# HELP sluice_connections_received_total /m);
  assert.equal((await fetch(new URL('/nope', server.metricsUrl!))).status, 404);
});

test('worker-side metrics: broker counters, latency histogram and group gauges over HTTP', async () => {
  const conn = await connect('embedded:');
  const metrics = new Metrics();
  const endpoint = await startMetricsServer(metrics, { port: 0 });
  const handled = new Set<number>();
  const worker = new Worker<{ n: number }>(
    conn,
    { stream: 'jobs', group: 'workers', consumer: 'w1', blockMs: 50, maxDeliveries: 1, metrics },
    (job) => {
      if (job.payload.n === 0) throw new Error('poison');
      handled.add(job.payload.n);
    },
  );
  try {
    await worker.start();
    await new Producer(conn, { stream: 'jobs' }).addMany(Array.from({ length: 20 }, (_, n) => ({ n })));
    await waitFor(async () => handled.size === 19 && Number(await conn.call('XLEN', 'jobs:dead')) === 1, 'all handled');
    await waitFor(() => metrics.snapshot().processed === 19, 'acks counted');

    const samples = await scrape(endpoint.url);
    assert.equal(sampleValue(samples, 'sluice_messages_processed_total'), 19);
    assert.equal(sampleValue(samples, 'sluice_messages_failed_total'), 1);
    assert.equal(sampleValue(samples, 'sluice_messages_dead_lettered_total'), 1);
    assert.equal(sampleValue(samples, 'sluice_handler_duration_seconds_count'), 20);
    assert.equal(sampleValue(samples, 'sluice_handler_duration_seconds_bucket', { le: '+Inf' }), 20);
    assert.equal(sampleValue(samples, 'sluice_group_lag', { stream: 'jobs', group: 'workers' }), 0);
    assert.equal(sampleValue(samples, 'sluice_group_pending', { stream: 'jobs', group: 'workers' }), 0);

    // The same text through metricsHandler mounted on the caller's own HTTP server.
    const own = createServer(metricsHandler(metrics.registry));
    await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
    try {
      const port = (own.address() as { port: number }).port;
      const viaHandler = await scrape(`http://127.0.0.1:${port}/metrics`);
      assert.equal(sampleValue(viaHandler, 'sluice_messages_processed_total'), 19);
    } finally {
      await new Promise<void>((r) => own.close(() => r()));
    }
  } finally {
    await worker.close();
    await endpoint.close();
    await conn.close();
  }
});
