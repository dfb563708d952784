// The broker suite, run once per backend (redis-server, embedded engine, sluice server).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, Value } from '../../src/client/connection.js';
import { DeadLetters } from '../../src/broker/dead-letters.js';
import { groupLag } from '../../src/broker/metrics.js';
import { partitionStreams } from '../../src/broker/partition.js';
import { Producer } from '../../src/broker/producer.js';
import { type Job, Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { redisCluster } from '../cluster/cluster-backend.js';
import { backends, deferred, describeEach } from './backends.js';
import { unique, uniqueName } from '../support/names.js';
import { waitFor } from '../support/wait.js';

async function pendingCount(conn: Connection, stream: string, group: string): Promise<number> {
  const summary = (await conn.call('XPENDING', stream, group)) as Value[];
  return Number(summary[0]);
}

// The broker suite also runs on a local 3-master Redis Cluster (with replicas).
describeEach([...backends, redisCluster], (name) => `broker on ${name}`, (b) => {
  let conn: Connection;
  const workers: Worker[] = [];
  const worker = <T>(options: WorkerOptions, handler: (job: Job<T>) => unknown): Worker<T> => {
    const w = new Worker<T>(conn, { blockMs: 200, ...options }, handler);
    workers.push(w as Worker);
    return w;
  };

  before(async () => {
    conn = await b.connect();
  });
  after(async () => {
    for (const w of workers) await w.close();
    await conn?.close(); // undefined when the backend did not start
  });

  test('every message is handled once and acknowledged', async () => {
    const stream = unique('orders');
    const producer = new Producer(conn, { stream });
    const ids = await producer.addMany(Array.from({ length: 200 }, (_, i) => ({ n: i })));
    assert.equal(ids.length, 200);
    const seen = new Map<number, number>();
    const w = worker<{ n: number }>({ stream, group: 'g', concurrency: 10 }, (job) => {
      seen.set(job.payload.n, (seen.get(job.payload.n) ?? 0) + 1);
      assert.equal(job.deliveries, 1);
    });
    await w.start();
    await waitFor(() => seen.size === 200, 'all handled');
    await w.close();
    assert.ok([...seen.values()].every((c) => c === 1));
    assert.equal(await pendingCount(conn, stream, 'g'), 0);
    assert.equal(w.metrics.snapshot().processed, 200);
    assert.equal(w.metrics.snapshot().latency.count, 200);
  });

  test('messages added while the worker blocks are delivered', async () => {
    const stream = unique('live');
    const got: string[] = [];
    const w = worker<string>({ stream, group: 'g' }, (job) => void got.push(job.payload));
    await w.start();
    const producer = new Producer(conn, { stream });
    await producer.add('a');
    await waitFor(() => got.length === 1, 'first');
    await producer.add('b');
    await waitFor(() => got.length === 2, 'second');
    assert.deepEqual(got, ['a', 'b']);
  });

  test('the concurrency limit holds', async () => {
    const stream = unique('conc');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 60 }, (_, i) => i));
    let active = 0;
    let peak = 0;
    let done = 0;
    const w = worker({ stream, group: 'g', concurrency: 7 }, async () => {
      peak = Math.max(peak, ++active);
      await new Promise((r) => setTimeout(r, 2));
      active--;
      done++;
    });
    await w.start();
    await waitFor(() => done === 60, 'all done');
    assert.ok(peak <= 7, `peak ${peak}`);
    assert.ok(peak > 1, `peak ${peak}`);
  });

  test('a failed message stays pending and is retried after backoff', async () => {
    const stream = unique('retry');
    await new Producer(conn, { stream }).add({ flaky: true });
    const deliveries: number[] = [];
    const w = worker({ stream, group: 'g', maxDeliveries: 5, backoff: () => 20 }, (job) => {
      deliveries.push(job.deliveries);
      if (job.deliveries < 3) throw new Error(`attempt ${job.deliveries}`);
    });
    await w.start();
    await waitFor(() => w.metrics.snapshot().processed === 1, 'processed');
    assert.deepEqual(deliveries, [1, 2, 3]);
    const m = w.metrics.snapshot();
    assert.equal(m.failed, 2);
    assert.equal(m.retried, 2);
    assert.equal(m.deadLettered, 0);
    assert.equal(await pendingCount(conn, stream, 'g'), 0);
  });

  test('a poison message reaches the dead-letter stream after maxDeliveries', async () => {
    const stream = unique('poison');
    const [id] = await new Producer(conn, { stream }).addMany([{ poison: 1 }, { ok: 2 }]);
    let calls = 0;
    const good: unknown[] = [];
    const w = worker<Record<string, number>>({ stream, group: 'g', maxDeliveries: 3, backoff: () => 10 }, (job) => {
      if (job.payload['poison']) {
        calls++;
        throw new Error('boom');
      }
      good.push(job.payload);
    });
    await w.start();
    await waitFor(() => w.metrics.snapshot().deadLettered === 1, 'dead-lettered');
    assert.equal(calls, 3);
    assert.deepEqual(good, [{ ok: 2 }]);
    assert.equal(await pendingCount(conn, stream, 'g'), 0);
    const dlq = new DeadLetters(conn, { source: stream });
    assert.equal(dlq.stream, w.deadLetterStream);
    const [letter, ...rest] = await dlq.list();
    assert.equal(rest.length, 0);
    assert.equal(letter!.fields['job-id'], id, 'the dead letter keeps the job id add() returned');
    assert.match(letter!.sourceId, /^\d+-\d+$/, 'and names the entry it came from');
    assert.equal(letter!.sourceStream, stream);
    assert.equal(letter!.group, 'g');
    assert.equal(letter!.consumer, w.consumer);
    assert.equal(letter!.deliveries, 3);
    assert.equal(letter!.error, 'boom');
    assert.equal(letter!.fields['payload'], '{"poison":1}');
    assert.equal(letter!.fields['content-type'], 'application/json');
  });

  test('malformed payloads go to the dead-letter stream and the worker carries on', async () => {
    const stream = unique('malformed');
    await conn.call('XADD', stream, '*', 'payload', '{not json', 'content-type', 'application/json');
    await conn.call('XADD', stream, '*', 'other', 'field');
    await conn.call('XADD', stream, '*', 'payload', '1', 'content-type', 'text/x-unknown');
    const handled: unknown[] = [];
    const w = worker({ stream, group: 'g' }, (job) => void handled.push(job.payload));
    await w.start();
    await waitFor(() => w.metrics.snapshot().deadLettered === 3, 'three dead letters');
    await new Producer(conn, { stream }).add({ fine: true });
    await waitFor(() => w.metrics.snapshot().processed === 1, 'good message');
    assert.deepEqual(handled, [{ fine: true }]);
    const letters = await new DeadLetters(conn, { source: stream }).list();
    assert.equal(letters.length, 3);
    assert.match(letters[0]!.error, /^malformed entry: /);
    assert.equal(letters[0]!.fields['payload'], '{not json');
    assert.equal(letters[1]!.error, 'malformed entry: no payload field');
    assert.deepEqual(letters[1]!.fields, { other: 'field' });
    assert.match(letters[2]!.error, /content-type text\/x-unknown/);
    assert.equal(letters[0]!.deliveries, 1);
    assert.equal(await pendingCount(conn, stream, 'g'), 0);
  });

  test('dead letters can be retried (re-added, then removed) and purged', async () => {
    const stream = unique('dlq');
    await new Producer(conn, { stream }).addMany([{ v: 1 }, { v: 2 }]);
    let healed = false;
    const handled: number[] = [];
    const w = worker<{ v: number }>({ stream, group: 'g', maxDeliveries: 1 }, (job) => {
      if (!healed) throw new Error('not yet');
      handled.push(job.payload.v);
    });
    await w.start();
    await waitFor(() => w.metrics.snapshot().deadLettered === 2, 'dead-lettered');
    const dlq = new DeadLetters(conn, { source: stream });
    const [first] = await dlq.list();
    healed = true;
    const newIds = await dlq.retry([first!.id]);
    assert.equal(newIds.length, 1);
    await waitFor(() => handled.length === 1, 'retried message handled');
    assert.deepEqual(handled, [1]);
    assert.equal(await dlq.count(), 1);
    assert.equal(await dlq.purge(), 1);
    assert.equal(await dlq.count(), 0);
  });

  test('fan-out: every group gets every entry', async () => {
    const stream = unique('fan');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 50 }, (_, i) => i));
    const byGroup: Record<string, Set<number>> = { billing: new Set(), shipping: new Set(), audit: new Set() };
    for (const group of Object.keys(byGroup)) {
      await worker<number>({ stream, group, concurrency: 5 }, (job) => void byGroup[group]!.add(job.payload)).start();
    }
    await waitFor(() => Object.values(byGroup).every((s) => s.size === 50), 'all groups complete');
    const lag = await groupLag(conn, stream);
    assert.deepEqual(lag.map((g) => g.group).sort(), ['audit', 'billing', 'shipping']);
    for (const g of lag) {
      await waitFor(async () => (await pendingCount(conn, stream, g.group)) === 0, 'acks');
      if (g.lag !== null) assert.equal(g.lag, 0);
    }
  });

  test('graceful close finishes in-flight messages, acks them, and loses nothing', async () => {
    const stream = unique('graceful');
    // Enough that close() comes before the end, with read-ahead holding up to 20 more.
    await new Producer(conn, { stream }).addMany(Array.from({ length: 1000 }, (_, i) => i));
    const handled = new Set<number>();
    const slow = async (job: Job<number>): Promise<void> => {
      await new Promise((r) => setTimeout(r, 3));
      handled.add(job.payload);
    };
    const w1 = worker<number>({ stream, group: 'g', consumer: 'first', concurrency: 20 }, slow);
    await w1.start();
    await waitFor(() => handled.size >= 40, 'some progress');
    await w1.close();
    const afterClose = handled.size;
    assert.ok(afterClose < 1000, 'closed before the end');
    // Nothing delivered to `first` was left unacknowledged.
    const mine = (await conn.call('XPENDING', stream, 'g', '-', '+', 1000, 'first')) as Value[];
    assert.equal(mine.length, 0);
    assert.equal(w1.metrics.snapshot().processed, afterClose);
    const w2 = worker<number>({ stream, group: 'g', consumer: 'second', concurrency: 20 }, slow);
    await w2.start();
    await waitFor(() => handled.size === 1000, 'the rest handled');
    await w2.close();
    assert.equal(w1.metrics.snapshot().processed + w2.metrics.snapshot().processed, 1000);
    assert.equal(await pendingCount(conn, stream, 'g'), 0);
  });

  test('entries of a dead consumer are claimed after claimIdleMs', async () => {
    const stream = unique('claim');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 8 }, (_, i) => i));
    await conn.call('XGROUP', 'CREATE', stream, 'g', '0');
    // "ghost" reads five and dies without acknowledging.
    await conn.call('XREADGROUP', 'GROUP', 'g', 'ghost', 'COUNT', 5, 'STREAMS', stream, '>');
    const handled: Array<{ n: number; deliveries: number }> = [];
    const w = worker<number>({ stream, group: 'g', claimIdleMs: 100, claimIntervalMs: 20 }, (job) => void handled.push({ n: job.payload, deliveries: job.deliveries }));
    await w.start();
    await waitFor(() => handled.length >= 8, 'all handled');
    await waitFor(async () => (await pendingCount(conn, stream, 'g')) === 0, 'acked');
    // Each once: one claimed, run and acknowledged while the worker's first read of its own
    // history was on its way comes back in that read, and is not run again.
    assert.deepEqual(handled.map((h) => h.n).sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.ok(handled.filter((h) => h.n < 5).every((h) => h.deliveries >= 2), JSON.stringify(handled));
    assert.equal(w.metrics.snapshot().claimed, 5);
  });

  test('a worker resumes its own pending entries from 0 when it starts', async () => {
    const stream = unique('resume');
    await new Producer(conn, { stream }).addMany([1, 2, 3]);
    await conn.call('XGROUP', 'CREATE', stream, 'g', '0');
    await conn.call('XREADGROUP', 'GROUP', 'g', 'w1', 'COUNT', 2, 'STREAMS', stream, '>');
    const handled: number[] = [];
    const w = worker<number>({ stream, group: 'g', consumer: 'w1', claimIdleMs: 600_000 }, (job) => void handled.push(job.payload));
    await w.start();
    await waitFor(() => handled.length === 3, 'all handled');
    assert.deepEqual(handled.sort(), [1, 2, 3]);
    assert.equal(w.metrics.snapshot().claimed, 0);
  });

  test('a long handler keeps its lease: nobody claims it meanwhile', async () => {
    const stream = unique('lease');
    await new Producer(conn, { stream }).add('long');
    const release = deferred();
    let calls = 0;
    // Renewals run every claimIdleMs / 3: a lease short enough to test quickly, long enough
    // that a loaded machine's timer delays do not let it lapse.
    const options = { stream, group: 'g', claimIdleMs: 400, claimIntervalMs: 20 };
    const w1 = worker<string>({ ...options, consumer: 'holder' }, async () => {
      calls++;
      await release.promise;
    });
    await w1.start();
    await waitFor(() => calls === 1, 'handler started');
    const w2 = worker<string>({ ...options, consumer: 'thief' }, () => void calls++);
    await w2.start();
    // Long past claimIdleMs several times over.
    await new Promise((r) => setTimeout(r, 1600));
    release.resolve();
    await waitFor(() => w1.metrics.snapshot().processed === 1, 'processed');
    assert.equal(calls, 1);
    assert.equal(w2.metrics.snapshot().claimed, 0);
  });

  test('idle consumers with nothing pending are removed', async () => {
    const stream = unique('idle');
    await conn.call('XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM');
    await conn.call('XGROUP', 'CREATECONSUMER', stream, 'g', 'gone');
    const consumers = async (): Promise<string[]> =>
      ((await conn.call('XINFO', 'CONSUMERS', stream, 'g')) as Value[][]).map((row) => String(row[1]));
    assert.deepEqual(await consumers(), ['gone']);
    const w = worker({ stream, group: 'g', consumer: 'alive', consumerIdleMs: 50 }, () => {});
    await w.start();
    await waitFor(async () => !(await consumers()).includes('gone'), 'gone removed');
    assert.ok((await consumers()).includes('alive'));
  });

  test('producer trims with MAXLEN and MINID', async () => {
    const aged = unique('trim-age');
    // 150 entries from 1970: at least one whole node of them is older than the limit.
    await conn.pipeline(Array.from({ length: 150 }, (_, i) => ['XADD', aged, `1-${i + 1}`, 'payload', '"old"']));
    const newId = await new Producer(conn, { stream: aged, minIdAgeMs: 60_000, jobs: false }).add('new');
    const left = Number(await conn.call('XLEN', aged));
    assert.ok(left < 151, `XLEN ${left}`);
    const last = (await conn.call('XREVRANGE', aged, '+', '-', 'COUNT', 1)) as Value[][];
    assert.equal(last[0]![0], newId);
    const big = unique('trim-count');
    const capped = new Producer(conn, { stream: big, maxLen: 10 });
    for (let i = 0; i < 10; i++) await capped.addMany(Array.from({ length: 100 }, (_, j) => i * 100 + j));
    const len = Number(await conn.call('XLEN', big));
    assert.ok(len >= 10 && len < 1000, `XLEN ${len}`);
    assert.throws(() => new Producer(conn, { stream: big, maxLen: 1, minIdAgeMs: 1 }), RangeError);
  });

  test('partitioning by key: one Producer and one Worker with partitions; same key, same stream, order kept', async () => {
    const stream = uniqueName('part'); // partition names carry their own hash tags
    const producer = new Producer(conn, { stream, partitions: 4 });
    assert.deepEqual(producer.streams, partitionStreams(stream, 4));
    const items = [];
    for (let i = 0; i < 40; i++) items.push({ key: `customer-${i % 5}`, payload: { seq: i } });
    await producer.addMany(items, { keyed: true });
    const seen = new Map<string, { stream: string; seqs: number[] }>();
    // Concurrency 4 over 4 partitions: one handler slot each, so each partition is in order.
    const w = worker<{ seq: number }>({ stream, partitions: 4, group: 'g', concurrency: 4 }, (job) => {
      const rec = seen.get(job.key!) ?? { stream: job.stream, seqs: [] };
      assert.equal(rec.stream, job.stream, 'one key, one stream');
      rec.seqs.push(job.payload.seq);
      seen.set(job.key!, rec);
    });
    assert.deepEqual(w.streams, producer.streams);
    await w.start();
    await waitFor(() => [...seen.values()].reduce((n, r) => n + r.seqs.length, 0) === 40, 'all handled');
    for (const [key, rec] of seen) {
      assert.equal(rec.stream, producer.streamFor(key));
      assert.deepEqual(rec.seqs, [...rec.seqs].sort((a, b) => a - b), `order of ${key}`);
      assert.equal(rec.seqs.length, 8);
    }
    await waitFor(() => w.metrics.snapshot().processed === 40, 'acked');
    for (const s of producer.streams) assert.equal(await pendingCount(conn, s, 'g'), 0);
  });

  test('metrics as an object and as Prometheus text, with group lag', async () => {
    const stream = unique('metrics');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 20 }, (_, i) => i));
    const w = worker<number>({ stream, group: 'g', maxDeliveries: 1 }, (job) => {
      if (job.payload === 0) throw new Error('zero');
    });
    await w.start();
    await waitFor(() => w.metrics.snapshot().processed === 19 && w.metrics.snapshot().deadLettered === 1, 'done');
    await waitFor(async () => (await pendingCount(conn, stream, 'g')) === 0, 'acked');
    const snap = w.metrics.snapshot();
    assert.equal(snap.failed, 1);
    assert.equal(snap.latency.count, 20);
    assert.ok(snap.latency.p99 >= snap.latency.p50);
    const text = await w.metrics.prometheus();
    assert.match(text, /^sluice_messages_processed_total 19$/m);
    assert.match(text, /^sluice_messages_dead_lettered_total 1$/m);
    assert.match(text, /^sluice_handler_duration_seconds_count 20$/m);
    assert.ok(text.includes(`sluice_group_pending{stream="${stream}",group="g"} 0`), text);
    const [lag] = await groupLag(conn, stream);
    assert.equal(lag!.pending, 0);
    assert.equal(lag!.lag, 0);
    assert.equal(lag!.entriesRead, 20);
    assert.ok(text.includes(`sluice_group_lag{stream="${stream}",group="g"} 0`), text);
    assert.equal(lag!.consumers, 1);
  });
});
