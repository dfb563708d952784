// globalConcurrency: at most N jobs of a group run at once across workers and processes.
// Every backend: two workers in one process (an exact count of the handlers running), and a
// slot whose holder died (its lease left behind, as kill -9 leaves it) coming back within
// claimIdleMs. Socket backends: three worker processes, one SIGKILLed while it holds slots; every
// start and end is stamped with the machine's monotonic clock, and the intervals never overlap
// more than N deep (the killed one's jobs counted as running until its exit was seen).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { Arg, Connection } from '../../src/client/connection.js';
import { connect } from '../../src/client/connect.js';
import { open } from '../../src/client/embedded.js';
import { Producer } from '../../src/broker/producer.js';
import { concurrencyKey, SlotLeases } from '../../src/broker/global-concurrency.js';
import { backends, describeEach, redisServer, sluiceServer, useWorkers } from './backends.js';
import { unique } from '../support/names.js';
import { waitFor } from '../support/wait.js';
import { type LineReporter, spawnLineReporter, stopChild } from '../support/processes.js';
import { mostAtOnce } from './runs-at-once.js';

describeEach(backends, (name) => `global concurrency on ${name}`, (b) => {
  let conn!: Connection;
  const { worker } = useWorkers(b, (c) => (conn = c));

  test('two workers of concurrency 10 with globalConcurrency 3: never more than 3 running, and 3 reached', async () => {
    const stream = unique('gc');
    await new Producer(conn, { stream }).addMany(Array.from({ length: 60 }, (_, n) => ({ payload: { n } })));
    let running = 0;
    let most = 0;
    let done = 0;
    const handler = async (): Promise<void> => {
      running++;
      most = Math.max(most, running);
      // Long beside a slot's round trips, so the limit is reached on a loaded machine too.
      await new Promise((r) => setTimeout(r, 30));
      running--;
      done++;
    };
    const w1 = worker({ stream, group: 'g', concurrency: 10, globalConcurrency: 3 }, handler);
    const w2 = worker({ stream, group: 'g', concurrency: 10, globalConcurrency: 3 }, handler);
    await Promise.all([w1.start(), w2.start()]);
    await waitFor(() => done === 60, '60 done');
    assert.ok(most <= 3, `${most} ran at once`);
    assert.equal(most, 3, 'the limit is reached, not undershot');
    await waitFor(async () => Number(await conn.call('ZCARD', concurrencyKey(stream, 'g'))) === 0, 'every slot given back');
  });

  test('slots a dead holder left come back within claimIdleMs', async () => {
    const stream = unique('gc-dead');
    const key = concurrencyKey(stream, 'g');
    const claimIdleMs = 400;
    // Two leases of a worker killed just now: the limit is full until they expire.
    const [s] = (await conn.call('TIME')) as [string, string];
    const now = Number(s) * 1000 + 1000; // within a second from now on the server's clock
    await conn.call('ZADD', key, now - 1000 + claimIdleMs, 'dead:1', now - 1000 + claimIdleMs, 'dead:2');
    await new Producer(conn, { stream }).add({ n: 1 });
    let startedAt = 0;
    const began = Date.now();
    const w = worker({ stream, group: 'g', globalConcurrency: 2, claimIdleMs }, () => void (startedAt = Date.now()));
    await w.start();
    await waitFor(() => startedAt > 0, 'the job ran');
    assert.ok(startedAt - began < claimIdleMs + 1000, `ran ${startedAt - began} ms after, claimIdleMs ${claimIdleMs}`);
    assert.ok(Number(await conn.call('ZSCORE', key, 'dead:1')) === 0, 'the dead leases were swept');
  });

  test('bad values are refused', () => {
    assert.throws(() => worker({ stream: unique('gc-bad'), group: 'g', globalConcurrency: 0 }, () => {}), /globalConcurrency must be a positive integer/);
  });
});

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'global-concurrency-process.js');
const JOBS = 600;
const LIMIT = 4;
// Leases last claimIdleMs: a live process starved longer than that (a loaded machine) loses its
// slots by design (docs/fairness.md), which is not what this test is about.
const CLAIM_IDLE_MS = 1500;

interface Interval {
  start: bigint;
  end: bigint | null;
}

describeEach([redisServer, sluiceServer], (name) => `global concurrency across processes with kill -9 on ${name}`, (b) => {
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test(`${JOBS} jobs, 3 processes of concurrency 5, globalConcurrency ${LIMIT}, one SIGKILLed holding slots: never more than ${LIMIT} at once`, async () => {
    const conn = await b.connect();
    const stream = `{gck9-${process.pid}}`;
    const runs: Array<Map<string, Interval>> = [];
    const workers: LineReporter[] = [];
    for (let i = 0; i < 3; i++) {
      const mine = new Map<string, Interval>();
      runs.push(mine);
      const worker = spawnLineReporter(SCRIPT, [b.url!, stream, `w${i}`, String(CLAIM_IDLE_MS), String(LIMIT)], (line) => {
        const [kind, n, t] = line.split(' ');
        // A redelivered job (the killed one's) is a run of its own.
        if (kind === 's') mine.set(`${n}:${t}`, { start: BigInt(t!), end: null });
        if (kind === 'e') for (const [k, run] of mine) if (run.end === null && k.startsWith(`${n}:`)) run.end = BigInt(t!);
      });
      workers.push(worker);
      children.push(worker.child);
      await worker.ready;
    }
    await new Producer(conn, { stream }).addMany(Array.from({ length: JOBS }, (_, n) => ({ payload: { n } })), { keyed: true });
    await waitFor(async () => Number(await conn.call('HLEN', `${stream}:receipts`)) >= JOBS / 3, 'a third handled');
    const openRuns = (i: number): number => [...runs[i]!.values()].filter((r) => r.end === null).length;
    // A process that started a job within the last 15 ms (the children's hrtime is the same
    // monotonic clock): it still holds that slot when the signal lands. Picking one with any open
    // run raced with its end already printed but not yet read (a CI run killed one holding none).
    const justStarted = (i: number): boolean => {
      const now = process.hrtime.bigint();
      return [...runs[i]!.values()].some((r) => r.end === null && now - r.start < 15_000_000n);
    };
    await waitFor(() => [0, 1, 2].some(justStarted), 'a process that just took a slot', 20_000, 1);
    const victim = [0, 1, 2].find(justStarted)!;
    // The victim's runs end when the signal is sent (its exit may be seen much later).
    const killedAt = process.hrtime.bigint();
    await stopChild(children[victim]!, 'SIGKILL');
    await waitFor(() => workers[victim]!.exitedAt() !== null, 'the victim gone');
    const heldAtKill = openRuns(victim);
    await waitFor(async () => Number(await conn.call('HLEN', `${stream}:receipts`)) === JOBS, 'all handled', 60_000);
    // A job's receipt is written before its end is printed, and a claimed job can run again after
    // its receipt: wait for the live processes' ends to arrive.
    await waitFor(() => [0, 1, 2].every((i) => i === victim || openRuns(i) === 0), 'every run of a live process ended', 10_000);
    // Every run, the killed one's unfinished ones until its exit was seen.
    const { most } = mostAtOnce(runs, victim, killedAt);
    assert.ok(most <= LIMIT, `${most} jobs ran at once (limit ${LIMIT})`);
    assert.equal(most, LIMIT, 'the limit was reached');
    assert.ok(heldAtKill > 0, 'the killed process held slots');
    await conn.close();
  });
});

test('slots given back in one turn go in one round trip (one ZREM per set), and wake a waiting taker', async () => {
  const db = await open();
  const real = await connect(db);
  let pipelines = 0;
  const conn = Object.create(real) as Connection;
  conn.pipeline = (commands: Arg[][]) => {
    pipelines++;
    return real.pipeline(commands);
  };
  try {
    const leases = new SlotLeases(conn, 30_000);
    const tokens = ['a', 'b', 'c', 'd'];
    for (const t of tokens) assert.equal(await leases.tryTake('slots', t, 4), true);
    assert.equal(await leases.tryTake('slots', 'e', 4), false, 'the set is full');
    const waiting = leases.take('slots', 'e', 4);
    await Promise.all(tokens.map((t) => leases.release(t)));
    assert.equal(pipelines, 1, 'four releases, one round trip');
    assert.equal(await waiting, true, 'the waiting taker got a slot once they were given back');
    assert.deepEqual(await real.call('ZRANGE', 'slots', 0, -1), ['e']);
    leases.close();
  } finally {
    await real.close();
    await db.close();
  }
});
