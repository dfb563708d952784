// OutputLimit, the per-connection check of client-output-buffer-limit: its parsed limits follow
// CONFIG SET for connections already open (as Redis reads server.client_obuf_limits each time),
// per client class, and a client with nothing unsent is never over a limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Config } from '../../src/commands/config.js';
import { OutputLimit } from '../../src/server/output-limit.js';

test('limits set after a connection opened apply to it, for its class now', () => {
  const config = new Config();
  let cls: 'normal' | 'pubsub' = 'normal';
  const limit = new OutputLimit(config, () => cls);
  assert.equal(limit.highest, 0, 'the default normal class has no limit');
  assert.equal(limit.exceeded(64 * 1024 * 1024), false);

  config.setRaw('client-output-buffer-limit', 'normal 4194304 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 60');
  assert.equal(limit.highest, 4194304);
  assert.equal(limit.exceeded(4194303), false);
  assert.equal(limit.exceeded(4194304), true);

  cls = 'pubsub';
  assert.equal(limit.highest, 1048576);
  assert.equal(limit.exceeded(1048576), true);
  assert.equal(limit.exceeded(0), false, 'nothing unsent is never over a limit');
});

test('the soft limit counts whole seconds from when it was first reached, and resets below it', () => {
  const config = new Config();
  config.setRaw('client-output-buffer-limit', 'normal 0 1000 2 slave 0 0 0 pubsub 0 0 0');
  const limit = new OutputLimit(config);
  assert.equal(limit.exceeded(1000, 10_000), false, 'first reached: the clock starts');
  assert.equal(limit.exceeded(1000, 12_999), false, '2.999 s: not more than 2 whole seconds');
  assert.equal(limit.exceeded(0, 13_000), false, 'emptied: the clock resets');
  assert.equal(limit.exceeded(1000, 13_500), false, 'reached again: it starts over');
  assert.equal(limit.exceeded(1000, 16_500), true, '3 whole seconds over');
});
