// Redis 7.0's own test framework, unmodified, against `sluice server`: its stream unit tests in
// external-server mode. The suite comes from Debian's source package (scripts/fetch-redis-tests.sh,
// run by .ci/run), never from this repository. Tests tagged needs:debug need DEBUG subcommands
// sluice lacks. ("Loading from legacy ... persistence" RESTOREs a Redis 5 stream payload: it
// runs, since sluice has RESTORE.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSluiceServer } from '../support/processes.js';

const SUITE = join(dirname(fileURLToPath(import.meta.url)), '../../../.redis-src');

test("Redis 7.0's unit/type/stream and stream-cgroups tests pass against sluice server", async () => {
  assert.ok(existsSync(join(SUITE, 'runtest')), 'Redis test suite missing: run scripts/fetch-redis-tests.sh (.ci/run does)');
  const server = await startSluiceServer();
  try {
    const args = ['--host', '127.0.0.1', '--port', String(server.port), '--single', 'unit/type/stream', '--single', 'unit/type/stream-cgroups'];
    args.push('--tags', '-needs:debug', '--clients', '1');
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
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
    const failures = output.split('\n').filter((l) => /\[(err|exception)\]/.test(l.replace(/\x1b\[[0-9;]*m/g, '')));
    assert.deepEqual(failures, []);
    assert.equal(code, 0, output.slice(-2000));
    assert.match(output, /All tests passed without errors/);
  } finally {
    await server.stop();
  }
});
