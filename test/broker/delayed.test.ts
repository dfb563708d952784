// Delayed delivery on every backend, through the public API: producer.add(..., { delayMs | at })
// and the DelayedMover every Worker runs. A job is handled no earlier than its due time on the
// server's clock (TIME, read in the handler) and soon after; several movers move each job once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Arg, BlockingConnection, Connection, Value } from '../../src/client/connection.js';
import { DELAYED_PRODUCER_ID, DelayedMover, delayedKey, serverTimeMs } from '../../src/broker/delayed.js';
import { idempotentXadd, probeIdempotence } from '../../src/broker/idempotence.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { probeStreamFeatures } from '../../src/broker/stream-features.js';
import { backends, describeEach, useWorkers } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';

interface Due {
  n: number;
  due: number;
}

describeEach(backends, (name) => `delayed delivery on ${name}`, (b, name) => {
  let conn!: Connection;
  const { worker } = useWorkers(b, (c) => (conn = c));

  test('a job added with `at` is handled no earlier than its due time (server TIME) and within 300 ms of it', async () => {
    const stream = unique('at');
    const producer = new Producer(conn, { stream });
    const now = await serverTimeMs(conn);
    const dues = [now + 300, now + 600, now + 900];
    const ids = await Promise.all(dues.map((due, n) => producer.add({ n, due }, { at: new Date(due) })));
    assert.equal(new Set(ids).size, 3, 'each delayed job gets its own id');
    assert.equal(Number(await conn.call('XLEN', stream)), 0, 'nothing in the stream yet');
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 3);
    const handled: Array<{ due: number; at: number }> = [];
    const w = worker<Due>({ stream, group: 'g' }, async (job) => {
      handled.push({ due: job.payload.due, at: await serverTimeMs(conn) });
    });
    await w.start();
    await waitFor(() => handled.length === 3, 'three handled', 5000);
    for (const h of handled) {
      assert.ok(h.at >= h.due, `handled at ${h.at}, ${h.due - h.at} ms before its due time`);
      assert.ok(h.at - h.due < 300, `handled ${h.at - h.due} ms after its due time`);
    }
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 0);
  });

  test('delayMs counts from the add; `at` in the past is handled at once; identical payloads stay apart', async () => {
    const stream = unique('delay');
    const producer = new Producer(conn, { stream });
    const handled: Array<{ payload: string; at: number }> = [];
    const w = worker<string>({ stream, group: 'g' }, async (job) => {
      handled.push({ payload: job.payload, at: await serverTimeMs(conn) });
    });
    await w.start();
    const start = await serverTimeMs(conn);
    await producer.add('late', { delayMs: 400 });
    await producer.add('late', { delayMs: 400 });
    await producer.add('past', { at: start - 60_000 });
    await waitFor(() => handled.some((h) => h.payload === 'past'), 'past job', 2000);
    assert.ok(handled.find((h) => h.payload === 'past')!.at - start < 300, 'a past due time is handled at once');
    await waitFor(() => handled.length === 3, 'all three', 3000);
    for (const h of handled.filter((x) => x.payload === 'late')) assert.ok(h.at - start >= 400 - 5, `handled after ${h.at - start} ms`);
    assert.equal(handled.filter((x) => x.payload === 'late').length, 2);
  });

  test('addMany with keyed items mixes immediate and delayed entries', async () => {
    const stream = unique('many');
    const producer = new Producer(conn, { stream });
    const now = await serverTimeMs(conn);
    const ids = await producer.addMany(
      [{ payload: 'now' }, { payload: 'later', at: now + 200 }, { payload: 'later2', delayMs: 200 }],
      { keyed: true },
    );
    assert.equal(new Set(ids).size, 3, 'each add resolves to a job id of its own');
    const queue = new Queue(conn, { stream });
    assert.deepEqual(await Promise.all(ids.map(async (id) => (await queue.getJob(id))?.state)), ['waiting', 'delayed', 'delayed']);
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 2);
    const seen: string[] = [];
    const w = worker<string>({ stream, group: 'g' }, (job) => void seen.push(job.payload));
    await w.start();
    await waitFor(() => seen.length === 3, 'three', 3000);
    assert.deepEqual(seen.sort(), ['later', 'later2', 'now']);
  });

  test('rejects contradictory or invalid delays', async () => {
    const producer = new Producer(conn, { stream: unique('bad') });
    await assert.rejects(producer.add(1, { delayMs: 5, at: 1 }), /exclusive/);
    await assert.rejects(producer.add(1, { delayMs: -1 }), /delayMs/);
    await assert.rejects(producer.add(1, { at: new Date('nope') }), /at: not a valid time/);
  });

  test('three workers moving at once move each of 300 jobs exactly once', async () => {
    const stream = unique('race');
    const producer = new Producer(conn, { stream });
    const now = await serverTimeMs(conn);
    await producer.addMany(Array.from({ length: 300 }, (_, n) => ({ payload: { n, due: now + 200 + (n % 5) * 50 }, at: now + 200 + (n % 5) * 50 })), { keyed: true });
    const calls = new Map<number, number>();
    const early: number[] = [];
    const movers = [0, 1, 2].map((i) =>
      worker<Due>({ stream, group: 'g', consumer: `c${i}` }, async (job) => {
        calls.set(job.payload.n, (calls.get(job.payload.n) ?? 0) + 1);
        if ((await serverTimeMs(conn)) < job.payload.due) early.push(job.payload.n);
      }),
    );
    for (const w of movers) await w.start();
    await waitFor(() => calls.size === 300, 'all 300', 10_000);
    // Closed, every move and every handler the workers began has finished: a second move or
    // delivery of a job would be counted by now.
    for (const w of movers) await w.close();
    assert.deepEqual([...calls.values()].filter((c) => c !== 1), [], 'each job handled once');
    assert.deepEqual(early, []);
    assert.equal(Number(await conn.call('XLEN', stream)), 300, 'each job moved once');
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 0);
  });

  test('a standalone DelayedMover moves jobs for producers-only setups; a non-job member is moved verbatim', async () => {
    const stream = unique('mover');
    const now = await serverTimeMs(conn);
    await new Producer(conn, { stream }).add({ x: 1 }, { at: now + 100 });
    await conn.call('ZADD', delayedKey(stream), now, 'not json');
    const mover = new DelayedMover(conn, { stream, pollMs: 50 });
    await mover.start();
    await waitFor(async () => Number(await conn.call('XLEN', stream)) === 2, 'both moved', 3000);
    await mover.close();
    assert.equal(mover.moved, 2);
    const entries = (await conn.call('XRANGE', stream, '-', '+')) as Value[][];
    const fields = entries.map((e) => (e[1] as string[]).join(' '));
    assert.ok(fields.includes('delayed-member not json'), fields.join(' | '));
    assert.ok(fields.some((f) => f.startsWith('payload {"x":1} content-type application/json')), fields.join(' | '));
  });

  test('delayed adds with the same idempotencyKey reach the stream once (IDMP, or the script on Redis 7)', async () => {
    const stream = unique('idem');
    const producer = new Producer(conn, { stream });
    const now = await serverTimeMs(conn);
    const first = await producer.add({ try: 1 }, { at: now + 50, idempotencyKey: 'order-7' });
    const second = await producer.add({ try: 2 }, { at: now + 50, idempotencyKey: 'order-7' });
    assert.equal(first, 'order-7');
    assert.equal(second, 'order-7');
    const mover = new DelayedMover(conn, { stream, pollMs: 20 });
    await mover.start();
    await waitFor(async () => Number(await conn.call('ZCARD', delayedKey(stream))) === 0, 'moved', 3000);
    await mover.close();
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
  });

  // A link that forgets WATCH (a transaction resent after a reconnect) and lets "another mover"
  // take the members right after the read: each job must still be in the stream once. With
  // `hideScript` the server seems to have neither IDMP nor EVAL: the mover then XDELs what it
  // added for members whose ZREM found them gone (the plain-XADD path).
  const lostWatch = async (hideScript: boolean): Promise<void> => {
    const stream = unique('lost-watch');
    const now = await serverTimeMs(conn);
    await new Producer(conn, { stream }).addMany([1, 2, 3].map((n) => ({ payload: n, at: now - 10 })), { keyed: true });
    const mode = hideScript ? 'none' : await probeIdempotence(conn, await probeStreamFeatures(conn));
    let raced = false;
    const link = await conn.duplicate();
    const lossy = Object.assign(Object.create(link) as BlockingConnection, {
      call: async (...args: Arg[]): Promise<Value> => {
        if (args[0] === 'WATCH') return 'OK';
        const reply = await link.call(...args);
        // The mover's read of the soonest members (with scores): take the due ones first.
        if (args[0] === 'ZRANGE' && !raced && (reply as string[]).length > 0) {
          raced = true;
          const members = (reply as string[]).filter((_, i) => i % 2 === 0);
          for (const member of members) {
            const [jobId, ...fields] = JSON.parse(member) as string[];
            const xadd = mode === 'none' ? ['XADD', stream, '*', ...fields] : idempotentXadd(mode, stream, DELAYED_PRODUCER_ID, jobId!, ['*', ...fields], true);
            await conn.multi([xadd, ['ZREM', delayedKey(stream), member]]);
          }
        }
        return reply;
      },
    });
    const hidden = async (...args: Arg[]): Promise<Value> =>
      args[0] === 'COMMAND' && ['XCFGSET', 'EVAL'].includes(String(args[2])) ? [null] : conn.call(...args);
    const wrapped = Object.assign(Object.create(conn) as Connection, { duplicate: async () => lossy, ...(hideScript ? { call: hidden } : {}) });
    const mover = new DelayedMover(wrapped, { stream, pollMs: 20 });
    await mover.start();
    await waitFor(() => raced, 'the race', 3000);
    await mover.close(); // after the pass that raced, its EXEC and its XDEL
    await link.close();
    assert.equal(mover.moved, 0, 'another mover moved them');
    assert.equal(Number(await conn.call('XLEN', stream)), 3, 'each job once in the stream');
  };

  test('a move whose WATCH was lost (resent after a reconnect) adds nothing twice: its XADDs are idempotent', () => lostWatch(false));

  test('the same without IDMP or EVAL: the XADDs of members another mover took are deleted again', () => lostWatch(true));

  test('the mover makes progress while producers keep adding to its set (a write between each of its steps)', async () => {
    const stream = unique('busy-set');
    const now = await serverTimeMs(conn);
    await new Producer(conn, { stream }).addMany(Array.from({ length: 250 }, (_, n) => ({ payload: n, at: now - 10 })), { keyed: true });
    // Before every command the mover sends, a producer adds a job due in an hour: a mover
    // that WATCHed the set itself would find every EXEC aborted, for as long as adds go on.
    const link = await conn.duplicate();
    const writer = await conn.duplicate();
    let adds = 0;
    const busy = Object.assign(Object.create(link) as BlockingConnection, {
      call: async (...args: Arg[]): Promise<Value> => {
        await writer.call('ZADD', delayedKey(stream), now + 3_600_000, `["later-${adds++}","payload","0"]`);
        return link.call(...args);
      },
    });
    const wrapped = Object.assign(Object.create(conn) as Connection, { duplicate: async () => busy });
    const mover = new DelayedMover(wrapped, { stream, pollMs: 20 });
    await mover.start();
    await waitFor(() => mover.moved === 250, 'all due jobs moved', 10_000);
    await mover.close();
    await link.close();
    await writer.close();
    assert.equal(Number(await conn.call('XLEN', stream)), 250, 'each once');
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), adds, 'only the later ones are left');
  });

  test('delayed: false runs no mover; the metrics show the waiting jobs (sluice_delayed_jobs)', async () => {
    const stream = unique('off');
    await new Producer(conn, { stream }).add('x', { delayMs: 0 });
    await new Producer(conn, { stream }).add('y', { delayMs: 0 });
    let seen = 0;
    const w = worker({ stream, group: 'g', delayed: false }, () => void seen++);
    await w.start();
    assert.ok((await w.metrics.prometheus()).includes(`sluice_delayed_jobs{stream="${stream}"} 2\n`));
    // A mover would have begun its first pass at start(), and close() lets a pass finish.
    await w.close();
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 2);
    assert.equal(seen, 0);
  });
});
