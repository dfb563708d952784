// CLUSTER without cluster mode through the embedded engine: every subcommand answers "cluster
// support disabled" after the table's own checks, CLUSTER RESET is refused from scripts
// (noscript) and the others run there and fail, and COMMAND shows the subcommand table.
// Byte-for-byte comparisons with redis-server are in test/differential/cluster.cases.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open, ReplyError } from '../../src/client/embedded.js';

const DISABLED = new ReplyError('ERR This instance has cluster support disabled');

test('CLUSTER subcommands reply that cluster support is disabled; unknown ones and wrong arities fail first', async () => {
  const db = await open();
  try {
    for (const argv of [['INFO'], ['nodes'], ['KEYSLOT', 'k'], ['RESET', 'HARD'], ['HELP'], ['SETSLOT', '1', 'STABLE']]) {
      await assert.rejects(db.call('CLUSTER', ...argv), DISABLED);
    }
    await assert.rejects(db.call('CLUSTER', 'NOSUCH'), new ReplyError("ERR unknown subcommand 'NOSUCH'. Try CLUSTER HELP."));
    await assert.rejects(db.call('CLUSTER', 'KEYSLOT'), new ReplyError("ERR wrong number of arguments for 'cluster|keyslot' command"));
    await assert.rejects(db.call('CLUSTER'), new ReplyError("ERR wrong number of arguments for 'cluster' command"));
  } finally {
    await db.close();
  }
});

test('a script may not call CLUSTER RESET (noscript); CLUSTER INFO runs and fails', async () => {
  const db = await open();
  try {
    await assert.rejects(db.call('EVAL', "return redis.call('cluster', 'reset')", 0), /^ReplyError: ERR This Redis command is not allowed from script script: /);
    assert.deepEqual(
      await db.call('EVAL', "local r = redis.pcall('cluster', 'info'); return r.err", 0),
      'ERR This instance has cluster support disabled',
    );
  } finally {
    await db.close();
  }
});

test('COMMAND INFO shows Redis 7.0\'s CLUSTER subcommands with their flags and tips', async () => {
  const db = await open();
  try {
    const [entry] = (await db.call('COMMAND', 'INFO', 'cluster')) as unknown[][];
    const subs = new Map((entry![9] as unknown[][]).map((s) => [s[0], s]));
    assert.equal(subs.size, 27);
    assert.deepEqual(subs.get('cluster|reset')!.slice(0, 3), ['cluster|reset', -2, ['admin', 'noscript', 'stale']]);
    assert.deepEqual(subs.get('cluster|keyslot')!.slice(0, 7), ['cluster|keyslot', 3, ['stale'], 0, 0, 0, ['@slow']]);
    assert.deepEqual(subs.get('cluster|addslots')![6], ['@admin', '@slow', '@dangerous']);
    // Tips as Redis's JSON gives them; no subcommands of a subcommand.
    assert.deepEqual(subs.get('cluster|nodes')!.slice(7), [['nondeterministic_output'], [], []]);
    assert.deepEqual(subs.get('cluster|reset')![7], []);
  } finally {
    await db.close();
  }
});
