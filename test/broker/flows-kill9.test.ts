// kill -9 of flow workers at random points, on redis-server and sluice server (the embedded
// engine lives in one process: no other process could take over): 50 flows of depth 3 (a root,
// two mids, two leaves each, on three streams), worker processes SIGKILLed and replaced at
// random moments (up to 40 kills) while the flows run. A worker may die while it runs a job,
// between a child's WATCH and its EXEC, or after the EXEC before it heard the reply: the
// claim runs the child again and its report is applied once. In the end every root completed
// with the sum of what its children returned (a parent run early returns a wrong sum), or
// failed by its policy; no parent is left waiting for children; nothing is left in a PEL.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { FlowProducer, type FlowJob, type OnFailure } from '../../src/broker/flows/flow-producer.js';
import { JobFailedError, Queue } from '../../src/broker/queue.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { unique } from '../support/names.js';
import { stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'flows-worker-process.js');
const CLAIM_IDLE_MS = 400;
const FLOWS = 50;
const MAX_KILLS = 40;
const WORKERS = 3;

/** Starts a worker process; `ready` resolves once it runs (false if it died first: killed while starting). */
function startWorker(url: string, tag: string, consumer: string): { child: ChildProcess; ready: Promise<boolean> } {
  const child = spawn(process.execPath, [SCRIPT, url, tag, consumer, String(CLAIM_IDLE_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<boolean>((resolve) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready\n')) resolve(true);
    });
    child.once('exit', () => resolve(false));
  });
  return { child, ready };
}

/** Flow i's failing leaf's policy: every fifth flow each of fail-parent, ignore, remove; the rest never fail. */
function policyOf(i: number): OnFailure | null {
  return (['fail-parent', 'ignore', 'remove', null, null] as const)[i % 5]!;
}

function flowOf(tag: string, i: number): { flow: FlowJob; expected: number } {
  const policy = policyOf(i);
  let expected = 0;
  const mids = [0, 1].map((m) => ({
    stream: `${tag}mid`,
    data: {},
    opts: { jobId: `f${i}-m${m}` },
    children: [0, 1].map((l) => {
      const n = 1 + m * 2 + l;
      const fail = m === 0 && l === 0 && policy !== null;
      if (!fail) expected += n;
      return { stream: `${tag}leaf`, data: fail ? { fail: true } : { n }, opts: { jobId: `f${i}-m${m}-l${l}`, ...(fail ? { onFailure: policy, attempts: 2, backoff: 10 } : {}) } };
    }),
  }));
  return { flow: { stream: `${tag}top`, data: {}, opts: { jobId: `f${i}` }, children: mids }, expected };
}

describeEach([redisServer, sluiceServer], (name) => `flows with workers SIGKILLed at random points on ${name}`, (b) => {
  const children = new Set<ChildProcess>();
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test(`${FLOWS} flows of depth 3, up to ${MAX_KILLS} kills: every parent completes exactly when its children do, or fails by its policy; none stuck; no PEL left`, async () => {
    const conn = await b.connect();
    const tag = unique('fk9');
    const queues = Object.fromEntries(['top', 'mid', 'leaf'].map((l) => [l, new Queue(conn, { stream: `${tag}${l}` })])) as Record<'top' | 'mid' | 'leaf', Queue>;
    let consumers = 0;
    // Replacements are not waited for: a kill may land on a worker still starting, too.
    const spawnOne = (): Promise<boolean> => {
      const { child, ready } = startWorker(b.url!, tag, `w${++consumers}`);
      children.add(child);
      return ready;
    };
    try {
      for (let w = 0; w < WORKERS; w++) assert.ok(await spawnOne());
      const flows = new FlowProducer(conn);
      const expected: number[] = [];
      const adding = (async () => {
        for (let i = 0; i < FLOWS; i++) {
          const { flow, expected: e } = flowOf(tag, i);
          expected.push(e);
          await flows.add(flow);
          await new Promise((r) => setTimeout(r, 100)); // added over ~5 s, while the kills go on
        }
      })();
      const finished = async (): Promise<number> => {
        const counts = await queues.top.getJobCounts();
        return counts.completed + counts.failed;
      };
      let kills = 0;
      while (kills < MAX_KILLS && (await finished()) < FLOWS) {
        // At least one worker up before the next kill, so the flows make progress between kills.
        if (kills % 4 === 3) await waitFor(() => [...children].some((c) => c.exitCode === null && c.signalCode === null), 'a worker');
        await new Promise((r) => setTimeout(r, 40 + Math.random() * 160));
        const victim = [...children][Math.floor(Math.random() * children.size)]!;
        await stopChild(victim, 'SIGKILL');
        children.delete(victim);
        kills++;
        void spawnOne();
      }
      await adding;
      await waitFor(async () => (await finished()) === FLOWS, `all ${FLOWS} roots to finish (after ${kills} kills)`, 60_000, 50);

      let reruns = 0;
      for (let i = 0; i < FLOWS; i++) {
        const policy = policyOf(i);
        if (policy === 'fail-parent') {
          await assert.rejects(queues.top.waitUntilFinished(`f${i}`, 1000), (err: unknown) => {
            assert.ok(err instanceof JobFailedError);
            assert.match(err.failedReason, new RegExp(`child \\S+ f${i}-m0 failed: child \\S+ f${i}-m0-l0 failed: (leaf f${i}-m0-l0 fails|delivered \\d+ times without success)`)); // killed during its last attempt: the claim's words
            return true;
          });
          assert.equal((await queues.mid.getJob(`f${i}-m0`))?.state, 'failed');
          await waitFor(async () => (await queues.mid.getJob(`f${i}-m1`))?.state === 'completed', `f${i}-m1 completes`);
          continue;
        }
        assert.equal(await queues.top.waitUntilFinished(`f${i}`, 1000), expected[i], `flow ${i} (${policy ?? 'no failure'})`);
        // Exactly when its children do: it started after each of them finished.
        const root = (await queues.top.getJob(`f${i}`))!;
        for (const m of [0, 1]) {
          const mid = (await queues.mid.getJob(`f${i}-m${m}`))!;
          // Completed once at least (a second run, killed midway, may have left its record 'active').
          assert.ok(mid.finishedAt !== undefined, `f${i}-m${m}: ${mid.state}, never finished`);
          // A later finish is a second run of the mid (claimed from a worker too slow to renew its
          // lease: at least once), whose record says so; its report then adds nothing.
          if (root.startedAt! < mid.finishedAt!) {
            assert.ok(mid.attemptsMade >= 2, `f${i} started before f${i}-m${m} finished (${mid.attemptsMade} attempts)`);
            reruns++;
          }
        }
        if (policy === 'ignore') {
          const ignored = await queues.mid.getIgnoredFailures(`f${i}-m0`);
          assert.deepEqual(Object.keys(ignored), [`f${i}-m0-l0`]);
          assert.match(ignored[`f${i}-m0-l0`]!, new RegExp(`leaf f${i}-m0-l0 fails|delivered \\d+ times without success`));
        }
      }
      for (const q of Object.values(queues)) assert.equal((await q.getJobCounts())['waiting-children'], 0);
      // Every entry acknowledged (dead letters included): no PEL left anywhere.
      await waitFor(async () => {
        for (const l of ['top', 'mid', 'leaf']) if (Number(((await conn.call('XPENDING', `${tag}${l}`, 'g')) as unknown[])[0]) !== 0) return false;
        return true;
      }, 'every PEL to empty', 20_000, 50);
      assert.ok(kills > 0);
      process.stdout.write(`# ${b.name}: ${kills} kills, ${reruns} mids run again after their parent started\n`);
    } finally {
      for (const q of Object.values(queues)) await q.close();
      await conn.close();
    }
  });
});
