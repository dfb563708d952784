// Redis 7.0's own test framework, unmodified, against `sluice server`: its stream unit tests in
// external-server mode. The suite comes from Debian's source package (scripts/fetch-redis-tests.sh,
// run by .ci/run), never from this repository. One test is skipped: "Loading from legacy (Redis
// <= v6.2.x, rdb_ver < 10) persistence" RESTOREs a Redis 6.2 RDB payload, and sluice has no
// DUMP/RESTORE yet; tests tagged needs:debug need DEBUG subcommands sluice lacks.
// unit/pubsub and unit/pubsubshard run too, without their keyspace-notification tests (sluice
// publishes no keyspace events).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSluiceServer } from '../support/processes.js';

const SUITE = join(dirname(fileURLToPath(import.meta.url)), '../../../.redis-src');

const LEGACY_RESTORE = 'Loading from legacy (Redis <= v6.2.x, rdb_ver < 10) persistence';

/** Runs the given units of Redis's suite against a fresh sluice server; every test must pass. */
async function runUnits(units: string[], skips: string[]): Promise<void> {
  assert.ok(existsSync(join(SUITE, 'runtest')), 'Redis test suite missing: run scripts/fetch-redis-tests.sh (.ci/run does)');
  const server = await startSluiceServer();
  try {
    const args = ['--host', '127.0.0.1', '--port', String(server.port)];
    for (const unit of units) args.push('--single', unit);
    for (const skip of skips) args.push('--skiptest', skip);
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
}

test("Redis 7.0's unit/type/stream and stream-cgroups tests pass against sluice server", async () => {
  await runUnits(['unit/type/stream', 'unit/type/stream-cgroups'], [LEGACY_RESTORE]);
});

test("Redis 7.0's unit/pubsub and unit/pubsubshard tests pass against sluice server", async () => {
  await runUnits(['unit/pubsub', 'unit/pubsubshard'], ['/^Keyspace notifications']);
});
