// Sandboxed processors (a Worker given a module path) on every backend, in worker threads and in
// child processes: a result, progress and logs as an in-process handler's; sync and async throws
// fail the job with their message (retried, then dead-lettered); a loop past timeoutMs, a
// process.exit, an uncaught error, running out of memory and (child processes) a SIGKILL each
// fail only their job and the next job runs in a fresh sandbox; while a sandbox burns CPU the
// worker still claims, acknowledges and renews its lease; close() waits for running jobs and
// ends the sandboxes, close({ timeoutMs }) ends a stuck one and leaves its job pending; a module
// without a default function fails start() clearly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Connection } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { JobFailedError, Queue } from '../../src/broker/queue.js';
import { SandboxExitError, SandboxLoadError, TimeoutError, Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { backends, describeEach } from './backends.js';
import type { Task } from './fixtures/sandbox/processor.js';
import { unique } from '../support/names.js';
import { waitFor, within } from '../support/wait.js';

const PROCESSOR = new URL('./fixtures/sandbox/processor.js', import.meta.url);
const KINDS = ['thread', 'process'] as const;
type Kind = (typeof KINDS)[number];

describeEach(backends, (name) => `sandboxed processors on ${name}`, (b) => {
  let conn!: Connection;
  const closers: Array<() => Promise<unknown>> = [];
  const dir = mkdtempSync(join(tmpdir(), 'sluice-sandbox-'));
  before(async () => {
    conn = await b.connect();
  });
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await conn?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A producer, a queue and a started sandboxed worker on a fresh stream. */
  async function setup(kind: Kind, options: Partial<WorkerOptions> = {}) {
    const stream = unique(`sandbox-${kind}`);
    const producer = new Producer<Task>(conn, { stream });
    const queue = new Queue<Task>(conn, { stream });
    const worker = new Worker<Task>(conn, { stream, group: 'g', blockMs: 100, backoff: () => 0, ...options, sandbox: { kind, ...options.sandbox } }, PROCESSOR);
    const errors: Error[] = [];
    worker.on('error', (err) => errors.push(err));
    closers.push(() => worker.close({ timeoutMs: 2000 }), () => queue.close());
    await worker.start();
    return { stream, producer, queue, worker, errors };
  }

  /** Waits for the job to fail for good; returns its reason. */
  async function failedReason(queue: Queue<Task>, id: string): Promise<string> {
    const err = await queue.waitUntilFinished(id, 20_000).then(
      () => assert.fail(`job ${id} completed`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof JobFailedError, String(err));
    return err.failedReason;
  }

  for (const kind of KINDS) {
    test(`${kind}: the job's result, progress and logs, as an in-process handler's`, async () => {
      const { producer, queue, worker } = await setup(kind, { concurrency: 2 });
      const progress: unknown[] = [];
      const id = await producer.add({ mode: 'ok', n: 21 });
      const result = (await queue.waitUntilFinished(id, 20_000)) as Record<string, unknown>;
      assert.equal(result['doubled'], 42);
      assert.equal(result['id'], id);
      assert.equal(result['deliveries'], 1);
      assert.equal(result['stream'], worker.streams[0]);
      if (kind === 'thread') assert.equal(result['mainThread'], false, 'ran in a worker thread');
      else assert.notEqual(result['pid'], process.pid, 'ran in a child process');
      const job = await queue.getJob(id);
      assert.equal(job?.state, 'completed');
      assert.deepEqual(job?.progress, { done: true });
      assert.deepEqual(await job?.logs(), ['doubling 21']);
      worker.on('completed', (_job, r) => progress.push(r));
      const second = await producer.add({ mode: 'ok', n: 1 });
      assert.equal(((await queue.waitUntilFinished(second, 20_000)) as Record<string, unknown>)['doubled'], 2);
      await waitFor(() => progress.length === 1, "the worker's completed event");
    });

    test(`${kind}: a result JSON cannot carry (a Date, a Map, NaN, -0, undefined, a BigInt) reaches the worker as structured clone copies it`, async () => {
      const { producer, worker } = await setup(kind);
      const results: unknown[] = [];
      worker.on('completed', (_job, r) => results.push(r));
      await producer.add({ mode: 'values', n: 3 });
      await waitFor(() => results.length === 1, "the worker's completed event");
      const r = results[0] as Record<string, unknown>;
      assert.ok(r['date'] instanceof Date && r['date'].getTime() === 5, String(r['date']));
      assert.ok(r['map'] instanceof Map && r['map'].get('a') === 1);
      assert.ok(Number.isNaN(r['nan']));
      assert.ok(Object.is(r['negZero'], -0));
      assert.ok('missing' in r && r['missing'] === undefined);
      assert.equal(r['big'], 12n);
      assert.deepEqual(r['list'], [1, 'two', { three: 3 }]);
      assert.equal(r['n'], 3);
    });

    test(`${kind}: a sync or async throw fails the job with its message, retried then dead-lettered`, async () => {
      const { producer, queue, worker } = await setup(kind, { maxDeliveries: 2 });
      const failures: Array<{ id: string; message: string; name: string }> = [];
      worker.on('failed', (job, err) => failures.push({ id: job.id, message: err.message, name: err.name }));
      const sync = await producer.add({ mode: 'sync-throw' });
      const async_ = await producer.add({ mode: 'async-throw' });
      assert.equal(await failedReason(queue, sync), `sync failure of ${sync}`);
      assert.equal(await failedReason(queue, async_), `async failure of ${async_}`);
      assert.deepEqual(failures.filter((f) => f.id === sync).map((f) => f.name), ['RangeError', 'RangeError'], 'two deliveries, the error named as thrown');
      assert.equal(failures.filter((f) => f.id === async_).length, 2);
      const job = await queue.getJob(sync);
      assert.equal(job?.attemptsMade, 2);
      assert.match(job?.stacktrace ?? '', /processor\.js/, "the sandbox's stack");
      // The sandbox that threw is still good: the next job runs.
      assert.equal(((await queue.waitUntilFinished(await producer.add({ mode: 'ok', n: 2 }), 20_000)) as Record<string, unknown>)['doubled'], 4);
    });

    test(`${kind}: a loop past timeoutMs ends its sandbox and fails only that job; a fresh sandbox runs the next`, async () => {
      const { producer, queue, worker } = await setup(kind, { concurrency: 2, timeoutMs: 1000, maxDeliveries: 1 });
      const failed: Error[] = [];
      worker.on('failed', (_job, err) => failed.push(err));
      const looping = await producer.add({ mode: 'loop' });
      const sleeping = await producer.add({ mode: 'sleep', ms: 50 });
      assert.equal(await failedReason(queue, looping), 'handler timed out after 1000 ms');
      assert.ok(failed[0] instanceof TimeoutError);
      assert.deepEqual(await queue.waitUntilFinished(sleeping, 20_000), { slept: 50 });
      // Both slots work after the loop's sandbox was replaced.
      const after = await Promise.all([producer.add({ mode: 'ok', n: 3 }), producer.add({ mode: 'ok', n: 4 })]);
      const results = (await Promise.all(after.map((id) => queue.waitUntilFinished(id, 20_000)))) as Array<Record<string, unknown>>;
      assert.deepEqual(results.map((r) => r['doubled']), [6, 8]);
    });

    test(`${kind}: process.exit, an uncaught error and running out of memory fail only their job`, async () => {
      const { producer, queue, worker } = await setup(kind, { concurrency: 2, maxDeliveries: 1, sandbox: { maxMemoryMb: 64 } });
      const errors = new Map<string, Error>();
      worker.on('failed', (job, err) => errors.set(job.id, err));
      const exit = await producer.add({ mode: 'exit' });
      const uncaught = await producer.add({ mode: 'uncaught' });
      const oom = await producer.add({ mode: 'oom' });
      const fine = await producer.add({ mode: 'ok', n: 5 });
      assert.match(await failedReason(queue, exit), /exited with code 7/);
      assert.match(await failedReason(queue, uncaught), /uncaught TypeError: thrown from a timer/);
      const oomReason = await failedReason(queue, oom);
      if (kind === 'thread') assert.match(oomReason, /out of memory/);
      else assert.match(oomReason, /sandbox process (was killed by SIG|exited with code)/);
      assert.equal(((await queue.waitUntilFinished(fine, 20_000)) as Record<string, unknown>)['doubled'], 10);
      for (const id of [exit, uncaught, oom]) assert.ok(errors.get(id) instanceof SandboxExitError, `${id}: ${errors.get(id)}`);
      assert.equal((errors.get(exit) as SandboxExitError).exitCode, 7);
    });

    test(`${kind}: while a sandbox burns CPU, the worker claims, acknowledges and renews its lease`, async () => {
      // As below: a lease short enough to test in seconds, long beside a loaded machine's pauses
      // (at 400 ms, a CI run on a busy machine saw the worker's renewal come late once).
      const claimIdleMs = 1000;
      const stream = unique(`sandbox-busy-${kind}`);
      await conn.call('XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM');
      const producer = new Producer<Task>(conn, { stream });
      const queue = new Queue<Task>(conn, { stream });
      closers.push(() => queue.close());
      // A job a dead consumer took and never finished: the worker's claim timer must take it over.
      const orphan = await producer.add({ mode: 'ok', n: 6 });
      await conn.call('XREADGROUP', 'GROUP', 'g', 'dead', 'COUNT', 1, 'STREAMS', stream, '>');
      const marker = join(dir, `${stream}.done`);
      const spinning = await producer.add({ mode: 'spin-until', marker });
      const worker = new Worker<Task>(conn, { stream, group: 'g', concurrency: 2, blockMs: 100, claimIdleMs, sandbox: { kind } }, PROCESSOR);
      const claimed: string[] = [];
      const lost: string[] = [];
      worker.on('claimed', (ids) => claimed.push(...ids));
      worker.on('leaseLost', (job) => lost.push(job.id));
      worker.on('error', () => {});
      closers.push(() => worker.close());
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      try {
        await worker.start();
        const startedSpinning = await pollActive(queue, spinning);
        // Claimed, run and acknowledged while the other sandbox spins.
        assert.equal(((await queue.waitUntilFinished(orphan, 20_000)) as Record<string, unknown>)['doubled'], 12);
        assert.equal(claimed.length, 1);
        assert.equal((await queue.getJob(spinning))?.state, 'active', 'the CPU-bound job is still running');
        // Spinning for three claim periods: its lease is renewed, nobody takes it.
        await waitFor(() => Date.now() - startedSpinning > 3 * claimIdleMs, 'three claim periods of spinning');
        const [row] = (await conn.call('XPENDING', stream, 'g', '-', '+', 10, worker.consumer)) as Array<[string, string, number, number]>;
        assert.equal(row?.[1], worker.consumer);
        assert.equal(Number(row?.[3]), 1, 'delivered once: nobody claimed it');
        assert.deepEqual(lost, []);
        assert.ok(ticks > 0, "this process's event loop turned");
        writeFileSync(marker, '');
        assert.deepEqual(await queue.waitUntilFinished(spinning, 20_000), { spun: true, x: false });
      } finally {
        clearInterval(ticker);
      }
    });

    test(`${kind}: a CPU-bound job running past claimIdleMs keeps its lease: another consumer never claims it`, async () => {
      // Long enough that a loaded machine's pauses (GC, a starved scheduler) do not lose the lease.
      const claimIdleMs = 1000;
      const stream = unique(`sandbox-lease-${kind}`);
      await conn.call('XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM');
      const producer = new Producer<Task>(conn, { stream });
      const queue = new Queue<Task>(conn, { stream });
      closers.push(() => queue.close());
      const marker = join(dir, `${stream}.done`);
      const spinning = await producer.add({ mode: 'spin-until', marker });
      const owner = new Worker<Task>(conn, { stream, group: 'g', concurrency: 1, blockMs: 100, claimIdleMs, sandbox: { kind } }, PROCESSOR);
      owner.on('error', () => {});
      closers.push(() => (writeFileSync(marker, ''), owner.close({ timeoutMs: 2000 })));
      await owner.start();
      const startedSpinning = await pollActive(queue, spinning);
      const spinningEntry = (await queue.getJob(spinning))?.entryId;
      assert.ok(spinningEntry !== undefined, 'the active job knows its entry');
      // An entry a dead consumer took and never finished, for the other consumer to show it
      // claims (the owner, its one slot busy, takes nothing more).
      const orphan = await producer.add({ mode: 'ok', n: 1 });
      await conn.call('XREADGROUP', 'GROUP', 'g', 'dead', 'COUNT', 1, 'STREAMS', stream, '>');
      // Another consumer of the group, claiming whatever sits idle past claimIdleMs.
      const ran: string[] = [];
      const stolen: string[] = [];
      const thief = new Worker<Task>(conn, { stream, group: 'g', blockMs: 100, claimIdleMs }, (job) => {
        ran.push(job.id);
        return { thief: true };
      });
      thief.on('claimed', (ids) => stolen.push(...ids));
      thief.on('error', () => {});
      closers.push(() => thief.close());
      await thief.start();
      // The thief does claim: the dead consumer's entry is taken over while the sandbox spins.
      await queue.waitUntilFinished(orphan, 20_000);
      await waitFor(() => Date.now() - startedSpinning > 3 * claimIdleMs, 'three claim periods of spinning');
      assert.ok(stolen.length > 0, 'the other consumer claimed the orphan');
      assert.ok(!stolen.includes(spinningEntry) && !stolen.includes(spinning), `the spinning job was claimed by the other consumer (${stolen})`);
      assert.ok(!ran.includes(spinning), 'the spinning job ran in the other consumer');
      assert.equal((await queue.getJob(spinning))?.state, 'active');
      const [row] = (await conn.call('XPENDING', stream, 'g', '-', '+', 10, owner.consumer)) as Array<[string, string, number, number]>;
      assert.equal(row?.[0], spinningEntry, "still pending to the sandbox's worker");
      assert.equal(Number(row?.[3]), 1, 'delivered once');
      writeFileSync(marker, '');
      assert.deepEqual(await queue.waitUntilFinished(spinning, 20_000), { spun: true, x: false });
      assert.ok(!stolen.includes(spinningEntry), 'never claimed, to the end');
    });

    test(`${kind}: every sandbox that dies is replaced by a new one, never more than the pool's size`, async () => {
      const { producer, queue, worker } = await setup(kind, { concurrency: 1, timeoutMs: 1000, maxDeliveries: 1, sandbox: { maxMemoryMb: 64 } });
      const pool = (worker as unknown as { pool: { count: number } }).pool;
      const whoami = async (): Promise<{ pid: number; threadId: number }> =>
        (await queue.waitUntilFinished(await producer.add({ mode: 'whoami' }), 20_000)) as { pid: number; threadId: number };
      const name = (w: { pid: number; threadId: number }): string => (kind === 'thread' ? `thread ${w.threadId}` : `process ${w.pid}`);
      const first = await whoami();
      assert.equal(name(await whoami()), name(first), 'a sandbox that finished its job takes the next');
      const seen = [first];
      for (const mode of ['exit', 'uncaught', 'loop', 'oom', ...(kind === 'process' ? (['kill'] as const) : [])] as const) {
        await failedReason(queue, await producer.add({ mode }));
        const next = await whoami();
        assert.ok(!seen.some((w) => name(w) === name(next)), `after ${mode}: a new sandbox (${name(next)})`);
        assert.ok(pool.count <= 1, `after ${mode}: ${pool.count} sandboxes alive with size 1`);
        seen.push(next);
      }
      if (kind === 'thread') assert.ok(seen.every((w) => w.pid === process.pid));
      else {
        for (const w of seen.slice(0, -1)) await waitFor(() => !alive(w.pid), `process ${w.pid} gone`);
      }
      await worker.close();
      assert.equal(pool.count, 0);
      if (kind === 'process') await waitFor(() => !alive(seen.at(-1)!.pid), 'the last process gone');
    });

    test(`${kind}: close() waits for the running job, then ends the sandboxes`, async () => {
      const { producer, queue, worker } = await setup(kind, { concurrency: 2 });
      const first = (await queue.waitUntilFinished(await producer.add({ mode: 'ok', n: 1 }), 20_000)) as Record<string, unknown>;
      const id = await producer.add({ mode: 'sleep', ms: 300 });
      await pollActive(queue, id);
      await worker.close();
      if (kind === 'process') assert.throws(() => process.kill(first['pid'] as number, 0), /ESRCH/, 'the child process is gone');
      const job = await queue.getJob(id);
      assert.equal(job?.state, 'completed', 'the running job finished and was acknowledged');
      assert.deepEqual(job?.returnValue, { slept: 300 });
      assert.equal((worker as unknown as { pool: { count: number } }).pool.count, 0, 'no sandbox left');
    });

    test(`${kind}: close({ timeoutMs }) ends a sandbox stuck in a loop and leaves its job pending`, async () => {
      const { stream, producer, queue, worker } = await setup(kind);
      const id = await producer.add({ mode: 'loop' });
      await pollActive(queue, id);
      await within(worker.close({ timeoutMs: 400 }), 'close({ timeoutMs }) to resolve');
      assert.equal((worker as unknown as { pool: { count: number } }).pool.count, 0, 'no sandbox left');
      const pending = (await conn.call('XPENDING', stream, 'g')) as [number, ...unknown[]];
      assert.equal(Number(pending[0]), 1, 'never acknowledged: another worker takes it');
      assert.notEqual((await queue.getJob(id))?.state, 'completed');
    });
  }

  test('process: a child process killed by SIGKILL fails only its job', async () => {
    const { producer, queue, worker } = await setup('process', { concurrency: 2, maxDeliveries: 1 });
    const errors: Error[] = [];
    worker.on('failed', (_job, err) => errors.push(err));
    const killed = await producer.add({ mode: 'kill' });
    const fine = await producer.add({ mode: 'ok', n: 7 });
    assert.equal(await failedReason(queue, killed), 'sandbox process was killed by SIGKILL');
    assert.ok(errors[0] instanceof SandboxExitError);
    assert.equal(errors[0].signal, 'SIGKILL');
    assert.equal(((await queue.waitUntilFinished(fine, 20_000)) as Record<string, unknown>)['doubled'], 14);
    assert.equal(((await queue.waitUntilFinished(await producer.add({ mode: 'ok', n: 8 }), 20_000)) as Record<string, unknown>)['doubled'], 16);
  });

  test('sandbox options need a module path, and a module path takes no batch', () => {
    assert.throws(() => new Worker(conn, { stream: 's', group: 'g', sandbox: { kind: 'process' } }, () => {}), /the handler is a function, not a module path/);
    assert.throws(() => new Worker(conn, { stream: 's', group: 'g', batch: { size: 2 } } as WorkerOptions, PROCESSOR), /batch is not supported/);
    assert.throws(() => new Worker(conn, { stream: 's', group: 'g', sandbox: { size: 0 } }, PROCESSOR), /sandbox.size/);
  });

  for (const kind of KINDS) {
    test(`${kind}: a module that does not load fails start() clearly`, async () => {
      for (const [module, why] of [
        [new URL('./fixtures/sandbox/no-function.js', import.meta.url), /has no default export that is a function/],
        [join(dir, 'missing.js'), /Cannot find module/],
      ] as const) {
        const worker = new Worker(conn, { stream: unique('sandbox-load'), group: 'g', sandbox: { kind } }, module);
        closers.push(() => worker.close());
        const err = await within(worker.start(), 'start() to fail').then(
          () => assert.fail('started'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof SandboxLoadError, String(err));
        assert.match(err.message, /did not load/);
        assert.match(err.message, why);
        await worker.close();
      }
    });
  }
});

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the job's record says it is active; resolves to when that was seen (ms). */
async function pollActive(queue: Queue<Task>, id: string): Promise<number> {
  await waitFor(async () => (await queue.getJob(id))?.state === 'active', `job ${id} active`);
  return Date.now();
}
