// The broker suite's backends fail, they do not skip: a backend whose probe fails (XAUTOCLAIM
// broken) or that crashes as it starts makes its describe() fail with the reason; only one that
// reports itself absent (not installed) is skipped. Checked on fixtures/unstartable-backends.ts,
// run as a test file of its own.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runToExit } from '../support/processes.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/unstartable-backends.js', import.meta.url));

test('a backend that fails its probe or its start fails its tests; only an absent one is skipped', async () => {
  const env = { ...process.env };
  delete env['NODE_TEST_CONTEXT']; // a run of its own, not a subtest of this one
  const { code, output } = await runToExit(process.execPath, ['--test', '--test-reporter=tap', FIXTURE], { env, timeoutMs: 60_000 });
  assert.equal(code, 1, output);
  const outcome = (name: string): string => {
    const line = output.split('\n').find((l) => new RegExp(`^(not )?ok \\d+ - suite on ${name}\\b`).test(l));
    assert.ok(line !== undefined, `no outcome for ${name} in\n${output}`);
    return line;
  };
  assert.match(outcome('embedded-without-xautoclaim'), /^not ok /);
  assert.match(output, /error: "embedded-without-xautoclaim: the broker's commands fail: ERR unknown command 'XAUTOCLAIM'"/);
  assert.match(outcome('server-that-crashes'), /^not ok /);
  assert.match(output, /error: '.*exited \(3\) before ready/);
  assert.match(outcome('not-installed'), /^ok \d+ - suite on not-installed # SKIP no-such-server not installed$/);
  assert.match(output, /^# pass 0$/m, 'the tests of the unstartable backends did not pass');
});
