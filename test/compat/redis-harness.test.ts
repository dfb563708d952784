// Redis 7.0's own test framework, unmodified, against `sluice server`: its stream unit tests in
// external-server mode. The suite comes from Debian's source package (scripts/fetch-redis-tests.sh,
// run by .ci/run), never from this repository. Nothing is skipped. Two configurations: without DEBUG (tests tagged needs:debug excluded), and
// with `--enable-debug-command yes` and a data directory, where the needs:debug tests run too
// (CONFIG SET appendonly yes, DEBUG LOADAOF, BGREWRITEAOF): redis-server 7.0.15 passes all 123.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, startSluiceServer } from '../support/processes.js';

const SUITE = join(dirname(fileURLToPath(import.meta.url)), '../../../.redis-src');

/** Runs the two stream test files against `port`; returns the runner's exit code and output. */
async function runSuite(port: number, extra: string[]): Promise<{ code: number | null; output: string }> {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--single', 'unit/type/stream', '--single', 'unit/type/stream-cgroups'];
  // The runner's own control socket listens from baseport - 32 up (21079 by default): start it at
  // a port free now, so runs in other checkouts on the same machine do not collide.
  args.push('--baseport', String((await freePort()) + 32));
  args.push(...extra, '--clients', '1');
  return new Promise((resolve) => {
    const child = spawn('./runtest', args, { cwd: SUITE, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit, output });
    });
  });
}

function assertAllPassed({ code, output }: { code: number | null; output: string }, expectedOk: number): void {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const failures = plain.split('\n').filter((l) => /\[(err|exception)\]/.test(l));
  assert.deepEqual(failures, []);
  assert.equal(code, 0, output.slice(-2000));
  assert.match(output, /All tests passed without errors/);
  assert.equal(plain.split('\n').filter((l) => l.startsWith('[ok]')).length, expectedOk);
}

test("Redis 7.0's unit/type/stream and stream-cgroups tests pass against sluice server", async () => {
  assert.ok(existsSync(join(SUITE, 'runtest')), 'Redis test suite missing: run scripts/fetch-redis-tests.sh (.ci/run does)');
  const server = await startSluiceServer();
  try {
    assertAllPassed(await runSuite(server.port, ['--tags', '-needs:debug']), 111);
  } finally {
    await server.stop();
  }
});

test('... and with DEBUG enabled, the needs:debug tests too (AOF turned on by CONFIG SET, DEBUG LOADAOF)', async () => {
  assert.ok(existsSync(join(SUITE, 'runtest')), 'Redis test suite missing: run scripts/fetch-redis-tests.sh (.ci/run does)');
  const dir = mkdtempSync(join(tmpdir(), 'sluice-harness-'));
  const server = await startSluiceServer(['--enable-debug-command', 'yes', '--dir', dir, '--appendonly', 'no']);
  try {
    assertAllPassed(await runSuite(server.port, []), 123);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
