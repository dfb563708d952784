// Consumer-group commands through the embedded client, with replies confirmed on redis-server
// 7.0.15 and a manual clock so idle and delivery times are exact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupDb, seedStream, T0, streamWithGroup } from './groups-helpers.js';

test('XREADGROUP delivers new entries, then history with delivery counts', async () => {
  const t = await groupDb();
  await seedStream(t, 's', 3);
  assert.equal(await t.call('XGROUP', 'CREATE', 's', 'g', '0'), 'OK');
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 2, 'STREAMS', 's', '>'), [
    ['s', [['1-1', ['f1', 'v1']], ['2-1', ['f2', 'v2']]]],
  ]);
  t.clock.now += 100;
  // History: the consumer's own pending entries after the id, each delivered once more.
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '1-1'), [
    ['s', [['2-1', ['f2', 'v2']]]],
  ]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 10), [
    ['1-1', 'c1', 100, 1],
    ['2-1', 'c1', 0, 2],
  ]);
  // Nothing new for ">" and no BLOCK: a null reply, and the consumer is not created.
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', 5, 'STREAMS', 's', '>'), [
    ['s', [['3-1', ['f3', 'v3']]]],
  ]);
  assert.equal(await t.call('XREADGROUP', 'GROUP', 'g', 'c3', 'STREAMS', 's', '>'), null);
  assert.deepEqual(await t.call('XINFO', 'CONSUMERS', 's', 'g'), [
    ['name', 'c1', 'pending', 2, 'idle', 0, 'inactive', 100],
    ['name', 'c2', 'pending', 1, 'idle', 0, 'inactive', 0],
  ]);
  await t.db.close();
});

test('XREADGROUP history shows deleted entries with a null body and does not count them', async () => {
  const t = await streamWithGroup(3);
  await t.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>');
  await t.call('XDEL', 's', '2-1');
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '0'), [
    ['s', [['1-1', ['f1', 'v1']], ['2-1', null], ['3-1', ['f3', 'v3']]]],
  ]);
  const pending = (await t.call('XPENDING', 's', 'g', '-', '+', 10)) as unknown[][];
  assert.deepEqual(pending.map((p) => [p[0], p[3]]), [['1-1', 2], ['2-1', 1], ['3-1', 2]]);
  await t.db.close();
});

test('XREADGROUP NOACK moves the group without PEL entries; several streams in one call', async () => {
  const t = await groupDb();
  await seedStream(t, 'a', 2);
  await seedStream(t, 'b', 1);
  await t.call('XGROUP', 'CREATE', 'a', 'g', '0');
  await t.call('XGROUP', 'CREATE', 'b', 'g', '$');
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'STREAMS', 'a', 'b', '>', '>'), [
    ['a', [['1-1', ['f1', 'v1']], ['2-1', ['f2', 'v2']]]],
  ]);
  assert.deepEqual(await t.call('XPENDING', 'a', 'g'), [0, null, null, null]);
  assert.deepEqual(await t.call('XINFO', 'GROUPS', 'a'), [
    ['name', 'g', 'consumers', 1, 'pending', 0, 'last-delivered-id', '2-1', 'entries-read', 2n, 'lag', 0n],
  ]);
  // A history id is always served, even when empty.
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'a', 'b', '>', '0'), [['b', []]]);
  await t.db.close();
});

test('XREADGROUP argument errors, in Redis order', async () => {
  const t = await streamWithGroup(1);
  await t.call('SET', 'str', 'x');
  assert.match(await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '$'), /^ERR The \$ ID is meaningless in the context of XREADGROUP/);
  assert.equal(
    await t.error('XREADGROUP', 'GROUP', 'nog', 'c', 'STREAMS', 's', '>'),
    "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option",
  );
  assert.equal(await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'str', '0'), 'WRONGTYPE Operation against a key holding the wrong kind of value');
  assert.equal(
    await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', 's', '0'),
    "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
  );
  assert.equal(await t.error('XREADGROUP', 'COUNT', 1, 'NOACK', 'STREAMS', 's', '>'), 'ERR Missing GROUP option for XREADGROUP');
  assert.equal(await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'FOO', 'STREAMS', 's', '0'), 'ERR syntax error');
  assert.equal(await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 'x', 'STREAMS', 's', '>'), 'ERR timeout is not an integer or out of range');
  assert.equal(await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', -1, 'STREAMS', 's', '>'), 'ERR timeout is negative');
  assert.equal(await t.error('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '-'), 'ERR Invalid stream ID specified as stream command argument');
  await t.db.close();
});

test('XGROUP subcommands: replies and errors', async () => {
  const t = await groupDb();
  assert.match(await t.error('XGROUP', 'CREATE', 's', 'g', '$'), /^ERR The XGROUP subcommand requires the key to exist/);
  assert.equal(await t.call('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'), 'OK');
  assert.equal(await t.call('TYPE', 's'), 'stream');
  assert.equal(await t.error('XGROUP', 'CREATE', 's', 'g', '$'), 'BUSYGROUP Consumer Group name already exists');
  assert.equal(await t.error('XGROUP', 'CREATE', 's', 'g2', '0', 'ENTRIESREAD', -2), 'ERR value for ENTRIESREAD must be positive or -1');
  assert.equal(await t.error('XGROUP', 'CREATE', 's', 'g2', '0', 'FOO'), "ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.");
  assert.equal(await t.error('XGROUP', 'setid', 'nokey', 'g', '0', 'x'), "ERR unknown subcommand or wrong number of arguments for 'setid'. Try XGROUP HELP.");
  assert.equal(await t.error('XGROUP', 'SETID', 's', 'nog', '0'), "NOGROUP No such consumer group 'nog' for key name 's'");
  assert.equal(await t.call('XGROUP', 'SETID', 's', 'g', '5', 'ENTRIESREAD', 3), 'OK');
  assert.deepEqual(await t.call('XINFO', 'GROUPS', 's'), [
    ['name', 'g', 'consumers', 0, 'pending', 0, 'last-delivered-id', '5-0', 'entries-read', 3n, 'lag', 0n],
  ]);
  assert.equal(await t.call('XGROUP', 'CREATECONSUMER', 's', 'g', 'c1'), 1);
  assert.equal(await t.call('XGROUP', 'CREATECONSUMER', 's', 'g', 'c1'), 0);
  assert.equal(await t.call('XGROUP', 'DELCONSUMER', 's', 'g', 'c1'), 0);
  assert.equal(await t.call('XGROUP', 'DELCONSUMER', 's', 'g', 'c1'), 0);
  assert.equal(await t.call('XGROUP', 'DESTROY', 's', 'g'), 1);
  assert.equal(await t.call('XGROUP', 'DESTROY', 's', 'g'), 0);
  assert.equal(await t.error('XGROUP', 'CREATE', 's'), "ERR wrong number of arguments for 'xgroup|create' command");
  assert.equal(await t.error('XGROUP', 'FOO'), "ERR unknown subcommand 'FOO'. Try XGROUP HELP.");
  const help = (await t.call('XGROUP', 'HELP')) as string[];
  assert.equal(help.length, 17);
  assert.equal(help[0], 'XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
  await t.call('SET', 'str', 'x');
  assert.equal(await t.error('XGROUP', 'CREATE', 'str', 'g', '0'), 'WRONGTYPE Operation against a key holding the wrong kind of value');
  await t.db.close();
});

test('XGROUP DELCONSUMER drops the consumer pending entries from the group PEL', async () => {
  const t = await streamWithGroup(3);
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'COUNT', 2, 'STREAMS', 's', '>');
  await t.call('XREADGROUP', 'GROUP', 'g', 'b', 'STREAMS', 's', '>');
  assert.equal(await t.call('XGROUP', 'DELCONSUMER', 's', 'g', 'a'), 2);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [1, '3-1', '3-1', [['b', '1']]]);
  await t.db.close();
});

test('XACK acknowledges all or nothing; missing key or group counts 0', async () => {
  const t = await streamWithGroup(3);
  await t.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>');
  assert.equal(await t.error('XACK', 's', 'g', '1-1', 'x'), 'ERR Invalid stream ID specified as stream command argument');
  assert.equal(await t.call('XACK', 's', 'g', '1-1', '1-1', '9-9'), 1);
  assert.equal(await t.call('XACK', 'nokey', 'g', 'x'), 0);
  assert.equal(await t.call('XACK', 's', 'nog', 'x'), 0);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [2, '2-1', '3-1', [['c', '2']]]);
  await t.db.close();
});

test('XPENDING extended: ranges, exclusive bounds, IDLE, consumer filter and errors', async () => {
  const t = await streamWithGroup(3);
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'COUNT', 2, 'STREAMS', 's', '>');
  t.clock.now += 500;
  await t.call('XREADGROUP', 'GROUP', 'g', 'b', 'STREAMS', 's', '>');
  t.clock.now += 10;
  assert.deepEqual(await t.call('XPENDING', 's', 'g', 'IDLE', 100, '-', '+', 10), [
    ['1-1', 'a', 510, 1],
    ['2-1', 'a', 510, 1],
  ]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '(1-1', '(3-1', 10), [['2-1', 'a', 510, 1]]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 10, 'b'), [['3-1', 'b', 10, 1]]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 10, 'nosuch'), []);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 1), [['1-1', 'a', 510, 1]]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', -1), []);
  assert.equal(await t.error('XPENDING', 's', 'g', '-', '+'), 'ERR syntax error');
  assert.equal(await t.error('XPENDING', 's', 'g', 'IDLE', 10, '-', '+'), 'ERR syntax error');
  assert.equal(await t.error('XPENDING', 's', 'g', '(18446744073709551615-18446744073709551615', '+', 1), 'ERR invalid start ID for the interval');
  assert.equal(await t.error('XPENDING', 's', 'g', '-', '(0-0', 1), 'ERR invalid end ID for the interval');
  assert.equal(await t.error('XPENDING', 'nokey', 'g', '-', '+', 'x'), 'ERR value is not an integer or out of range');
  assert.equal(await t.error('XPENDING', 'nokey', 'g'), "NOGROUP No such key 'nokey' or consumer group 'g'");
  await t.db.close();
});

test('XCLAIM: min idle, IDLE/TIME/RETRYCOUNT, FORCE, JUSTID, LASTID and deleted entries', async () => {
  const t = await streamWithGroup(4);
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'COUNT', 2, 'STREAMS', 's', '>');
  t.clock.now += 1000;
  // Too recent for a 5 s minimum; old enough for 1 s. 9-9 does not exist: skipped.
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'b', 5000, '1-1'), []);
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'b', 1000, '1-1', '9-9'), [['1-1', ['f1', 'v1']]]);
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'b', 0, '2-1', 'JUSTID', 'RETRYCOUNT', 7, 'IDLE', 300), ['2-1']);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 10), [
    ['1-1', 'b', 0, 2],
    ['2-1', 'b', 300, 7],
  ]);
  // Not pending: only FORCE creates the entry (count 1, +1 without JUSTID).
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'c', 0, '3-1'), []);
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'c', 0, '3-1', 'FORCE', 'TIME', T0), [['3-1', ['f3', 'v3']]]);
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'c', 0, '4-1', 'FORCE', 'JUSTID'), ['4-1']);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '3', '+', 10), [
    ['3-1', 'c', 1000, 2],
    ['4-1', 'c', 0, 1],
  ]);
  // LASTID only moves the group forward.
  await t.call('XCLAIM', 's', 'g', 'c', 0, '9-9', 'LASTID', '6-0');
  await t.call('XCLAIM', 's', 'g', 'c', 0, '9-9', 'LASTID', '5-0');
  const groups = (await t.call('XINFO', 'GROUPS', 's')) as unknown[][];
  assert.equal(groups[0]![7], '6-0');
  // A deleted entry is dropped from the PEL, not returned.
  await t.call('XDEL', 's', '2-1');
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'd', 0, '2-1', '3-1', 'JUSTID'), ['3-1']);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [3, '1-1', '4-1', [['b', '1'], ['c', '1'], ['d', '1']]]);
  assert.equal(await t.error('XCLAIM', 's', 'g', 'c', 'x', '1'), 'ERR Invalid min-idle-time argument for XCLAIM');
  assert.equal(await t.error('XCLAIM', 's', 'g', 'c', 0, 'x'), "ERR Unrecognized XCLAIM option 'x'");
  assert.equal(await t.error('XCLAIM', 's', 'g', 'c', 0, '1-1', 'IDLE'), "ERR Unrecognized XCLAIM option 'IDLE'");
  assert.equal(await t.error('XCLAIM', 's', 'g', 'c', 0, '1-1', 'TIME', 'x'), 'ERR Invalid TIME option argument for XCLAIM');
  assert.equal(await t.error('XCLAIM', 's', 'nog', 'c', 0, '1'), "NOGROUP No such key 's' or consumer group 'nog'");
  await t.db.close();
});

test('XCLAIM with nothing claimed does not create the consumer', async () => {
  const t = await streamWithGroup(1);
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'STREAMS', 's', '>');
  assert.deepEqual(await t.call('XCLAIM', 's', 'g', 'b', 1_000_000, '1-1'), []);
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'b', 1_000_000, '0'), ['0-0', [], []]);
  const consumers = (await t.call('XINFO', 'CONSUMERS', 's', 'g')) as unknown[][];
  assert.deepEqual(consumers.map((c) => c[1]), ['a']);
  await t.db.close();
});

test('XAUTOCLAIM: cursor, COUNT counting deleted ids, JUSTID and errors', async () => {
  const t = await streamWithGroup(5);
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'STREAMS', 's', '>');
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'b', 0, '0', 'COUNT', 2), [
    '3-1',
    [['1-1', ['f1', 'v1']], ['2-1', ['f2', 'v2']]],
    [],
  ]);
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'b', 0, '3-1', 'COUNT', 2, 'JUSTID'), ['5-1', ['3-1', '4-1'], []]);
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'b', 0, '(4-1', 'COUNT', 2, 'JUSTID'), ['0-0', ['5-1'], []]);
  await t.call('XDEL', 's', '1-1', '3-1');
  // The deleted 1-1 counts towards COUNT; the cursor is the next PEL id after 2-1.
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'c', 0, '0', 'COUNT', 2, 'JUSTID'), ['3-1', ['2-1'], ['1-1']]);
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'c', 0, '3-1', 'COUNT', 1, 'JUSTID'), ['4-1', [], ['3-1']]);
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'c', 0, '0'), ['0-0', [['2-1', ['f2', 'v2']], ['4-1', ['f4', 'v4']], ['5-1', ['f5', 'v5']]], []]);
  // JUSTID keeps the delivery count; claiming without it counts a delivery.
  const pending = (await t.call('XPENDING', 's', 'g', '-', '+', 10)) as unknown[][];
  assert.deepEqual(pending.map((p) => [p[0], p[1], p[3]]), [['2-1', 'c', 3], ['4-1', 'c', 2], ['5-1', 'c', 2]]);
  assert.equal(await t.error('XAUTOCLAIM', 's', 'g', 'c', 0, '0', 'COUNT', 0), 'ERR COUNT must be > 0');
  assert.equal(await t.error('XAUTOCLAIM', 's', 'g', 'c', 0, '0', 'COUNT', '576460752303423488'), 'ERR COUNT must be > 0');
  assert.equal(await t.error('XAUTOCLAIM', 's', 'g', 'c', 0, '0', 'FOO'), 'ERR syntax error');
  assert.equal(await t.error('XAUTOCLAIM', 'nokey', 'g', 'c', 'x', '0'), 'ERR Invalid min-idle-time argument for XAUTOCLAIM');
  assert.equal(await t.error('XAUTOCLAIM', 'nokey', 'g', 'c', 0, '0'), "NOGROUP No such key 'nokey' or consumer group 'g'");
  await t.db.close();
});

test('XAUTOCLAIM examines at most COUNT*10 entries per call', async () => {
  const t = await streamWithGroup(25);
  await t.call('XREADGROUP', 'GROUP', 'g', 'a', 'STREAMS', 's', '>');
  t.clock.now += 1000;
  // Refresh 1-1 .. 24-1: only 25-1 stays idle for 1000 ms.
  const fresh = Array.from({ length: 24 }, (_, i) => `${i + 1}-1`);
  assert.equal(((await t.call('XCLAIM', 's', 'g', 'a', 0, ...fresh, 'JUSTID')) as string[]).length, 24);
  // The scan gives up after COUNT*10 = 10 entries, before reaching 25-1.
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'b', 500, '0', 'COUNT', 1, 'JUSTID'), ['11-1', [], []]);
  assert.deepEqual(await t.call('XAUTOCLAIM', 's', 'g', 'b', 500, '21-1', 'COUNT', 1, 'JUSTID'), ['0-0', ['25-1'], []]);
  await t.db.close();
});

test('WRONGTYPE from every group command', async () => {
  const t = await groupDb();
  await t.call('SET', 'str', 'x');
  const wrong = 'WRONGTYPE Operation against a key holding the wrong kind of value';
  for (const argv of [
    ['XACK', 'str', 'g', '1'],
    ['XPENDING', 'str', 'g'],
    ['XCLAIM', 'str', 'g', 'c', '0', '1'],
    ['XAUTOCLAIM', 'str', 'g', 'c', '0', '0'],
    ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'str', '>'],
    ['XGROUP', 'CREATECONSUMER', 'str', 'g', 'c'],
    ['XINFO', 'STREAM', 'str'],
    ['XINFO', 'GROUPS', 'str'],
    ['XINFO', 'CONSUMERS', 'str', 'g'],
  ]) {
    assert.equal(await t.error(...argv), wrong, argv.join(' '));
  }
  await t.db.close();
});
