// A QueueEvents listener in a child process, SIGKILLed in the middle of a run and started again
// from the ids it saved (the last event it handled, per partition stream), misses no event and
// sees none twice: what it printed over both lives equals the events streams, id for id. On
// redis-server and sluice server (a listener in another process needs a server).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { uniqueName } from '../support/names.js';
import { stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'queue-events-process.js');
const PARTITIONS = 2;
const JOBS = 1500;

interface Listener {
  child: ChildProcess;
  /** Complete lines printed so far. */
  lines: () => string[];
}

function startListener(url: string, stream: string, from: string): Promise<Listener> {
  const child = spawn(process.execPath, [SCRIPT, url, stream, String(PARTITIONS), from], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const lines = (): string[] => out.slice(0, out.lastIndexOf('\n') + 1).split('\n').filter((l) => l.startsWith('event '));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready\n')) resolve({ child, lines });
    });
    child.once('exit', (code) => reject(new Error(`listener exited (${code}) before ready`)));
  });
}

describeEach([redisServer, sluiceServer], (name) => `a QueueEvents listener killed and restarted on ${name}`, (b) => {
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test('resumes from its saved lastEventIds: no event missed, none twice (by event id)', async () => {
    const conn = await b.connect();
    const stream = uniqueName('evr');
    const producer = new Producer<{ n: number }>(conn, { stream, partitions: PARTITIONS, idempotent: false });
    const worker = new Worker<{ n: number }>(conn, { stream, group: 'g', partitions: PARTITIONS, blockMs: 200, concurrency: 20 }, async (job) => {
      if (job.payload.n % 10 === 0) await job.updateProgress(job.payload.n);
      return job.payload.n;
    });
    worker.on('error', () => {});
    let done = 0;
    worker.on('completed', () => done++);
    try {
      const first = await startListener(b.url!, stream, '$');
      children.push(first.child);
      await worker.start();
      let added = 0;
      const adding = (async () => {
        for (; added < JOBS - 100; added += 50) await producer.addMany(Array.from({ length: 50 }, (_, k) => ({ n: added + k })));
      })();
      await waitFor(() => first.lines().length >= 500, 'the first life to see 500 events');
      await stopChild(first.child, 'SIGKILL');
      const firstLines = first.lines();
      // What it saved: per stream, the last event it printed whole.
      const saved: Record<string, string> = {};
      for (const line of firstLines) {
        const [, s, id] = line.split(' ');
        saved[s!] = id!;
      }
      assert.equal(Object.keys(saved).length, PARTITIONS, `events on every partition before the kill: ${JSON.stringify(saved)}`);
      // Surely some events while it is down: the last 100 jobs are added now.
      await adding;
      await producer.addMany(Array.from({ length: 100 }, (_, k) => ({ n: JOBS - 100 + k })));
      await waitFor(() => done >= JOBS - 50, 'jobs run while it is down');
      const second = await startListener(b.url!, stream, JSON.stringify(saved));
      children.push(second.child);
      await waitFor(() => done === JOBS, 'every job done');
      // No event after this (a late `drained`), so the streams read next are the whole run.
      await worker.close({ timeoutMs: 1000 });

      const expected: string[] = [];
      for (let p = 0; p < PARTITIONS; p++) {
        const key = jobKeys(producer.streams[p]!).events;
        const all = (await conn.call('XRANGE', key, '-', '+')) as Array<[string, string[]]>;
        for (const [id] of all) expected.push(`${producer.streams[p]} ${id}`);
      }
      const lastOf = new Map<string, string>();
      for (const e of expected) lastOf.set(e.split(' ')[0]!, e);
      await waitFor(() => [...lastOf.values()].every((e) => second.lines().some((l) => l.includes(` ${e} `))), 'the second life to reach the end of every stream');
      const seen = [...firstLines, ...second.lines()].map((l) => l.split(' ').slice(1, 3).join(' '));
      const twice = seen.filter((e, i) => seen.indexOf(e) !== i);
      assert.deepEqual(twice, [], 'events seen twice');
      const seenSet = new Set(seen);
      const firstSeen = new Set(firstLines.map((l) => l.split(' ').slice(1, 3).join(' ')));
      // The first life started at '$' once its stream had events or not: everything after its
      // first event is expected (nothing was added before it started).
      const missed = expected.filter((e) => !seenSet.has(e));
      assert.deepEqual(missed, [], 'events missed');
      const expectedSet = new Set(expected);
      assert.deepEqual(seen.filter((e) => !expectedSet.has(e)), [], 'events seen that the streams do not hold');
      assert.equal(seen.length, expected.length);
      assert.ok(firstSeen.size >= 500 && second.lines().length > 0, `first life ${firstSeen.size}, second ${second.lines().length}`);
      assert.ok(expected.length >= JOBS * 3, `${expected.length} events in all`);
    } finally {
      await worker.close({ timeoutMs: 1000 });
      for (const c of children) await stopChild(c, 'SIGKILL');
      await conn.close();
    }
  });
});
