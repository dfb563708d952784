// BucketHistogram stands in for prom-client's Histogram in the workers' metrics: fed the same
// observations, a registry must print exactly what it prints for prom-client's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry, type Metric } from 'prom-client';
import { BucketHistogram } from '../../src/broker/bucket-histogram.js';

const BOUNDS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];

function pair(labelNames: string[]): { ours: BucketHistogram; theirs: Histogram; oursText: () => Promise<string>; theirsText: () => Promise<string>; oursRegistry: Registry } {
  const oursRegistry = new Registry();
  const theirsRegistry = new Registry();
  const ours = new BucketHistogram('h_seconds', 'Handler run time', BOUNDS, labelNames);
  oursRegistry.registerMetric(ours as unknown as Metric);
  const theirs = new Histogram({ name: 'h_seconds', help: 'Handler run time', buckets: BOUNDS, labelNames, registers: [theirsRegistry] });
  return { ours, theirs, oursRegistry, oursText: () => oursRegistry.metrics(), theirsText: () => theirsRegistry.metrics() };
}

test('without labels: the same text as prom-client for any observations (bounds, zero, large values)', async () => {
  const value = fc.oneof(fc.constantFrom(0, ...BOUNDS, 31, 1e9), fc.double({ min: 0, max: 100, noNaN: true }));
  await fc.assert(
    fc.asyncProperty(fc.array(value, { maxLength: 60 }), async (values) => {
      const { ours, theirs, oursText, theirsText } = pair([]);
      const series = ours.labels();
      for (const v of values) {
        series.observe(v);
        theirs.observe(v);
      }
      assert.equal(await oursText(), await theirsText());
    }),
    { numRuns: 200 },
  );
});

test('labelled series: the same text as prom-client, series in order of first observation, none before it', async () => {
  const { ours, theirs, oursText, theirsText } = pair(['stream', 'group']);
  const a = ours.labels('orders', 'billing');
  const b = ours.labels('orders', 'mail');
  assert.equal(await oursText(), await theirsText(), 'a series made but never observed is not listed');
  const observations: Array<[string, string, number]> = [
    ['orders', 'mail', 0.002],
    ['orders', 'billing', 0.0004],
    ['orders', 'mail', 7],
    ['orders', 'billing', 0.1],
  ];
  for (const [stream, group, v] of observations) {
    (group === 'mail' ? b : a).observe(v);
    theirs.labels({ stream, group }).observe(v);
  }
  assert.equal(await oursText(), await theirsText());
  assert.match(await oursText(), /^h_seconds_bucket\{le="0\.005",stream="orders",group="mail"\} 1$/m);
  assert.match(await oursText(), /^h_seconds_count\{stream="orders",group="billing"\} 2$/m);
});

test('resetMetrics: every series unlisted and zero; a recorder made before keeps counting afterwards', async () => {
  const { ours, theirs, oursRegistry, oursText, theirsText } = pair([]);
  const series = ours.labels();
  series.observe(0.2);
  theirs.observe(0.2);
  oursRegistry.resetMetrics();
  theirs.reset();
  assert.equal(await oursText(), await theirsText());
  series.observe(3);
  theirs.observe(3);
  assert.equal(await oursText(), await theirsText());
  assert.match(await oursText(), /^h_seconds_count 1$/m);
});

test('bad input: a value that is not a finite number is refused, as prom-client refuses it; wrong label counts too', () => {
  const { ours } = pair(['stream']);
  assert.throws(() => ours.labels('s').observe(Number.NaN), /not a valid number/);
  assert.throws(() => ours.labels(), /expected 1 label values, got 0/);
  assert.throws(() => new BucketHistogram('x', 'x', [1, 1]), /ascend/);
});
