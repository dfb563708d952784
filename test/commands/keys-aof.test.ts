// Expiries survive a restart as absolute times: what these commands propagate is replayed by
// the AOF loader on a clock that has moved on, and the TTLs come back shortened accordingly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { openWithClock, recordPropagation } from './keys-helpers.js';

test('relative expiries replay as the same absolute deadlines', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-keys-aof-'));
  try {
    let now = 1_700_000_000_000;
    const clock = () => now;
    let db = await open({ dir, now: clock, appendfsync: 'always' });
    await db.call('SET', 'a', '1', 'EX', '100');
    await db.call('SET', 'b', '2');
    await db.call('EXPIRE', 'b', '200');
    await db.call('SETEX', 'c', '30', 'v');
    await db.call('SET', 'd', 'v');
    await db.call('GETEX', 'd', 'PX', '1000');
    await db.call('HSET', 'h', 'f', '1');
    await db.call('HINCRBYFLOAT', 'h', 'f', '0.1');
    await db.call('INCRBYFLOAT', 'x', '0.2');
    await db.close();

    now += 50_000;
    db = await open({ dir, now: clock });
    assert.equal(await db.call('TTL', 'a'), 50);
    assert.equal(await db.call('TTL', 'b'), 150);
    assert.equal(await db.call('GET', 'c'), null, 'SETEX 30 is over 50 s later');
    assert.equal(await db.call('GET', 'd'), null, 'GETEX PX 1000 is over too');
    assert.equal(await db.call('HGET', 'h', 'f'), '1.1');
    assert.equal(await db.call('GET', 'x'), '0.2');
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SET over a key whose time is up deletes it first, as lookupKeyWrite: counted and logged as a DEL', async () => {
  const { db, clock } = await openWithClock();
  try {
    const lines = recordPropagation(db);
    await db.call('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    await db.call('SET', 'k', 'old', 'PX', '100');
    clock.advance(1000);
    await db.call('SET', 'k', 'new');
    assert.match(String(await db.call('INFO', 'stats')), /\r\nexpired_keys:1\r\n/);
    assert.deepEqual(lines.slice(-2), ['DEL k', 'SET k new']);
    assert.equal(await db.call('TTL', 'k'), -1);
  } finally {
    await db.close();
  }
});
