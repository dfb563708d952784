// The Redis 8 stream state survives a restart from the append-only file and a rewrite:
// XNACKed (unowned) pending entries, CLAIM deliveries, DELREF/ACKED deletions, IDMP records
// and XCFGSET configuration.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type EmbeddedDatabase, open } from '../../../src/client/embedded.js';
import { waitForRewrite } from '../../persist/helpers.js';

const T0 = 1_700_000_000_000;

async function state(db: EmbeddedDatabase): Promise<unknown> {
  const info = (await db.call('XINFO', 'STREAM', 's')) as unknown[];
  const idmp = ['idmp-duration', 'idmp-maxsize', 'pids-tracked', 'iids-tracked'].map((f) => info[info.indexOf(f) + 1]);
  return {
    entries: await db.call('XRANGE', 's', '-', '+'),
    pending: await db.call('XPENDING', 's', 'g', '-', '+', 100),
    summary: await db.call('XPENDING', 's', 'g'),
    idmp,
  };
}

test('Redis 8 stream state replays from the AOF and survives BGREWRITEAOF', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-redis8-aof-'));
  try {
    const clock = { now: T0 };
    const db = await open({ dir, appendfsync: 'always', now: () => clock.now });
    await db.call('XADD', 's', '1-0', 'f', 'seed');
    await db.call('XCFGSET', 's', 'IDMP-DURATION', 3600, 'IDMP-MAXSIZE', 50);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await db.call('XADD', 's', 'IDMP', 'prod', `m${i}`, '*', 'n', String(i))) as string);
    const auto = (await db.call('XADD', 's', 'IDMPAUTO', 'prod', '*', 'n', 'auto')) as string;
    await db.call('XGROUP', 'CREATE', 's', 'g', '0');
    await db.call('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>');
    clock.now += 10_000;
    await db.call('XNACK', 's', 'g', 'SILENT', 'IDS', 2, ids[0]!, ids[1]!);
    await db.call('XNACK', 's', 'g', 'FATAL', 'IDS', 1, ids[2]!);
    await db.call('XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', 1, 'CLAIM', 5000, 'STREAMS', 's', '>');
    await db.call('XACKDEL', 's', 'g', 'DELREF', 'IDS', 1, ids[3]!);
    await db.call('XDELEX', 's', 'ACKED', 'IDS', 1, '1-0');
    await db.call('XACK', 's', 'g', '1-0');
    await db.call('XTRIM', 's', 'ACKED', 'MINID', ids[1]!);
    const expected = await state(db);
    await db.close();

    // A resend after the restart still gets the original ids.
    const check = async (label: string) => {
      // Same clock for the comparison: XPENDING's idle times then compare delivery times.
      const again = await open({ dir, appendfsync: 'always', now: () => clock.now });
      assert.deepEqual(await state(again), expected, label);
      clock.now += 60_000; // later, still within IDMP-DURATION
      assert.equal(await again.call('XADD', 's', 'IDMP', 'prod', 'm4', '*', 'n', '4'), ids[4], label);
      assert.equal(await again.call('XADD', 's', 'IDMPAUTO', 'prod', '*', 'n', 'auto'), auto, label);
      assert.equal(await again.call('XLEN', 's'), (expected as { entries: unknown[] }).entries.length, label);
      return again;
    };
    const reopened = await check('after replay');
    assert.equal(await reopened.call('BGREWRITEAOF'), 'Background append only file rewriting started');
    await waitForRewrite(reopened);
    await reopened.close();
    clock.now -= 60_000;
    await (await check('after rewrite')).close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a consumer created by a CLAIM read that delivers nothing survives the restart', async () => {
  // The read is served (the PEL has an idle id) but its entry was trimmed away (KEEPREF), so
  // the id is only dropped: no XCLAIM names the new consumer, yet it exists and must replay.
  // Found by stream-redis8-property.test.ts.
  const dir = mkdtempSync(join(tmpdir(), 'sluice-redis8-claim-consumer-'));
  try {
    const db = await open({ dir, appendfsync: 'always', now: () => T0 });
    await db.call('XADD', 's', '1-0', 'f', 'v');
    await db.call('XGROUP', 'CREATE', 's', 'g', '0');
    await db.call('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>');
    await db.call('XTRIM', 's', 'MAXLEN', 0, 'KEEPREF');
    assert.deepEqual(await db.call('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', 0, 'STREAMS', 's', '>'), [['s', []]]);
    const consumers = async (d: EmbeddedDatabase) => ((await d.call('XINFO', 'CONSUMERS', 's', 'g')) as unknown[][]).map((c) => c[1]);
    assert.deepEqual(await consumers(db), ['alice', 'bob']);
    await db.close();
    const again = await open({ dir, appendfsync: 'always', now: () => T0 });
    assert.deepEqual(await consumers(again), ['alice', 'bob']);
    assert.deepEqual(await again.call('XPENDING', 's', 'g'), [0, null, null, null]);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
