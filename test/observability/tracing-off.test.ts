// Without an SDK registered, a consumer makes no span at all (the api's tracer would hand out
// no-op spans at a cost per job); once one is registered, spans are made again, and not after
// it is disabled. Its own file: the api's registrations are global to the process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConsumerTrace, loadTracing } from '../../src/broker/tracing.js';

const entry = { id: '1-1', stream: 'orders', deliveries: 1, fields: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } };

test('a consumer span only while an SDK is registered', async () => {
  assert.notEqual(await loadTracing(), null, '@opentelemetry/api is installed for the tests');
  assert.equal(ConsumerTrace.start([entry], 'g', 'c'), null, 'no SDK: no span');

  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  const started = ConsumerTrace.start([entry], 'g', 'c');
  assert.notEqual(started, null);
  started!.ok(0);
  started!.endAll();
  const [span] = exporter.getFinishedSpans();
  assert.equal(span?.name, 'process orders');
  assert.equal(span?.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c', 'the producer\'s trace');

  trace.disable();
  assert.equal(ConsumerTrace.start([entry], 'g', 'c'), null, 'disabled: no span again');
});
