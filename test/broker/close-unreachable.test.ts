// close({ timeoutMs }) when the server stops answering: a worker process is closed right after
// its server was SIGKILLed (connections refused) or SIGSTOPped (frozen: connections open, no
// replies). close must resolve within timeoutMs, say in a CloseTimeoutError what it left undone,
// end run(), and leave nothing of the worker's that keeps the process alive. On redis-server and
// sluice server; the embedded engine runs inside the process, so it cannot become unreachable.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { type Spawned, startRedisServer, startSluiceServer, stopChild } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'close-unreachable-process.js');
const TIMEOUT_MS = 1000;

interface Report {
  closeMs: number;
  runEnded: boolean;
  error: { message: string; abandoned: string[] } | null;
}

/** The worker process, once its jobs flow; `report` resolves with its JSON line, `exited` with its code. */
async function startWorker(url: string, stream: string): Promise<{ child: ChildProcess; report: Promise<Report>; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [SCRIPT, url, stream, String(TIMEOUT_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let out = '';
  let ready!: () => void;
  let reported!: (r: Report) => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const report = new Promise<Report>((r) => (reported = r));
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    if (out.includes('ready\n')) ready();
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line !== undefined) reported(JSON.parse(line) as Report);
  });
  await Promise.race([isReady, exited.then((code) => Promise.reject(new Error(`worker exited (${code}) before ready`)))]);
  return { child, report, exited };
}

const servers: Array<{ name: string; start: () => Promise<Spawned & { port: number }> }> = [
  { name: 'redis-server', start: () => startRedisServer() },
  { name: 'sluice-server', start: () => startSluiceServer() },
];

for (const server of servers) {
  describe(`close({ timeoutMs }) with ${server.name} unreachable`, () => {
    const children: ChildProcess[] = [];
    after(async () => {
      for (const c of children) await stopChild(c, 'SIGKILL');
    });

    for (const fault of ['SIGKILL', 'SIGSTOP'] as const) {
      test(`server ${fault === 'SIGKILL' ? 'killed (SIGKILL)' : 'frozen (SIGSTOP)'}: close returns within timeoutMs, reports what it left, and the process exits`, async () => {
        const s = await server.start();
        children.push(s.child);
        const w = await startWorker(`redis://127.0.0.1:${s.port}`, `close-${fault}`);
        children.push(w.child);
        s.child.kill(fault);
        w.child.kill('SIGUSR2');
        let report: Report | undefined;
        void w.report.then((r) => (report = r));
        // Before the fix close never returned: this wait is what fails then.
        await waitFor(() => report !== undefined, 'close() to return', 10 * TIMEOUT_MS);
        const r = report!;
        // A bound, not a timing measurement: the deadline timer plus a loaded machine's lag.
        assert.ok(r.closeMs < TIMEOUT_MS + 1000, `close took ${r.closeMs} ms`);
        assert.ok(r.runEnded, 'run() resolves once close gave up');
        assert.ok(r.error !== null, 'a CloseTimeoutError was emitted');
        assert.match(r.error.message, new RegExp(`^close\\(\\) gave up after ${TIMEOUT_MS} ms without the server's answers; left undone: `));
        // Jobs completed just before the fault wait for their XACK; the stuck ones for their release.
        assert.ok(
          r.error.abandoned.some((line) => /acknowledgements unconfirmed|jobs aborted unfinished|releases \(XNACK\) unconfirmed/.test(line)),
          r.error.abandoned.join('\n'),
        );
        // Nothing of the worker's (links, timers, sleeps) keeps the process alive; ioredis's own
        // 2 s timer for ending a dead socket is the longest that remains.
        let code: number | null | undefined;
        void w.exited.then((c) => (code = c));
        await waitFor(() => code !== undefined, 'the worker process to exit by itself', 10_000);
        assert.equal(code, 0);
        if (fault === 'SIGSTOP') s.child.kill('SIGCONT');
        await stopChild(s.child, 'SIGKILL');
      });
    }
  });
}

describe('close({ timeoutMs }) with the embedded engine unreachable', { skip: 'the embedded engine runs inside the process: it cannot become unreachable' }, () => {
  test('not applicable', () => {});
});
