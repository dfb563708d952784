// Read-ahead (WorkerOptions.readAhead) on every backend, seen from the server: entries held
// under the worker's consumer beyond its handler slots. Auto reads ahead while runs are short
// and not while they are slow; a number is a fixed amount, 0 none; a limiter turns auto off;
// held entries never run past the concurrency limit and are all run, once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { Queue } from '../../src/broker/queue.js';
import { backends, deferred, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

describeEach(backends, (name) => `read-ahead on ${name}`, (b) => {
  let conn!: Connection;
  const workers: Array<{ close(): Promise<void> }> = [];
  before(async () => {
    conn = await b.connect();
  });
  after(async () => {
    for (const w of workers) await w.close();
    await conn?.close();
  });

  /** Entries pending under a consumer. */
  async function held(stream: string, consumer: string): Promise<number> {
    return ((await conn.call('XPENDING', stream, 'g', '-', '+', 1000, consumer)) as Value[]).length;
  }

  interface Scenario {
    /** Each run takes this long (ms; default: none). */
    runMs?: number;
    /** Looks at the stream while the blocking job runs. */
    whileBlocked?: (stream: string) => Promise<void>;
    /** Adds the 100 jobs (default: plain ones, before the worker starts). */
    fill?: (producer: Producer<number>) => Promise<void>;
    /** Called by the n-th run (adding more jobs, say). */
    onRun?: (producer: Producer<number>, n: number) => Promise<void>;
  }

  /**
   * 100 jobs at concurrency 1: the first `fast` run at once (or take `runMs` each), then one
   * blocks; resolves to the entries the consumer holds while it does, after all ran.
   */
  async function heldWhileBlocked(options: Partial<WorkerOptions>, fast: number, scenario: Scenario = {}): Promise<number> {
    const { runMs = 0, whileBlocked = async () => {}, onRun = async () => {} } = scenario;
    const stream = unique('ahead');
    const consumer = unique('c');
    const producer = new Producer<number>(conn, { stream });
    await (scenario.fill ?? ((p) => p.addMany(Array.from({ length: 100 }, (_, i) => i)).then(() => {})))(producer);
    const gate = deferred();
    let ran = 0;
    let active = 0;
    let peak = 0;
    const w = new Worker<number>(conn, { stream, group: 'g', consumer, concurrency: 1, ...options }, async () => {
      peak = Math.max(peak, ++active);
      await onRun(producer, ++ran);
      if (ran === fast + 1) await gate.promise;
      else if (runMs > 0) await new Promise((r) => setTimeout(r, runMs));
      active--;
    });
    workers.push(w);
    await w.start();
    await waitFor(() => ran === fast + 1, 'the blocking job started');
    // The read loop has had time to fill what it may hold.
    await new Promise((r) => setTimeout(r, 100));
    const count = await held(stream, consumer);
    await whileBlocked(stream);
    gate.resolve();
    await waitFor(() => ran === 100, 'all run');
    await waitFor(async () => (await held(stream, consumer)) === 0, 'all acknowledged');
    assert.equal(peak, 1, 'never past the concurrency');
    await producer.close();
    return count;
  }

  test('auto: short runs read ahead (max(16, concurrency))', async () => {
    const count = await heldWhileBlocked({}, 20);
    assert.ok(count > 1 && count <= 17, `held ${count}`);
  });

  test('jobs read ahead are listed as waiting (not active) until they start', async () => {
    let seen = { waiting: 0, active: 0, counted: 0 };
    const count = await heldWhileBlocked({}, 20, { whileBlocked: async (stream) => {
      const queue = new Queue(conn, { stream });
      const waiting = await queue.getJobs('waiting');
      seen = { waiting: waiting.length, active: (await queue.getJobs('active')).length, counted: (await queue.getJobCounts()).active };
      assert.ok(waiting.every((j) => j.state === 'waiting'));
    } });
    assert.equal(seen.active, 1, 'the one running');
    assert.equal(seen.counted, count, 'getJobCounts().active: every pending entry');
    // The rest of the 100: those held here and those not read yet.
    assert.equal(seen.waiting, 100 - 21);
  });

  test('auto: slow runs (20 ms) hold no more than their slots', async () => {
    assert.equal(await heldWhileBlocked({}, 5, { runMs: 20 }), 1);
  });

  test('reading a prioritized job turns auto read-ahead off: plain jobs added after it are not held', async () => {
    const count = await heldWhileBlocked({}, 20, {
      fill: async (p) => void (await p.addMany(Array.from({ length: 20 }, (_, i) => ({ payload: i, priority: 1 })), { keyed: true })),
      onRun: async (p, n) => void (n === 10 && (await p.addMany(Array.from({ length: 80 }, (_, i) => 20 + i)))),
    });
    assert.equal(count, 1);
  });

  test('a fixed read-ahead, and none', async () => {
    assert.equal(await heldWhileBlocked({ readAhead: 4 }, 3), 5);
    assert.equal(await heldWhileBlocked({ readAhead: 0 }, 20), 1);
  });

  test('a limiter that holds no start back leaves auto read-ahead on', async () => {
    const count = await heldWhileBlocked({ limiter: { max: 10_000, durationMs: 1000 } }, 20);
    assert.ok(count > 1 && count <= 17, `held ${count}`);
  });

  test('globalConcurrency turns auto read-ahead off', async () => {
    assert.equal(await heldWhileBlocked({ globalConcurrency: 5 }, 20), 1);
  });

  test('a bad readAhead is refused', () => {
    assert.throws(() => new Worker(conn, { stream: 'x', group: 'g', readAhead: -1 }, () => {}), /readAhead must be an integer >= 0/);
  });
});
