// Metrics' group-lag gauges: one XINFO GROUPS per watched stream and scrape (shared by the lag
// and pending gauges), and a closed worker's streams stop being scraped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Arg, Connection } from '../../src/client/connection.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { open } from '../../src/client/embedded.js';
import { Metrics } from '../../src/broker/metrics.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';

/** The connection, counting the commands sent through call(). */
function counting(conn: Connection): { conn: Connection; calls: string[] } {
  const calls: string[] = [];
  const wrapped = Object.create(conn) as Connection;
  wrapped.call = (...args: Arg[]) => {
    calls.push(args.slice(0, 2).join(' '));
    return conn.call(...args);
  };
  return { conn: wrapped, calls };
}

test('a scrape sends one XINFO GROUPS per stream; a closed worker is no longer scraped', async () => {
  const db = await open();
  const base = new EmbeddedConnection(db, false);
  await new Producer(base, { stream: 'a' }).addMany([1, 2]);
  const { conn, calls } = counting(base);
  const metrics = new Metrics();
  const worker = new Worker<number>(conn, { stream: 'a', group: 'g', metrics }, () => {});
  await worker.start();
  await waitFor(() => metrics.snapshot().processed === 2, 'both handled', WAIT_LIMIT_MS, 5);

  calls.length = 0;
  const text = await metrics.prometheus();
  assert.match(text, /^sluice_group_lag\{stream="a",group="g"\} 0$/m);
  assert.match(text, /^sluice_group_pending\{stream="a",group="g"\} 0$/m);
  assert.deepEqual(calls.filter((c) => c.startsWith('XINFO')), ['XINFO GROUPS']);

  await worker.close();
  await conn.close();
  calls.length = 0;
  const after = await metrics.prometheus(); // resolves although the worker's connection is closed
  assert.doesNotMatch(after, /sluice_group_lag\{/);
  assert.deepEqual(calls, []);
  await db.close();
});
