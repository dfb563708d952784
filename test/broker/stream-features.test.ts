// probeStreamFeatures and the CLAIM reply parser: the embedded engine has the Redis 8 stream
// commands, redis-server 7.0 (when installed) has none of them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { open } from '../../src/client/embedded.js';
import { parseClaimReadReply, probeStreamFeatures } from '../../src/broker/stream-features.js';

test('the embedded engine reports CLAIM, XNACK and IDMP; a CLAIM reply parses with counts', async () => {
  const db = await open();
  const conn = new EmbeddedConnection(db, false);
  assert.deepEqual(await probeStreamFeatures(conn), { readClaim: true, xnack: true, idmp: true, deletionPolicies: true });
  await conn.call('XADD', 's', '1-0', 'k', 'a');
  await conn.call('XGROUP', 'CREATE', 's', 'g', '0');
  await conn.call('XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '>');
  await conn.call('XNACK', 's', 'g', 'FAIL', 'IDS', 1, '1-0');
  await conn.call('XADD', 's', '2-0', 'k', 'b');
  const parsed = parseClaimReadReply(await conn.call('XREADGROUP', 'GROUP', 'g', 'c2', 'CLAIM', 60_000, 'STREAMS', 's', '>'));
  assert.deepEqual(
    parsed.map((p) => [p.entry.id, p.entry.fields, p.previousDeliveries]),
    [
      ['1-0', { k: 'a' }, 1],
      ['2-0', { k: 'b' }, undefined],
    ],
  );
  assert.deepEqual(parseClaimReadReply(null), []);
  await db.close();
});

test('redis-server 7.0 reports none of them', async (t) => {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    t.skip('redis-server is not installed');
    return;
  }
  const port = 7000 + Math.floor(Math.random() * 1000);
  assert.equal(spawnSync('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--daemonize', 'yes']).status, 0);
  try {
    let conn;
    for (let i = 0; ; i++) {
      try {
        conn = await connect(`redis://127.0.0.1:${port}`);
        await conn.call('PING');
        break;
      } catch (err) {
        if (i > 200) throw err;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    assert.deepEqual(await probeStreamFeatures(conn), { readClaim: false, xnack: false, idmp: false, deletionPolicies: false });
    await conn.close();
  } finally {
    spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
  }
});
