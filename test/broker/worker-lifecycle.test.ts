// The Worker's entry life on every backend (redis-server 7, the embedded engine with XNACK and
// CLAIM, sluice server): backoff that holds, per-job timeouts and the handler's signal,
// close({ timeoutMs }), batches, lost leases, trimmed entries, typed events, the consumer
// removed at close, and trimming that keeps what groups still need.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Arg, Connection, Value } from '../../src/client/connection.js';
import { isGroupPaused, pausedGroups, pauseGroup, resumeGroup } from '../../src/broker/pause.js';
import { Producer } from '../../src/broker/producer.js';
import { serverTimeMs } from '../../src/broker/delayed.js';
import { groupLag } from '../../src/broker/metrics.js';
import { Scheduler } from '../../src/broker/schedules.js';
import { probeStreamFeatures } from '../../src/broker/stream-features.js';
import { LeaseLostError, TimeoutError, Worker, WorkerClosedError } from '../../src/broker/worker.js';
import { backends, describeEach, useWorkers } from './backends.js';
import { AheadClock } from '../support/clock.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

/** `conn` with the promise of every XTRIM sent through it kept in `trims`. */
function recordingTrims(conn: Connection): { conn: Connection; trims: Array<Promise<Value>> } {
  const trims: Array<Promise<Value>> = [];
  const call = (...args: Arg[]): Promise<Value> => {
    const reply = conn.call(...args);
    if (args[0] === 'XTRIM') trims.push(reply);
    return reply;
  };
  return { conn: Object.assign(Object.create(conn) as Connection, { call }), trims };
}

async function pending(conn: Connection, stream: string, group = 'g'): Promise<number> {
  return Number(((await conn.call('XPENDING', stream, group)) as Value[])[0]);
}

describeEach(backends, (name) => `worker lifecycle on ${name}`, (b) => {
  let conn!: Connection;
  const { worker, workers } = useWorkers(b, (c) => (conn = c));

  test('the default backoff holds: 4 failing deliveries take at least 100+200+400 ms', async () => {
    const stream = unique('backoff');
    await new Producer(conn, { stream }).add({ poison: true });
    const times: number[] = [];
    const w = worker({ stream, group: 'g', maxDeliveries: 4 }, () => {
      times.push(Date.now());
      throw new Error('always');
    });
    let deadAt = 0;
    w.on('deadLettered', () => (deadAt = Date.now()));
    await w.start();
    await waitFor(() => deadAt > 0, 'dead-lettered', 10_000);
    assert.equal(times.length, 4);
    assert.ok(deadAt - times[0]! >= 690, `dead-lettered ${deadAt - times[0]!} ms after the first delivery`);
    for (let i = 1; i < 4; i++) assert.ok(times[i]! - times[i - 1]! >= 100 * 2 ** (i - 1) - 10, `gap ${i}: ${times[i]! - times[i - 1]!} ms`);
  });

  test('timeoutMs aborts the handler\'s signal and counts a failed delivery; the retry succeeds', async () => {
    const stream = unique('timeout');
    await new Producer(conn, { stream }).add('slow');
    const reasons: unknown[] = [];
    const failures: Error[] = [];
    const w = worker<string>({ stream, group: 'g', timeoutMs: 150, backoff: () => 20 }, (job, { signal }) => {
      if (job.deliveries > 1) return 'done';
      return new Promise(() => signal.addEventListener('abort', () => reasons.push(signal.reason))); // never settles
    });
    const completed: unknown[] = [];
    w.on('failed', (_job, err) => failures.push(err));
    w.on('completed', (job, result) => completed.push([job.payload, job.deliveries, result]));
    await w.start();
    await waitFor(() => completed.length === 1, 'completed on the retry');
    assert.deepEqual(completed, [['slow', 2, 'done']]);
    assert.ok(reasons[0] instanceof TimeoutError);
    assert.ok(failures[0] instanceof TimeoutError);
    assert.equal(w.metrics.snapshot().timedOut, 1);
    assert.equal(w.metrics.snapshot().redelivered, 1);
    await waitFor(async () => (await pending(conn, stream)) === 0, 'acked');
  });

  test('a handler that reads its signal only after the timeout finds it aborted, with the TimeoutError', async () => {
    const stream = unique('late-signal');
    await new Producer(conn, { stream }).add('late');
    const seen: Array<[boolean, unknown]> = [];
    const w = worker<string>({ stream, group: 'g', timeoutMs: 60, backoff: () => 20 }, async (job, context) => {
      if (job.deliveries > 1) return 'done';
      await new Promise((r) => setTimeout(r, 200));
      seen.push([context.signal.aborted, context.signal.reason]); // the first read of the signal
    });
    let completed = 0;
    w.on('completed', () => completed++);
    await w.start();
    await waitFor(() => completed === 1 && seen.length === 1, 'the late read, then the retry');
    assert.equal(seen[0]![0], true);
    assert.ok(seen[0]![1] instanceof TimeoutError);
    await waitFor(async () => (await pending(conn, stream)) === 0, 'acked');
  });

  test('a handler that closes its worker from inside: close() waits for that handler and acknowledges its job', async () => {
    const stream = unique('close-inside');
    await new Producer(conn, { stream }).add({ n: 1 });
    let finished = false;
    let closing: Promise<void> | null = null;
    const w = worker({ stream, group: 'g' }, async () => {
      closing = w.close(); // synchronously, before the handler's first await
      await new Promise((r) => setTimeout(r, 50));
      finished = true;
    });
    await w.start();
    await waitFor(() => closing !== null, 'the handler to run');
    await closing;
    assert.equal(finished, true, 'close() returned only after the handler ended');
    assert.equal(await pending(conn, stream), 0, 'its job acknowledged');
  });

  test('close({ timeoutMs }) returns with a stuck handler aborted and its entry still recoverable', async () => {
    const stream = unique('stuck');
    await new Producer(conn, { stream }).add('stuck');
    let reason: unknown;
    const w1 = worker<string>({ stream, group: 'g', claimIdleMs: 500, claimIntervalMs: 100 }, (_job, { signal }) => {
      return new Promise(() => signal.addEventListener('abort', () => (reason = signal.reason)));
    });
    await w1.start();
    await waitFor(() => w1.active === 1, 'running');
    const t0 = Date.now();
    await w1.close({ timeoutMs: 200 });
    assert.ok(Date.now() - t0 < 2000, `close took ${Date.now() - t0} ms`);
    assert.ok(reason instanceof WorkerClosedError);
    assert.equal(await pending(conn, stream), 1, 'never acknowledged');
    const got: number[] = [];
    const w2 = worker<string>({ stream, group: 'g', claimIdleMs: 500, claimIntervalMs: 100 }, (job) => void got.push(job.deliveries));
    await w2.start();
    await waitFor(() => got.length === 1, 'recovered by another worker', 10_000);
    await waitFor(async () => (await pending(conn, stream)) === 0, 'acked');
  });

  test('a batch handler gets arrays of at most batch.size jobs, all acknowledged', async () => {
    const stream = unique('batch');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 25 }, (_, i) => i));
    const sizes: number[] = [];
    const seen: number[] = [];
    const w = new Worker<number>(conn, { stream, group: 'g', blockMs: 200, batch: { size: 10, waitMs: 20 } }, (jobs) => {
      sizes.push(jobs.length);
      seen.push(...jobs.map((j) => j.payload));
    });
    workers.push(w as Worker);
    await w.start();
    await waitFor(() => seen.length === 25, 'all handled');
    assert.ok(sizes.every((n) => n >= 1 && n <= 10), `sizes ${sizes}`);
    assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 25 }, (_, i) => i));
    await waitFor(async () => (await pending(conn, stream)) === 0, 'acked');
    // processed counts once the worker has the acknowledgement's reply, which may follow our XPENDING
    await waitFor(() => w.metrics.snapshot().processed === 25, 'all counted');
  });

  test('a lost lease aborts the handler and its result is not acknowledged', async () => {
    const stream = unique('lease');
    await new Producer(conn, { stream }).add('long');
    let reason: unknown;
    const lost: string[] = [];
    const w = worker<string>({ stream, group: 'g', claimIdleMs: 300, claimIntervalMs: 60_000 }, (_job, { signal }) => {
      return new Promise((resolve) => signal.addEventListener('abort', () => {
        reason = signal.reason;
        resolve('finished anyway');
      }));
    });
    w.on('leaseLost', (job) => lost.push(job.id));
    await w.start();
    await waitFor(() => w.active === 1, 'running');
    const [[id]] = (await conn.call('XPENDING', stream, 'g', '-', '+', 1)) as Value[][] as [[string]];
    await conn.call('XCLAIM', stream, 'g', 'thief', 0, id); // another consumer takes it over
    await waitFor(() => lost.length === 1, 'lease lost noticed', 5000);
    assert.ok(reason instanceof LeaseLostError);
    await w.close(); // the handler has returned and every acknowledgement it led to was sent
    const rows = (await conn.call('XPENDING', stream, 'g', '-', '+', 10)) as Value[][];
    assert.deepEqual(rows.map((r) => r[1]), ['thief'], 'still pending, now the thief\'s');
    assert.equal(w.metrics.snapshot().processed, 0);
    assert.equal(w.metrics.snapshot().leaseLost, 1);
  });

  test('a lease renewal never takes back an entry another consumer claimed after its XPENDING', async () => {
    const stream = unique('lease-race');
    await new Producer(conn, { stream }).add('long');
    // The thief strikes between the renewal's ownership check and its XCLAIM.
    let struck = false;
    const pipeline = async (commands: Arg[][]): Promise<Array<Value | Error>> => {
      const replies = await conn.pipeline(commands);
      if (!struck && commands[0]?.[0] === 'XPENDING') {
        struck = true;
        await conn.call('XCLAIM', stream, 'g', 'thief', 0, String(commands[0][3]));
      }
      return replies;
    };
    const racing = Object.assign(Object.create(conn) as Connection, { pipeline });
    const lost: string[] = [];
    const w = new Worker<string>(racing, { stream, group: 'g', claimIdleMs: 300, claimIntervalMs: 60_000 }, (_job, { signal }) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve('finished anyway'))));
    workers.push(w as Worker);
    w.on('leaseLost', (job) => lost.push(job.id));
    await w.start();
    await waitFor(() => lost.length === 1, 'lease lost noticed', 5000);
    await w.close();
    const rows = (await conn.call('XPENDING', stream, 'g', '-', '+', 10)) as Value[][];
    assert.deepEqual(rows.map((r) => r[1]), ['thief']);
    assert.equal(w.metrics.snapshot().processed, 0);
  });

  test('pending entries deleted from the stream are reported as trimmed, not silently acknowledged', async () => {
    const stream = unique('trimmed');
    const ids = await new Producer(conn, { stream, jobs: false }).addMany(['a', 'b', 'c']);
    await conn.call('XGROUP', 'CREATE', stream, 'g', '0');
    await conn.call('XREADGROUP', 'GROUP', 'g', 'w1', 'COUNT', 3, 'STREAMS', stream, '>');
    await conn.call('XDEL', stream, ids[0]!, ids[1]!);
    const trimmed: string[] = [];
    const handled: string[] = [];
    const w = worker<string>({ stream, group: 'g', consumer: 'w1' }, (job) => void handled.push(job.payload));
    w.on('trimmed', (got) => trimmed.push(...got));
    await w.start();
    await waitFor(() => handled.length === 1 && trimmed.length === 2, 'history read');
    assert.deepEqual(handled, ['c']);
    assert.deepEqual(trimmed.sort(), [ids[0], ids[1]].sort());
    assert.equal(w.metrics.snapshot().trimmed, 2);
    await waitFor(async () => (await pending(conn, stream)) === 0, 'PEL cleared');
  });

  test('pauseGroup stops every worker of the group taking new entries; resumeGroup restarts them', async () => {
    const stream = unique('pause');
    const producer = new Producer(conn, { stream });
    let handled = 0;
    const options = { stream, group: 'g', pauseCheckMs: 50 };
    const workers = [worker<number>(options, () => void handled++), worker<number>(options, () => void handled++)];
    let pausedEvents = 0;
    for (const w of workers) w.on('paused', () => void pausedEvents++);
    for (const w of workers) await w.start();
    await producer.addMany(Array.from({ length: 10 }, (_, i) => i));
    await waitFor(() => handled === 10, 'first batch');
    await pauseGroup(conn, stream, 'g');
    assert.equal(await isGroupPaused(conn, stream, 'g'), true);
    await waitFor(() => pausedEvents === 2, 'both workers paused');
    await producer.addMany(Array.from({ length: 20 }, (_, i) => i));
    // A read still blocked (or blocking again) would have been served by those XADDs before
    // they replied: the group shows at once whether anything was delivered.
    const [group] = await groupLag(conn, stream);
    assert.deepEqual([group!.entriesRead, group!.pending], [10, 0], 'nothing taken while paused');
    assert.equal(handled, 10);
    assert.deepEqual([...(await pausedGroups(conn, stream)).keys()], ['g']);
    await resumeGroup(conn, stream, 'g');
    await waitFor(() => handled === 30, 'the rest after resume');
    await waitFor(async () => (await pending(conn, stream)) === 0, 'acked');
  });

  test('limiter: three workers of a group together start at most max jobs per window', async () => {
    const stream = unique('limit');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 45 }, (_, i) => i));
    const starts: number[] = [];
    const limiter = { max: 10, durationMs: 300 };
    const ws = [0, 1, 2].map(() => worker<number>({ stream, group: 'g', concurrency: 10, limiter }, () => void starts.push(Date.now())));
    const t0 = Date.now();
    for (const w of ws) await w.start();
    await waitFor(() => starts.length === 45, 'all handled', 10_000);
    // 45 jobs at 10 per 300 ms window need at least 4 window boundaries: >= 900 ms in all.
    assert.ok(Date.now() - t0 >= 850, `45 jobs took ${Date.now() - t0} ms`);
    // No 300 ms span holds more than 3·max starts: fixed windows let a burst straddle one edge,
    // and a stall between a job's grant and its handler (a loaded machine) can push one window's
    // starts into the next one's span. All 45 at once would still fail.
    for (const t of starts) {
      const inSpan = starts.filter((u) => u >= t && u < t + 300).length;
      assert.ok(inSpan <= 30, `${inSpan} starts within 300 ms of ${t - t0} ms`);
    }
    await waitFor(async () => (await pending(conn, stream)) === 0, 'acked');
  });

  test('schedules: one entry per tick however many workers run the scheduler; a missed stretch is caught up once', async () => {
    const stream = unique('every');
    const producer = new Producer(conn, { stream });
    const info = await producer.schedule('report', { everyMs: 200 }, { kind: 'report' });
    assert.equal(info.next % 200, 0);
    const ticks: number[] = [];
    const ws = [0, 1, 2].map(() => worker<{ kind: string }>({ stream, group: 'g' }, (job) => void ticks.push(Number(job.fields['tick']))));
    for (const w of ws) await w.start();
    await waitFor(() => ticks.length >= 5, 'five ticks', 10_000);
    await producer.unschedule('report');
    for (const w of ws) await w.close();
    const sorted = [...new Set(ticks)].sort((a, b) => a - b);
    assert.equal(sorted.length, ticks.length, `a tick was added twice: ${ticks}`);
    // Ticks are on the 200 ms grid; a pass that comes late (a loaded machine) adds only the
    // latest due tick, by the catch-up rule below, so a gap may span several ticks.
    for (let i = 1; i < sorted.length; i++) assert.equal((sorted[i]! - sorted[i - 1]!) % 200, 0, `ticks ${sorted}`);
    assert.deepEqual(await producer.schedules(), []);
    // Nothing ran for 1 s (5 ticks): the next pass adds one entry, not five. The scheduler's
    // clock, 1 s ahead of the server's, is that second.
    const catchUp = unique('missed');
    const p2 = new Producer(conn, { stream: catchUp });
    await p2.schedule('s', { everyMs: 200 }, 'x');
    const before = await serverTimeMs(conn);
    const scheduler = new Scheduler(conn, catchUp, { clock: new AheadClock(1000) });
    try {
      assert.equal(await scheduler.tick(), 1);
      assert.equal(await scheduler.tick(), 0);
    } finally {
      await scheduler.close(); // its connection would keep the test process alive
    }
    assert.equal(Number(await conn.call('XLEN', catchUp)), 1);
    const { next } = (await p2.schedules())[0]!;
    assert.ok(next > before + 1000, 'the next tick is after the scheduler\'s now');
  });

  test('close() removes the worker\'s own consumer when it holds nothing', async () => {
    const stream = unique('selfclean');
    await new Producer(conn, { stream }).addMany([1, 2]);
    const w = worker<number>({ stream, group: 'g', consumer: 'leaving' }, () => {});
    await w.start();
    await waitFor(() => w.metrics.snapshot().processed === 2, 'handled');
    await w.close();
    const consumers = (await conn.call('XINFO', 'CONSUMERS', stream, 'g')) as Value[];
    assert.equal(consumers.length, 0);
  });

  test('trimAckedOnly keeps entries a group has not acknowledged, and trims once they are', async () => {
    const stream = unique('keep');
    await conn.call('XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM');
    // With ACKED (sluice) the XADD trims. Redis 7 has no ACKED: the producer's safe trim runs
    // in the background at most once a second by its clock; the test moves that clock on and
    // awaits each XTRIM the trim sends.
    const { deletionPolicies } = await probeStreamFeatures(conn);
    const { conn: recording, trims } = recordingTrims(conn);
    const clock = new AheadClock();
    const trimmed = async (count: number): Promise<void> => {
      if (deletionPolicies) return;
      await waitFor(() => trims.length === count, `safe trim ${count}`);
      await Promise.all(trims);
      await new Promise((r) => setImmediate(r)); // and its bookkeeping
    };
    const producer = new Producer(recording, { stream, maxLen: 10, trimAckedOnly: true, clock, jobs: false });
    const first = await producer.addMany(Array.from({ length: 300 }, (_, i) => i));
    await trimmed(1);
    // The group read 5 and acknowledged none; the other 295 it has not been delivered yet.
    await conn.call('XREADGROUP', 'GROUP', 'g', 'slow', 'COUNT', 5, 'STREAMS', stream, '>');
    clock.advance(1000);
    await producer.add('more');
    await trimmed(2);
    const left = (await conn.call('XRANGE', stream, '-', '+', 'COUNT', 1)) as Value[][];
    assert.equal(left[0]![0], first[0], 'the oldest unacknowledged entry is still there');
    assert.equal(Number(await conn.call('XLEN', stream)), 301);
    // Everything read and acknowledged: now the cap applies (whole nodes with `~`).
    const read = (await conn.call('XREADGROUP', 'GROUP', 'g', 'slow', 'STREAMS', stream, '>')) as Value[][];
    const all = [...first.slice(0, 5), ...(read[0]![1] as Value[][]).map((e) => String(e[0]))];
    await conn.call('XACK', stream, 'g', ...all);
    clock.advance(1000);
    await producer.add('after');
    await trimmed(3);
    assert.ok(Number(await conn.call('XLEN', stream)) < 150, 'trimmed after the acks');
  });
});
