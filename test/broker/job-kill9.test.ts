// kill -9 of a worker process in the middle of a job, on redis-server and sluice server (the
// embedded engine lives in one process, so no other process can take over there): another
// consumer claims the job once claimIdleMs has passed and completes it; waitUntilFinished,
// waiting on another connection since before the kill, resolves once, with the new consumer's
// return value; the record says attemptsMade 2 and names the new consumer; the events show the
// claim (claimed, then active, by the new consumer) and one completion.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { QueueEvents } from '../../src/broker/queue-events.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { unique } from '../support/names.js';
import { stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'job-worker-process.js');
const CLAIM_IDLE_MS = 500;

/** Starts a worker process; resolves once it is ready, with a function giving its stdout so far. */
function startWorker(url: string, stream: string, consumer: string, mode: 'hang' | 'run'): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [SCRIPT, url, stream, consumer, String(CLAIM_IDLE_MS), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready\n')) resolve({ child, out: () => out });
    });
    child.once('exit', (code) => reject(new Error(`worker ${consumer} exited (${code}) before ready`)));
  });
}

interface Result {
  by: string;
  doubled: number;
}

describeEach([redisServer, sluiceServer], (name) => `a job whose worker is SIGKILLed on ${name}`, (b) => {
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test('another consumer claims it after claimIdleMs; waitUntilFinished resolves once with its value', async () => {
    const conn = await b.connect();
    const other = await b.connect();
    const stream = unique('jk9');
    const queue = new Queue<{ n: number }, Result>(conn, { stream });
    const remote = new Queue<{ n: number }, Result>(other, { stream });
    const events = new QueueEvents<Result>(other, { stream, lastEventId: '0' });
    const seen: Array<{ name: string; consumer?: string; attemptsMade?: number; id: string }> = [];
    for (const name of ['added', 'active', 'claimed', 'completed', 'failed', 'retrying'] as const) {
      events.on(name, (e: { jobId: string; consumer?: string; attemptsMade?: number }, id: string) => {
        if (e.jobId === 'k9') seen.push({ name, consumer: e.consumer, attemptsMade: e.attemptsMade, id });
      });
    }
    events.on('error', () => {});
    await events.start();
    try {
      const victim = await startWorker(b.url!, stream, 'victim', 'hang');
      children.push(victim.child);
      const id = await new Producer<{ n: number }>(conn, { stream }).add({ n: 21 }, { jobId: 'k9' });
      let resolutions = 0;
      const finished = remote.waitUntilFinished(id, 30_000).then((r) => {
        resolutions++;
        return r;
      });
      await waitFor(() => victim.out().includes('started k9\n'), 'the victim to start the job');
      await waitFor(async () => (await queue.getJob(id))?.state === 'active', 'the record to say active');
      let job = (await queue.getJob(id))!;
      assert.equal(job.consumer, 'victim');
      assert.equal(job.attemptsMade, 1);

      await stopChild(victim.child, 'SIGKILL');
      const rescuer = await startWorker(b.url!, stream, 'rescuer', 'run');
      children.push(rescuer.child);

      assert.deepEqual(await finished, { by: 'rescuer', doubled: 42 });
      job = (await queue.getJob(id))!;
      assert.equal(job.state, 'completed');
      assert.equal(job.attemptsMade, 2);
      assert.equal(job.consumer, 'rescuer');
      assert.deepEqual(job.returnValue, { by: 'rescuer', doubled: 42 });
      assert.ok(job.finishedAt! >= job.startedAt! && job.startedAt! >= job.addedAt);
      assert.equal(Number(await conn.call('HGET', `${stream}:calls`, id)), 1, 'the rescuer ran it once');
      assert.equal(resolutions, 1);

      await waitFor(() => seen.some((e) => e.name === 'completed'), 'the completed event');
      assert.deepEqual(
        seen.map((e) => [e.name, e.consumer, e.attemptsMade]),
        [
          ['added', undefined, undefined],
          ['active', 'victim', 1],
          ['claimed', 'rescuer', 2],
          ['active', 'rescuer', 2],
          ['completed', undefined, undefined],
        ],
      );
      // After all that, a second wait resolves at once, to the same value, and nothing more runs.
      assert.deepEqual(await remote.waitUntilFinished(id, 1000), { by: 'rescuer', doubled: 42 });
      const [pending] = (await conn.call('XPENDING', stream, 'g')) as unknown[];
      assert.equal(Number(pending), 0);
      assert.equal(resolutions, 1);
    } finally {
      await events.close();
      await queue.close();
      await remote.close();
      await conn.close();
      await other.close();
    }
  });
});
