// Delayed delivery with real processes: 2,000 jobs due over ~2 s, three worker processes (each
// running a DelayedMover beside its consumer), one SIGKILLed mid-run. Every job is moved once
// (stream length), handled, none before its due time (server TIME), 99% within due + 1 s +
// the claim delay and none past due + 4 s + it; nothing is left in the delayed set or the PEL.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { Value } from '../../src/client/connection.js';
import { delayedKey, serverTimeMs } from '../../src/broker/delayed.js';
import { Producer } from '../../src/broker/producer.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { waitFor } from '../support/wait.js';
import { stopChild } from '../support/processes.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'delayed-worker-process.js');
// DELAYED_KILL9_JOBS=10000 DELAYED_KILL9_SPREAD_MS=10000 runs the larger run by hand.
const JOBS = Number(process.env.DELAYED_KILL9_JOBS ?? 2000);
/** The jobs fall due evenly over this span. */
const SPREAD_MS = Number(process.env.DELAYED_KILL9_SPREAD_MS ?? 2000);
const CLAIM_IDLE_MS = 500;

function startWorker(url: string, stream: string, consumer: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SCRIPT, url, stream, consumer, String(CLAIM_IDLE_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before ready`)));
  });
}

describeEach([redisServer, sluiceServer], (name) => `delayed delivery with kill -9 on ${name}`, (b, name) => {
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test(`${JOBS} delayed jobs, 3 worker processes, one SIGKILLed: each handled, on time, moved once`, async () => {
    const conn = await b.connect();
    const stream = `{dk9-${process.pid}}`;
    // The workers first (starting a process is slow on a loaded machine), then the jobs.
    for (let i = 0; i < 3; i++) children.push(await startWorker(b.url!, stream, `w${i}`));
    const now = await serverTimeMs(conn);
    const due = (n: number): number => now + 1000 + Math.floor((n * SPREAD_MS) / JOBS); // from 1 s on
    await new Producer(conn, { stream }).addMany(Array.from({ length: JOBS }, (_, n) => ({ payload: { n }, at: due(n) })), { keyed: true });
    await waitFor(async () => Number(await conn.call('HLEN', `${stream}:receipts`)) >= JOBS / 3, 'a third handled', 10_000);
    await stopChild(children[0]!, 'SIGKILL');
    await waitFor(async () => Number(await conn.call('HLEN', `${stream}:receipts`)) === JOBS, 'all handled', 15_000 + JOBS);
    await waitFor(async () => Number(((await conn.call('XPENDING', stream, 'g')) as Value[])[0]) === 0, 'PEL empty', 5000);

    const receipts = (await conn.call('HGETALL', `${stream}:receipts`)) as string[];
    let early = 0;
    let late = 0;
    let veryLate = 0;
    let worstLateMs = 0;
    const all: number[] = [];
    for (let i = 0; i < receipts.length; i += 2) {
      const n = Number(receipts[i]);
      const lateness = Number(receipts[i + 1]) - due(n);
      if (lateness < 0) early++;
      if (lateness > 1000 + CLAIM_IDLE_MS) late++;
      if (lateness > 4000 + CLAIM_IDLE_MS) veryLate++;
      worstLateMs = Math.max(worstLateMs, lateness);
      all.push(lateness);
    }
    all.sort((x, y) => x - y);
    const twice = (await conn.call('HVALS', `${stream}:calls`)) as string[];
    process.stdout.write(
      `# ${name}: ${JOBS} jobs, lateness p50 ${all[all.length >> 1]} ms, p99 ${all[Math.floor(all.length * 0.99)]} ms, max ${worstLateMs} ms; ${twice.filter((c) => c !== '1').length} run twice\n`,
    );
    assert.equal(early, 0, 'handled before its due time');
    // On time: all but 1% within 1 s + the claim delay, none past 4 s + it. A CI run on a
    // loaded machine had 2 of 2,000 at 1.8 s (the limit was 1.5 s for every job); the fault
    // this guards against made jobs seconds late (p50 6 s).
    assert.ok(late <= JOBS / 100, `${late} jobs handled more than 1 s + claim delay late (worst ${worstLateMs} ms)`);
    assert.equal(veryLate, 0, `handled more than 4 s + claim delay late (worst ${worstLateMs} ms)`);
    assert.equal(Number(await conn.call('XLEN', stream)), JOBS, 'each job moved into the stream exactly once (the workers keep acknowledged entries)');
    assert.equal(Number(await conn.call('ZCARD', delayedKey(stream))), 0);
    const calls = ((await conn.call('HVALS', `${stream}:calls`)) as string[]).map(Number);
    assert.equal(calls.length, JOBS);
    // At least once: only jobs the killed process held may run twice.
    assert.ok(calls.filter((c) => c > 1).length < 100, `${calls.filter((c) => c > 1).length} jobs ran more than once`);
    for (const c of children.slice(1)) await stopChild(c, 'SIGTERM');
    await conn.close();
  });
});
