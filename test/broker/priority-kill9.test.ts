// Prioritized jobs with real processes: 1,500 jobs with priorities, three worker processes, one
// SIGKILLed while it holds jobs it moved in and took. Every job is handled (the killed one's are
// claimed by the others), nothing is left in the prioritized set or the PEL, and no job was
// moved twice (the stream holds each once). Socket backends only: a process of its own.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { prioritizedKey } from '../../src/broker/jobs/priority.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import { waitFor } from '../support/wait.js';
import { stopChild } from '../support/processes.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'priority-worker-process.js');
const JOBS = 1500;
const CLAIM_IDLE_MS = 500;

function startWorker(url: string, stream: string, consumer: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SCRIPT, url, stream, consumer, String(CLAIM_IDLE_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before ready`)));
  });
}

describeEach([redisServer, sluiceServer], (name) => `prioritized jobs with kill -9 on ${name}`, (b) => {
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
  });

  test(`${JOBS} prioritized jobs, 3 worker processes, one SIGKILLed holding jobs: each handled, moved once`, async () => {
    const conn = await b.connect();
    const stream = `{pk9-${process.pid}}`;
    for (let i = 0; i < 3; i++) children.push(await startWorker(b.url!, stream, `w${i}`));
    await new Producer(conn, { stream }).addMany(
      Array.from({ length: JOBS }, (_, n) => ({ payload: { n }, priority: 1 + (n % 10) })),
      { keyed: true },
    );
    await waitFor(async () => Number(await conn.call('HLEN', `${stream}:receipts`)) >= JOBS / 3, 'a third handled');
    // The worker holding the most jobs now (XPENDING's summary: [consumer, count] pairs).
    const [, , , owners] = (await conn.call('XPENDING', stream, 'g')) as [Value, Value, Value, Array<[string, string]> | null];
    const [victim] = [...(owners ?? [])].sort((x, y) => Number(y[1]) - Number(x[1]))[0] ?? ['w0'];
    await stopChild(children[Number(String(victim).slice(1))]!, 'SIGKILL');
    const held = (await conn.call('XPENDING', stream, 'g', '-', '+', 1000, String(victim))) as Value[];
    assert.ok(held.length > 0, `the killed worker ${String(victim)} held jobs`);
    await waitFor(async () => Number(await conn.call('HLEN', `${stream}:receipts`)) === JOBS, 'all handled');
    await waitFor(async () => Number(((await conn.call('XPENDING', stream, 'g')) as Value[])[0]) === 0, 'PEL empty');
    assert.equal(Number(await conn.call('ZCARD', prioritizedKey(stream))), 0);
    // Each job's entry once: the stream's job entries (wake-ups aside) are the jobs.
    const entries = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
    const jobIds = entries.filter(([, f]) => f.map(String).includes('job-id')).map(([, f]) => String(f[f.map(String).indexOf('job-id') + 1]));
    assert.equal(jobIds.length, JOBS);
    assert.equal(new Set(jobIds).size, JOBS);
    // Handled more than once: only jobs the killed worker held (at least once).
    const calls = (await conn.call('HGETALL', `${stream}:calls`)) as string[];
    let twice = 0;
    for (let i = 1; i < calls.length; i += 2) if (Number(calls[i]) > 1) twice++;
    assert.ok(twice <= held.length, `${twice} handled twice, the killed worker held ${held.length}`);
    await conn.close();
  });
});
