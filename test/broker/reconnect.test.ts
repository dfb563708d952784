// Reconnect after the server restarts (with persistence): the worker waits out the outage,
// then resumes, including its own pending entries, which it re-reads from id 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { waitFor } from '../support/wait.js';

describeEach([redisServer, sluiceServer], (name) => `reconnect on ${name}`, (b) => {
  test('the worker survives a server restart and re-reads its own PEL', async () => {
    const conn = await b.connect();
    const stream = 'reconnect:orders';
    const handled = new Set<number>();
    // claimIdleMs far beyond the test: only the PEL re-read can deliver the hidden entry.
    const worker = new Worker<number>(conn, { stream, group: 'g', consumer: 'w1', claimIdleMs: 600_000, blockMs: 200 }, (job) => void handled.add(job.payload));
    let reconnects = 0;
    conn.onReconnect(() => reconnects++);
    await worker.start();
    const producer = new Producer(conn, { stream });
    await producer.addMany(Array.from({ length: 50 }, (_, i) => i));
    await waitFor(() => handled.size === 50, 'first batch');

    // An entry delivered to w1 whose reply w1 never saw (as when a link drops mid-read):
    // XADD and XREADGROUP in one MULTI, so the worker's blocked read cannot get it first.
    const other = await b.connect();
    await other.multi([
      ['XADD', stream, '*', 'payload', '1000', 'content-type', 'application/json'],
      ['XREADGROUP', 'GROUP', 'g', 'w1', 'COUNT', 1, 'STREAMS', stream, '>'],
    ]);
    await other.close();
    const owned = (await conn.call('XPENDING', stream, 'g', '-', '+', 10, 'w1')) as Value[][];
    assert.equal(owned.length, 1);
    assert.equal(handled.has(1000), false);

    await b.restart!();
    await producer.addMany(Array.from({ length: 50 }, (_, i) => 50 + i));
    await waitFor(() => handled.size === 101, 'after restart', 30_000);
    assert.ok(reconnects >= 1);
    assert.ok(handled.has(1000), 'hidden pending entry re-read from 0');
    await worker.close();
    await waitFor(async () => Number(((await conn.call('XPENDING', stream, 'g')) as Value[])[0]) === 0, 'acked');
    await conn.close();
  });
}, { persistent: true });
