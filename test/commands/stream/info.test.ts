// XINFO through the embedded client: field order and values as redis-server 7.0.15 replies
// them (plus 7.2's consumer "inactive" / "active-time"), maps in RESP3, lag and entries-read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MapReply } from '../../../src/resp/reply.js';
import { groupDb, seedStream, T0, streamWithGroup } from './groups-helpers.js';
import { callRaw } from '../../../src/client/embedded-internals.js';

test('XINFO STREAM, FULL with COUNT, GROUPS and CONSUMERS', async () => {
  const t = await streamWithGroup(3);
  await t.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 2, 'STREAMS', 's', '>');
  await t.call('XDEL', 's', '2-1');
  t.clock.now += 30;
  assert.deepEqual(await t.call('XINFO', 'STREAM', 's'), [
    'length', 2, 'radix-tree-keys', 1, 'radix-tree-nodes', 2,
    'last-generated-id', '3-1', 'max-deleted-entry-id', '2-1', 'entries-added', 3n,
    'recorded-first-entry-id', '1-1', 'groups', 1,
    'first-entry', ['1-1', ['f1', 'v1']], 'last-entry', ['3-1', ['f3', 'v3']],
  ]);
  assert.deepEqual(await t.call('XINFO', 'STREAM', 's', 'FULL', 'COUNT', 1), [
    'length', 2, 'radix-tree-keys', 1, 'radix-tree-nodes', 2,
    'last-generated-id', '3-1', 'max-deleted-entry-id', '2-1', 'entries-added', 3n,
    'recorded-first-entry-id', '1-1',
    'entries', [['1-1', ['f1', 'v1']]],
    'groups', [[
      // A tombstone after last-delivered-id makes the lag unknown.
      'name', 'g', 'last-delivered-id', '2-1', 'entries-read', 2n, 'lag', null, 'pel-count', 2,
      'pending', [['1-1', 'c1', T0, 1]],
      'consumers', [['name', 'c1', 'seen-time', T0, 'active-time', T0, 'pel-count', 2, 'pending', [['1-1', T0, 1]]]],
    ]],
  ]);
  assert.deepEqual(await t.call('XINFO', 'GROUPS', 's'), [
    ['name', 'g', 'consumers', 1, 'pending', 2, 'last-delivered-id', '2-1', 'entries-read', 2n, 'lag', null],
  ]);
  assert.deepEqual(await t.call('XINFO', 'CONSUMERS', 's', 'g'), [['name', 'c1', 'pending', 2, 'idle', 30, 'inactive', 30]]);
  await t.db.close();
});

test('lag and entries-read: estimates at the ends, tombstones, SETID, ENTRIESREAD (as redis-server)', async () => {
  const t = await groupDb();
  await seedStream(t, 's', 4);
  await t.call('XGROUP', 'CREATE', 's', 'late', '$');
  await t.call('XGROUP', 'CREATE', 's', 'first', '1-1');
  await t.call('XGROUP', 'CREATE', 's', 'mid', '2-1');
  await t.call('XGROUP', 'CREATE', 's', 'told', '2-1', 'ENTRIESREAD', 2);
  await t.call('XGROUP', 'CREATE', 's', 'zero', '0');
  // [entries-read, lag] per group, each step checked on redis-server 7.0.15.
  const lagOf = async () =>
    Object.fromEntries(((await t.call('XINFO', 'GROUPS', 's')) as unknown[][]).map((g) => [g[1], [g[9], g[11]]]));
  assert.deepEqual(await lagOf(), {
    first: [null, 3n], late: [null, 0n], mid: [null, null], told: [2n, 2n], zero: [null, 4n],
  });
  await t.call('XDEL', 's', '1-1');
  assert.deepEqual(await lagOf(), {
    first: [null, 3n], late: [null, 0n], mid: [null, 2n], told: [2n, 2n], zero: [null, 3n],
  });
  await t.call('XDEL', 's', '3-1');
  assert.deepEqual(await lagOf(), {
    first: [null, null], late: [null, 0n], mid: [null, null], told: [2n, null], zero: [null, null],
  });
  await t.call('XREADGROUP', 'GROUP', 'mid', 'c', 'STREAMS', 's', '>');
  assert.deepEqual((await lagOf()).mid, [4n, 0n]);
  await t.call('XGROUP', 'SETID', 's', 'mid', '0', 'ENTRIESREAD', 0);
  assert.deepEqual((await lagOf()).mid, [0n, null]);
  await t.db.close();
});

test('XINFO replies are maps under RESP3; errors as Redis words them', async () => {
  const t = await streamWithGroup(1);
  const session = t.db.session();
  await session.call('HELLO', 3);
  const info = await callRaw(session, 'XINFO', 'STREAM', 's');
  assert.ok(info instanceof MapReply);
  const groups = (await callRaw(session, 'XINFO', 'GROUPS', 's')) as unknown[];
  assert.ok(groups[0] instanceof MapReply);
  assert.equal(await t.error('XINFO', 'STREAM', 'nokey'), 'ERR no such key');
  assert.equal(await t.error('XINFO', 'CONSUMERS', 's', 'nog'), "NOGROUP No such consumer group 'nog' for key name 's'");
  assert.equal(await t.error('XINFO', 'STREAM', 's', 'foo'), "ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.");
  assert.equal(await t.error('XINFO', 'STREAM', 's', 'FULL', 'COUNT', 'x'), 'ERR value is not an integer or out of range');
  assert.equal(((await t.call('XINFO', 'HELP')) as string[])[0], 'XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
  await t.db.close();
});
