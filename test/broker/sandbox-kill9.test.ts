// A Worker killed with SIGKILL cannot end its child-process sandboxes: each ends itself once its
// parent is gone (runner.ts's watchdog), the one spinning in a job that never yields and the
// idle one alike, on the socket backends (a worker process of its own).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { describeEach, redisServer, sluiceServer } from './backends.js';
import type { Task } from './fixtures/sandbox/processor.js';
import { unique } from '../support/names.js';
import { stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'sandbox-worker-process.js');

function startWorker(url: string, stream: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SCRIPT, url, stream], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before ready`)));
  });
}

/** Running (a zombie nobody reaped counts as ended: an orphan's new parent may never reap it). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describeEach([redisServer, sluiceServer], (name) => `sandboxes of a worker killed with SIGKILL on ${name}`, (b) => {
  const children: ChildProcess[] = [];
  const orphans: number[] = [];
  after(async () => {
    for (const c of children) await stopChild(c, 'SIGKILL');
    for (const pid of orphans) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  test('a child process spinning in a job, and an idle one, end when their worker is killed', async () => {
    const conn = await b.connect();
    const stream = unique('sandbox-kill9');
    const producer = new Producer<Task>(conn, { stream });
    const queue = new Queue<Task>(conn, { stream });
    try {
      const worker = await startWorker(b.url!, stream);
      children.push(worker);
      const spinning = await producer.add({ mode: 'spin-until', marker: '/nonexistent/never' });
      let pid = 0;
      await waitFor(async () => {
        const line = (await (await queue.getJob(spinning))?.logs())?.[0];
        pid = Number(/^pid (\d+)$/.exec(line ?? '')?.[1] ?? 0);
        return pid > 0;
      }, 'the spinning sandbox to report its pid');
      // The second sandbox runs a job while the first spins, then sits idle.
      const done = (await queue.waitUntilFinished(await producer.add({ mode: 'ok', n: 1 }), 20_000)) as { pid: number };
      const pids = [pid, done.pid];
      assert.notEqual(pids[0], pids[1]);
      orphans.push(...pids);
      assert.ok(pids.every(alive));
      await stopChild(worker, 'SIGKILL');
      for (const p of pids) await waitFor(() => !alive(p), `sandbox process ${p} to end after its worker was killed`, 10_000);
    } finally {
      await queue.close();
      await conn.close();
    }
  });
});
