// `sluice demo` as the README's quick start runs it: without --url, on sluice's own engine (a
// `sluice server` child it starts, on --port), and nothing left behind in the temp directory.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { CLI_MAIN, freePort, runToExit } from '../support/processes.js';

test('demo without --url serves its own engine on --port and removes its AOF directory', async () => {
  const port = await freePort();
  const { code, output } = await runToExit(process.execPath, [CLI_MAIN, 'demo', '--orders', '2000', '--port', String(port), '--claim-idle-ms', '500', '--timeout-ms', '90000'], {
    timeoutMs: 120_000,
  });
  assert.equal(code, 0, output);
  const started = /sluice server on redis:\/\/127\.0\.0\.1:(\d+) \(AOF in (\S+)\)/.exec(output);
  assert.ok(started, output);
  assert.equal(Number(started[1]), port);
  assert.equal(existsSync(started[2]!), false, `${started[2]} left behind`);
  assert.match(output, /^receipts 2000 distinct 2000 pending 0$/m);
});

test('demo refuses a --port it cannot use, and --port with --url', async () => {
  const bad = await runToExit(process.execPath, [CLI_MAIN, 'demo', '--port', '70000'], { timeoutMs: 20_000 });
  assert.notEqual(bad.code, 0);
  assert.match(bad.output, /--port must be an integer from 1 to 65535/);
  const both = await runToExit(process.execPath, [CLI_MAIN, 'demo', '--port', '7000', '--url', 'redis://127.0.0.1:1'], { timeoutMs: 20_000 });
  assert.notEqual(both.code, 0);
  assert.match(both.output, /--port is the port of the server the demo starts: not with --url/);
});
