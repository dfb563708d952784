// What the consumer-group commands propagate (to the AOF), checked against what redis-server
// 7.0.15 writes to its appendonly file for the same commands, and that replaying it rebuilds
// the same groups, PELs and consumers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../../src/client/embedded.js';
import { T0, streamWithGroup } from './groups-helpers.js';

test('XREADGROUP ">" propagates one XCLAIM per entry; history reads only a new consumer', async () => {
  const t = await streamWithGroup(3);
  t.log.length = 0;
  await t.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 2, 'STREAMS', 's', '>');
  assert.deepEqual(t.log, [
    `XCLAIM s g c1 0 1-1 TIME ${T0} RETRYCOUNT 1 FORCE JUSTID LASTID 1-1`,
    `XCLAIM s g c1 0 2-1 TIME ${T0} RETRYCOUNT 1 FORCE JUSTID LASTID 2-1`,
  ]);
  t.log.length = 0;
  await t.call('XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '0');
  await t.call('XREADGROUP', 'GROUP', 'g', 'c9', 'STREAMS', 's', '0');
  // Redis 7.0 logs nothing here and forgets c9 on replay; sluice keeps it.
  assert.deepEqual(t.log, ['XGROUP CREATECONSUMER s g c9']);
  await t.db.close();
});

test('XREADGROUP NOACK propagates the new consumer and the group position', async () => {
  const t = await streamWithGroup(3);
  t.log.length = 0;
  await t.call('XREADGROUP', 'GROUP', 'g', 'c2', 'NOACK', 'COUNT', 2, 'STREAMS', 's', '>');
  await t.call('XREADGROUP', 'GROUP', 'g', 'c2', 'NOACK', 'STREAMS', 's', '>');
  assert.deepEqual(t.log, [
    'XGROUP CREATECONSUMER s g c2',
    'XGROUP SETID s g 2-1 ENTRIESREAD 2',
    'XGROUP SETID s g 3-1 ENTRIESREAD 3',
  ]);
  await t.db.close();
});

test('XCLAIM and XAUTOCLAIM propagate explicit claims, deleted ids as their last state', async () => {
  const t = await streamWithGroup(4);
  await t.call('XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '>');
  t.clock.now += 10;
  t.log.length = 0;
  await t.call('XCLAIM', 's', 'g', 'c4', 0, '1-1', '9-9');
  await t.call('XCLAIM', 's', 'g', 'c5', 1_000_000, '1-1');
  await t.call('XCLAIM', 's', 'g', 'c5', 0, '9-9', 'LASTID', '6-0');
  await t.call('XDEL', 's', '2-1');
  t.clock.now += 10;
  await t.call('XAUTOCLAIM', 's', 'g', 'c6', 0, '0', 'COUNT', 2);
  await t.call('XACK', 's', 'g', '3-1', '9-9');
  assert.deepEqual(t.log, [
    `XCLAIM s g c4 0 1-1 TIME ${T0 + 10} RETRYCOUNT 2 FORCE JUSTID LASTID 4-1`,
    'XGROUP SETID s g 6-0 ENTRIESREAD 4',
    'XDEL s 2-1',
    `XCLAIM s g c6 0 1-1 TIME ${T0 + 20} RETRYCOUNT 3 FORCE JUSTID LASTID 6-0`,
    `XCLAIM s g c1 0 2-1 TIME ${T0} RETRYCOUNT 1 FORCE JUSTID LASTID 6-0`,
    'XACK s g 3-1 9-9',
  ]);
  await t.db.close();
});

test('replaying the propagated commands rebuilds the same groups, PELs and consumers', async () => {
  const t = await streamWithGroup(6);
  await t.call('XGROUP', 'CREATE', 's', 'h', '$');
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'COUNT', 3, 'STREAMS', 's', '>');
  t.clock.now += 50;
  await t.call('XREADGROUP', 'GROUP', 'g', 'b', 'STREAMS', 's', '>');
  await t.call('XACK', 's', 'g', '2-1');
  t.clock.now += 50;
  await t.call('XCLAIM', 's', 'g', 'c', 40, '4-1', '5-1', 'RETRYCOUNT', 9);
  await t.call('XDEL', 's', '5-1');
  await t.call('XAUTOCLAIM', 's', 'g', 'd', 0, '0', 'COUNT', 2);
  await t.call('XGROUP', 'CREATECONSUMER', 's', 'h', 'idle');
  await t.call('XREADGROUP', 'GROUP', 'h', 'historian', 'STREAMS', 's', '0');
  const expected = await t.call('XINFO', 'STREAM', 's', 'FULL');

  const copy = await open({ now: () => t.clock.now });
  for (const line of t.log) await copy.call(...line.split(' '));
  const replayed = await copy.call('XINFO', 'STREAM', 's', 'FULL');
  assert.deepEqual(withoutUnreplayedFields(replayed), withoutUnreplayedFields(expected));
  // The masks hide only those fields: the PELs (owners, times, counts) are compared exactly.
  assert.match(JSON.stringify(withoutUnreplayedFields(expected), (_k, v) => (typeof v === 'bigint' ? Number(v) : v)), /\["6-1","b",1700000000050,1\],?.*\["4-1",1700000000100,9\]/);
  await copy.close();
  await t.db.close();
});

/**
 * What replay cannot reproduce, exactly as with Redis 7.0: consumers' seen/active times (never
 * propagated) and a group's entries-read after plain XREADGROUP reads (7.0 propagates
 * XCLAIM ... LASTID without ENTRIESREAD), hence also its lag. Those values are masked.
 */
function withoutUnreplayedFields(info: unknown): unknown {
  if (!Array.isArray(info)) return info;
  const out: unknown[] = [];
  for (let i = 0; i < info.length; i++) {
    const item = info[i];
    out.push(withoutUnreplayedFields(item));
    if (typeof item === 'string' && UNREPLAYED.has(item) && i + 1 < info.length) {
      out.push('<masked>');
      i++;
    }
  }
  return out;
}

const UNREPLAYED = new Set(['seen-time', 'active-time', 'entries-read', 'lag']);
