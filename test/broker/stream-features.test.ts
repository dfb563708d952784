// probeStreamFeatures and the CLAIM reply parser: the embedded engine has the Redis 8 stream
// commands, redis-server 7.0 (when installed) has none of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import { startRedisServer } from '../support/processes.js';
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

test('redis-server 7.0 reports none of them', async () => {
  // A real redis-server 7 (the differential tests need it installed too): fails, never skips.
  const redis = await startRedisServer();
  const conn = await connect(`redis://127.0.0.1:${redis.port}`);
  try {
    assert.deepEqual(await probeStreamFeatures(conn), { readClaim: false, xnack: false, idmp: false, deletionPolicies: false });
  } finally {
    await conn.close();
    await redis.stop();
  }
});
