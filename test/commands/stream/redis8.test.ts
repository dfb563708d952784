// Redis 8.2–8.8 stream commands through the embedded client: the documented examples with
// their documented replies (redis.io command pages; no Redis 8 server exists here), plus the
// interactions with consumer groups they are about.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupDb, T0 } from './groups-helpers.js';

// --- XDELEX --------------------------------------------------------------------------------------

test('XDELEX: documented example, ids not in the stream give -1 and change nothing', async () => {
  const t = await groupDb();
  await t.call('XADD', 'mystream', '1784722083515-0', 'field1', 'value1');
  await t.call('XADD', 'mystream', '1784722083516-0', 'field2', 'value2');
  await t.call('XADD', 'mystream', '1784722083517-0', 'field3', 'value3');
  const before = await t.call('XRANGE', 'mystream', '-', '+');
  assert.deepEqual(await t.call('XDELEX', 'mystream', 'KEEPREF', 'IDS', 2, '1526919030474-55', '1526919030474-56'), [-1, -1]);
  assert.deepEqual(await t.call('XRANGE', 'mystream', '-', '+'), before);
  assert.deepEqual(await t.call('XDELEX', 'nokey', 'IDS', 2, '1-0', '2-0'), [-1, -1]);
});

test('XDELEX ACKED keeps a pending entry (2) until it is acknowledged, then deletes it (1)', async () => {
  const t = await groupDb();
  await t.call('XADD', 's4', '1-0', 'a', '1');
  await t.call('XGROUP', 'CREATE', 's4', 'grp', '0');
  await t.call('XREADGROUP', 'GROUP', 'grp', 'cons1', 'COUNT', 10, 'STREAMS', 's4', '>');
  assert.deepEqual(await t.call('XDELEX', 's4', 'ACKED', 'IDS', 1, '1-0'), [2]);
  assert.equal(await t.call('XLEN', 's4'), 1);
  assert.equal(await t.call('XACK', 's4', 'grp', '1-0'), 1);
  assert.deepEqual(await t.call('XDELEX', 's4', 'ACKED', 'IDS', 1, '1-0'), [1]);
  assert.equal(await t.call('XLEN', 's4'), 0);
});

test('XDELEX ACKED keeps an entry a group has not read yet; without groups it deletes', async () => {
  const t = await groupDb();
  await t.call('XADD', 's', '1-0', 'a', '1');
  await t.call('XADD', 's', '2-0', 'a', '2');
  await t.call('XADD', 'free', '1-0', 'a', '1');
  await t.call('XGROUP', 'CREATE', 's', 'late', '0');
  assert.deepEqual(await t.call('XDELEX', 's', 'ACKED', 'IDS', 2, '1-0', '9-0'), [2, -1]);
  assert.deepEqual(await t.call('XDELEX', 'free', 'ACKED', 'IDS', 1, '1-0'), [1]);
});

test('XDELEX KEEPREF leaves the PEL reference dangling; DELREF removes it everywhere', async () => {
  const t = await groupDb();
  for (const id of ['1-0', '2-0']) await t.call('XADD', 's', id, 'f', 'v');
  await t.call('XGROUP', 'CREATE', 's', 'g1', '0');
  await t.call('XGROUP', 'CREATE', 's', 'g2', '0');
  await t.call('XREADGROUP', 'GROUP', 'g1', 'c', 'STREAMS', 's', '>');
  await t.call('XREADGROUP', 'GROUP', 'g2', 'c', 'STREAMS', 's', '>');
  assert.deepEqual(await t.call('XDELEX', 's', 'IDS', 1, '1-0'), [1]);
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g1', 'c', 'STREAMS', 's', '0'), [['s', [['1-0', null], ['2-0', ['f', 'v']]]]]);
  assert.deepEqual(await t.call('XDELEX', 's', 'DELREF', 'IDS', 1, '2-0'), [1]);
  assert.equal(await t.call('XLEN', 's'), 0);
  assert.deepEqual(await t.call('XPENDING', 's', 'g2', '-', '+', 10), [['1-0', 'c', 0, 1]]);
  // DELREF also clears references whose entry is already gone (the reply is still -1).
  assert.deepEqual(await t.call('XDELEX', 's', 'DELREF', 'IDS', 1, '1-0'), [-1]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g1'), [0, null, null, null]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g2'), [0, null, null, null]);
});

test('XDELEX argument errors', async () => {
  const t = await groupDb();
  await t.call('XADD', 's', '1-0', 'f', 'v');
  assert.equal(await t.error('XDELEX', 's', 'IDS', 2, '1-0'), 'ERR The `numids` parameter must match the number of arguments');
  assert.equal(await t.error('XDELEX', 's', 'IDS', 0, '1-0'), 'ERR Number of IDs must be a positive integer');
  assert.equal(await t.error('XDELEX', 's', 'IDS', 1, 'bad'), 'ERR Invalid stream ID specified as stream command argument');
  assert.equal(await t.error('XDELEX', 's', 'KEEPREF', 'ACKED', 'IDS', 1, '1-0'), 'ERR syntax error');
  assert.equal(await t.error('XDELEX', 's', 'IDS', 1, '1-0', 'EXTRA'), 'ERR syntax error');
  // The IDS block may come before the policy.
  assert.deepEqual(await t.call('XDELEX', 's', 'IDS', 1, '1-0', 'ACKED'), [1]);
});

// --- XACKDEL -------------------------------------------------------------------------------------

test('XACKDEL: documented example acknowledges and deletes both entries', async () => {
  const t = await groupDb();
  await t.call('XADD', 'mystream', '1755870377536-0', 'field1', 'value1');
  await t.call('XADD', 'mystream', '1755870387045-0', 'field2', 'value2');
  await t.call('XGROUP', 'CREATE', 'mystream', 'mygroup', '0');
  await t.call('XREADGROUP', 'GROUP', 'mygroup', 'consumer1', 'COUNT', 2, 'STREAMS', 'mystream', '>');
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup'), [2, '1755870377536-0', '1755870387045-0', [['consumer1', '2']]]);
  assert.deepEqual(
    await t.call('XACKDEL', 'mystream', 'mygroup', 'KEEPREF', 'IDS', 2, '1755870377536-0', '1755870387045-0'),
    [1, 1],
  );
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup'), [0, null, null, null]);
  assert.deepEqual(await t.call('XRANGE', 'mystream', '-', '+'), []);
});

test('XACKDEL ACKED: acknowledged in one group, kept (2) while another group has not read it', async () => {
  const t = await groupDb();
  await t.call('XADD', 's5', '1-0', 'a', '1');
  await t.call('XGROUP', 'CREATE', 's5', 'g1', '0');
  await t.call('XGROUP', 'CREATE', 's5', 'g2', '0');
  await t.call('XREADGROUP', 'GROUP', 'g1', 'cons1', 'COUNT', 10, 'STREAMS', 's5', '>');
  assert.deepEqual(await t.call('XACKDEL', 's5', 'g1', 'ACKED', 'IDS', 1, '1-0'), [2]);
  assert.equal(await t.call('XLEN', 's5'), 1);
  assert.deepEqual(await t.call('XPENDING', 's5', 'g1'), [0, null, null, null]);
  await t.call('XREADGROUP', 'GROUP', 'g2', 'cons2', 'STREAMS', 's5', '>');
  assert.deepEqual(await t.call('XACKDEL', 's5', 'g2', 'ACKED', 'IDS', 1, '1-0'), [1]);
  assert.equal(await t.call('XLEN', 's5'), 0);
});

test('XACKDEL DELREF clears the other groups too; missing key gives -1s; missing group NOGROUP', async () => {
  const t = await groupDb();
  await t.call('XADD', 's', '1-0', 'a', '1');
  await t.call('XGROUP', 'CREATE', 's', 'g1', '0');
  await t.call('XGROUP', 'CREATE', 's', 'g2', '0');
  await t.call('XREADGROUP', 'GROUP', 'g1', 'c', 'STREAMS', 's', '>');
  await t.call('XREADGROUP', 'GROUP', 'g2', 'c', 'STREAMS', 's', '>');
  assert.deepEqual(await t.call('XACKDEL', 's', 'g1', 'DELREF', 'IDS', 2, '1-0', '5-0'), [1, -1]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g2'), [0, null, null, null]);
  assert.deepEqual(await t.call('XACKDEL', 'nokey', 'g', 'IDS', 1, '1-0'), [-1]);
  assert.equal(await t.error('XACKDEL', 's', 'nogroup', 'IDS', 1, '1-0'), "NOGROUP No such key 's' or consumer group 'nogroup'");
});

test('DELREF on an entry already trimmed drops the dangling references, and the command is logged (-1 all the same)', async () => {
  // XTRIM KEEPREF leaves g1's reference to 1-0 dangling; XACKDEL (through another group) and
  // XDELEX with DELREF remove it. The reply is -1 (no such entry), but the PELs changed, so
  // the command must reach the log: a replay without it would bring the reference back.
  for (const viaAckdel of [true, false]) {
    const t = await groupDb();
    await t.call('XADD', 's', '1-0', 'a', '1');
    await t.call('XADD', 's', '2-0', 'a', '2');
    await t.call('XGROUP', 'CREATE', 's', 'g1', '0');
    await t.call('XGROUP', 'CREATE', 's', 'g2', '0');
    await t.call('XREADGROUP', 'GROUP', 'g1', 'c', 'COUNT', 1, 'STREAMS', 's', '>');
    await t.call('XTRIM', 's', 'MAXLEN', 1, 'KEEPREF');
    assert.deepEqual(await t.call('XPENDING', 's', 'g1', '-', '+', 10), [['1-0', 'c', 0, 1]]);
    t.log.length = 0;
    const reply = viaAckdel
      ? await t.call('XACKDEL', 's', 'g2', 'DELREF', 'IDS', 1, '1-0')
      : await t.call('XDELEX', 's', 'DELREF', 'IDS', 1, '1-0');
    assert.deepEqual(reply, [-1]);
    assert.deepEqual(await t.call('XPENDING', 's', 'g1'), [0, null, null, null]);
    assert.deepEqual(t.log, [viaAckdel ? 'XACKDEL s g2 DELREF IDS 1 1-0' : 'XDELEX s DELREF IDS 1 1-0']);
  }
});

// --- XADD / XTRIM with KEEPREF | DELREF | ACKED ---------------------------------------------------

async function fiveWithReaders() {
  const t = await groupDb();
  for (let i = 1; i <= 5; i++) await t.call('XADD', 's', `${i}-0`, 'n', String(i));
  await t.call('XGROUP', 'CREATE', 's', 'g', '0');
  // g read 1..3, acknowledged 1 and 3: 2 is pending, 4 and 5 not delivered yet.
  await t.call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 3, 'STREAMS', 's', '>');
  await t.call('XACK', 's', 'g', '1-0', '3-0');
  return t;
}

test('XTRIM ACKED removes only entries every group has delivered and acknowledged', async () => {
  const t = await fiveWithReaders();
  assert.equal(await t.call('XTRIM', 's', 'MAXLEN', 0, 'ACKED'), 2);
  assert.deepEqual((await t.call('XRANGE', 's', '-', '+') as Array<[string]>).map((e) => e[0]), ['2-0', '4-0', '5-0']);
  const t2 = await fiveWithReaders();
  assert.equal(await t2.call('XTRIM', 's', 'ACKED', 'MINID', '3-0'), 1);
  assert.deepEqual((await t2.call('XRANGE', 's', '-', '+') as Array<[string]>).map((e) => e[0]), ['2-0', '3-0', '4-0', '5-0']);
});

test('XTRIM DELREF drops the trimmed entries from the PEL; KEEPREF (default) keeps them', async () => {
  const t = await fiveWithReaders();
  assert.equal(await t.call('XTRIM', 's', 'MAXLEN', 3), 2);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [1, '2-0', '2-0', [['c', '1']]]);
  const t2 = await fiveWithReaders();
  assert.equal(await t2.call('XTRIM', 's', 'MAXLEN', 3, 'DELREF'), 2);
  assert.deepEqual(await t2.call('XPENDING', 's', 'g'), [0, null, null, null]);
});

test('XADD with ACKED trimming and with DELREF', async () => {
  const t = await fiveWithReaders();
  assert.equal(await t.call('XADD', 's', 'ACKED', 'MAXLEN', 1, '6-0', 'n', '6'), '6-0');
  assert.deepEqual((await t.call('XRANGE', 's', '-', '+') as Array<[string]>).map((e) => e[0]), ['2-0', '4-0', '5-0', '6-0']);
  assert.equal(await t.call('XADD', 's', 'DELREF', 'MAXLEN', 1, '7-0', 'n', '7'), '7-0');
  assert.equal(await t.call('XLEN', 's'), 1);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [0, null, null, null]);
});

// --- XREADGROUP CLAIM ----------------------------------------------------------------------------

test('XREADGROUP CLAIM: idle pending entries first with idle time and deliveries, then new ones', async () => {
  const t = await groupDb();
  await t.call('XADD', 's', '1-0', 'f', 'a');
  await t.call('XADD', 's', '2-0', 'f', 'b');
  await t.call('XGROUP', 'CREATE', 's', 'g', '0');
  await t.call('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', 1, 'STREAMS', 's', '>');
  t.clock.now += 1000;
  await t.call('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', 1, 'STREAMS', 's', '>');
  await t.call('XADD', 's', '3-0', 'f', 'c');
  t.clock.now += 5000;
  // 1-0 idle 6000, 2-0 idle 5000: both claimable at 5000, longest idle first.
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', 5000, 'STREAMS', 's', '>'), [
    ['s', [['1-0', ['f', 'a'], 6000, 1], ['2-0', ['f', 'b'], 5000, 1], ['3-0', ['f', 'c']]]],
  ]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 10), [
    ['1-0', 'bob', 0, 2],
    ['2-0', 'bob', 0, 2],
    ['3-0', 'bob', 0, 1],
  ]);
  // Propagated as XCLAIMs with explicit times and counts, so replay does not need the clock.
  assert.ok(t.log.includes(`XCLAIM s g bob 0 1-0 TIME ${t.clock.now} RETRYCOUNT 2 FORCE JUSTID LASTID 2-0`));
});

test('XREADGROUP CLAIM with COUNT, with nothing idle enough, and with a history id', async () => {
  const t = await groupDb();
  for (const id of ['1-0', '2-0']) await t.call('XADD', 's', id, 'f', id);
  await t.call('XGROUP', 'CREATE', 's', 'g', '0');
  await t.call('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>');
  t.clock.now += 100;
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', 1000, 'STREAMS', 's', '>'), null);
  await t.call('XADD', 's', '3-0', 'f', '3-0');
  t.clock.now += 1000;
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', 1, 'CLAIM', 1000, 'STREAMS', 's', '>'), [
    ['s', [['1-0', ['f', '1-0'], 1100, 1]]],
  ]);
  // With an explicit id CLAIM is ignored: bob's own history.
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', 0, 'STREAMS', 's', '0'), [['s', [['1-0', ['f', '1-0']]]]]);
  assert.equal(await t.error('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', -1, 'STREAMS', 's', '>'), 'ERR Invalid min-idle-time argument for XREADGROUP');
});

test('XREADGROUP CLAIM drops pending entries whose stream entry was deleted', async () => {
  const t = await groupDb();
  for (const id of ['1-0', '2-0']) await t.call('XADD', 's', id, 'f', id);
  await t.call('XGROUP', 'CREATE', 's', 'g', '0');
  await t.call('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>');
  await t.call('XDEL', 's', '1-0');
  t.clock.now += 10;
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', 5, 'STREAMS', 's', '>'), [
    ['s', [['2-0', ['f', '2-0'], 10, 1]]],
  ]);
  assert.deepEqual(await t.call('XPENDING', 's', 'g'), [1, '2-0', '2-0', [['bob', '1']]]);
});

// --- XNACK ---------------------------------------------------------------------------------------

async function twoDelivered() {
  const t = await groupDb();
  await t.call('XADD', 'mystream', '1526569498055-0', 'field', 'value1');
  await t.call('XADD', 'mystream', '1526569498056-0', 'field', 'value2');
  await t.call('XGROUP', 'CREATE', 'mystream', 'mygroup', '0');
  await t.call('XREADGROUP', 'GROUP', 'mygroup', 'consumer1', 'STREAMS', 'mystream', '>');
  return t;
}

test('XNACK FAIL: documented example, released entries show consumer "" and idle -1', async () => {
  const t = await twoDelivered();
  assert.equal(await t.call('XNACK', 'mystream', 'mygroup', 'FAIL', 'IDS', 2, '1526569498055-0', '1526569498056-0'), 2);
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup', '-', '+', 10), [
    ['1526569498055-0', '', -1, 1],
    ['1526569498056-0', '', -1, 1],
  ]);
  // They are no longer consumer1's: its history is empty, and it is no owner in the summary.
  assert.deepEqual(await t.call('XREADGROUP', 'GROUP', 'mygroup', 'consumer1', 'STREAMS', 'mystream', '0'), [['mystream', []]]);
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup'), [2, '1526569498055-0', '1526569498056-0', []]);
});

test('XNACK modes: SILENT decrements, FATAL maximises, RETRYCOUNT overrides; non-pending ids do not count', async () => {
  const t = await twoDelivered();
  assert.equal(await t.call('XNACK', 'mystream', 'mygroup', 'SILENT', 'IDS', 1, '1526569498055-0'), 1);
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup', '-', '+', 1), [['1526569498055-0', '', -1, 0]]);
  assert.equal(await t.call('XNACK', 'mystream', 'mygroup', 'FATAL', 'IDS', 1, '1526569498056-0'), 1);
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup', '1526569498056-0', '+', 1), [
    ['1526569498056-0', '', -1, Number.MAX_SAFE_INTEGER],
  ]);
  assert.equal(await t.call('XNACK', 'mystream', 'mygroup', 'FAIL', 'IDS', 1, '1526569498055-0', 'RETRYCOUNT', 5), 1);
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup', '-', '+', 1), [['1526569498055-0', '', -1, 5]]);
  assert.equal(await t.call('XNACK', 'mystream', 'mygroup', 'FAIL', 'IDS', 1, '1-0'), 0);
  assert.equal(await t.error('XNACK', 'mystream', 'nogroup', 'FAIL', 'IDS', 1, '1-0'), "NOGROUP No such key 'mystream' or consumer group 'nogroup'");
  assert.equal(await t.error('XNACK', 'mystream', 'mygroup', 'IDS', 1, '1-0', 'FORCE'), 'ERR syntax error');
});

test('XNACKed entries are claimed at once by XREADGROUP CLAIM (first), XAUTOCLAIM and XCLAIM', async () => {
  const t = await twoDelivered();
  await t.call('XADD', 'mystream', '1526569498057-0', 'field', 'value3');
  await t.call('XNACK', 'mystream', 'mygroup', 'SILENT', 'IDS', 1, '1526569498056-0');
  // Nothing else is idle for an hour, but the released entry is claimable immediately.
  const reply = (await t.call('XREADGROUP', 'GROUP', 'mygroup', 'consumer2', 'CLAIM', 3_600_000, 'STREAMS', 'mystream', '>')) as Array<[string, unknown[][]]>;
  const entries = reply[0]![1];
  assert.deepEqual(entries.map((e) => e[0]), ['1526569498056-0', '1526569498057-0']);
  assert.equal(entries[0]![2], T0); // idle since delivery time 0
  assert.equal(entries[0]![3], 0); // SILENT undid the only delivery
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup', '1526569498056-0', '1526569498056-0', 1), [
    ['1526569498056-0', 'consumer2', 0, 1],
  ]);
  await t.call('XNACK', 'mystream', 'mygroup', 'FAIL', 'IDS', 1, '1526569498055-0');
  assert.deepEqual(await t.call('XAUTOCLAIM', 'mystream', 'mygroup', 'consumer3', 3_600_000, '0', 'JUSTID'), ['0-0', ['1526569498055-0'], []]);
});

test('XNACK FORCE creates an unowned pending entry for an id that exists in the stream', async () => {
  const t = await twoDelivered();
  await t.call('XADD', 'mystream', '1526569498057-0', 'field', 'value3');
  assert.equal(await t.call('XNACK', 'mystream', 'mygroup', 'FAIL', 'IDS', 2, '1526569498057-0', '9-9', 'FORCE'), 1);
  assert.deepEqual(await t.call('XPENDING', 'mystream', 'mygroup', '1526569498057-0', '+', 10), [['1526569498057-0', '', -1, 0]]);
});

// --- IDMP ----------------------------------------------------------------------------------------

test('XADD IDMP: a resend with the same producer and idempotent id returns the original id', async () => {
  const t = await groupDb();
  const id = await t.call('XADD', 's', 'IDMP', 'p1', 'order-1', '*', 'f', 'v');
  t.clock.now += 5;
  assert.equal(await t.call('XADD', 's', 'IDMP', 'p1', 'order-1', '*', 'f', 'other'), id);
  assert.equal(await t.call('XLEN', 's'), 1);
  // Another producer, or another iid, is a new entry.
  assert.notEqual(await t.call('XADD', 's', 'IDMP', 'p2', 'order-1', '*', 'f', 'v'), id);
  assert.notEqual(await t.call('XADD', 's', 'IDMP', 'p1', 'order-2', '*', 'f', 'v'), id);
  assert.equal(await t.call('XLEN', 's'), 3);
  // The duplicate logs nothing; the others log the plain XADD and XIDMPRECORD.
  assert.deepEqual(t.log.slice(0, 2), [`XADD s ${id} f v`, `XIDMPRECORD s p1 order-1 ${id}`]);
  assert.equal(t.log.length, 6);
});

test('XADD IDMPAUTO derives the iid from the content, whatever the field order', async () => {
  const t = await groupDb();
  const id = await t.call('XADD', 's', 'IDMPAUTO', 'p', '*', 'a', '1', 'b', '2');
  assert.equal(await t.call('XADD', 's', 'IDMPAUTO', 'p', '*', 'b', '2', 'a', '1'), id);
  assert.notEqual(await t.call('XADD', 's', 'IDMPAUTO', 'p', '*', 'a', '1', 'b', '3'), id);
  assert.equal(await t.call('XLEN', 's'), 2);
});

test('XADD IDMP argument errors (Redis 8.6\'s texts)', async () => {
  const t = await groupDb();
  assert.equal(await t.error('XADD', 's', 'IDMP', 'p', 'i', '1-1', 'f', 'v'), 'ERR IDMP/IDMPAUTO can be used only with auto-generated IDs');
  assert.equal(await t.error('XADD', 's', 'IDMPAUTO', 'p', '1-1', 'f', 'v'), 'ERR IDMP/IDMPAUTO can be used only with auto-generated IDs');
  // IDMP takes two arguments: here "*" is the iid and "f" the (invalid) id.
  assert.equal(await t.error('XADD', 's', 'IDMP', 'p', '*', 'f', 'v'), 'ERR Invalid stream ID specified as stream command argument');
  assert.equal(await t.error('XADD', 's', 'IDMP', '', 'i', '*', 'f', 'v'), 'ERR IDMP requires a non-empty producer ID');
  assert.equal(await t.error('XADD', 's', 'IDMP', 'p', '', '*', 'f', 'v'), 'ERR IDMP requires a non-empty idempotent ID');
  assert.equal(await t.error('XADD', 's', 'IDMPAUTO', '', '*', 'f', 'v'), 'ERR IDMPAUTO requires a non-empty producer ID');
  for (const twice of [['IDMP', 'p', 'i', 'IDMPAUTO', 'p'], ['IDMPAUTO', 'p', 'IDMP', 'q', 'i'], ['IDMPAUTO', 'p', 'IDMPAUTO', 'q'], ['IDMP', 'p', 'i', 'IDMP', 'q', 'j']]) {
    assert.equal(await t.error('XADD', 's', ...twice, '*', 'f', 'v'), 'ERR IDMP/IDMPAUTO specified multiple times');
  }
  assert.equal(await t.call('EXISTS', 's'), 0);
});

test('XCFGSET and the XINFO STREAM IDMP fields; XCFGSET clears the producers\' maps', async () => {
  const t = await groupDb();
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION', 10), 'ERR no such key');
  await t.call('XADD', 's', '1-0', 'f', 'v');
  let info = (await t.call('XINFO', 'STREAM', 's')) as unknown[];
  assert.equal(info.includes('idmp-duration'), false); // a Redis 7 stream's reply is unchanged
  assert.equal(await t.error('XCFGSET', 's'), 'ERR At least one parameter must be specified');
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION', 0), 'ERR IDMP-DURATION must be between 1 and 86400 seconds');
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION', -100), 'ERR IDMP-DURATION must be between 1 and 86400 seconds');
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION', 86401), 'ERR IDMP-DURATION must be between 1 and 86400 seconds');
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-MAXSIZE', 0), 'ERR IDMP-MAXSIZE must be between 1 and 10000 entries');
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-MAXSIZE', 10001), 'ERR IDMP-MAXSIZE must be between 1 and 10000 entries');
  for (const bad of ['A', '*', '-', '+', '120-5', '3.14', '000000000', 'IDMP-DURATION']) {
    assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION', bad), 'ERR value is not an integer or out of range', bad);
    assert.equal(await t.error('XCFGSET', 's', 'IDMP-MAXSIZE', bad), 'ERR value is not an integer or out of range', bad);
  }
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION', 'INVALID', 'IDMP-MAXSIZE'), 'ERR value is not an integer or out of range');
  assert.equal(await t.error('XCFGSET', 's', 'IDMP-DURATION'), 'ERR syntax error');
  assert.equal(await t.error('XCFGSET', 's', 'INVALID'), 'ERR syntax error');
  assert.equal(await t.call('XCFGSET', 's', 'IDMP-DURATION', 60, 'IDMP-MAXSIZE', 2), 'OK');
  const first = await t.call('XADD', 's', 'IDMP', 'p', 'a', '*', 'f', 'v');
  await t.call('XADD', 's', 'IDMP', 'p', 'a', '*', 'f', 'v');
  await t.call('XADD', 's', 'IDMP', 'q', 'a', '*', 'f', 'v');
  info = (await t.call('XINFO', 'STREAM', 's')) as unknown[];
  const field = (name: string) => info[info.indexOf(name) + 1];
  assert.deepEqual(
    ['idmp-duration', 'idmp-maxsize', 'pids-tracked', 'iids-tracked', 'iids-added', 'iids-duplicates'].map(field),
    [60, 2, 2, 2, 2, 1],
  );
  // The same values again keep the history (Redis 8.6), counters included.
  assert.equal(await t.call('XCFGSET', 's', 'IDMP-DURATION', 60, 'IDMP-MAXSIZE', 2), 'OK');
  assert.equal(await t.call('XCFGSET', 's', 'IDMP-MAXSIZE', 2), 'OK');
  assert.equal(await t.call('XADD', 's', 'IDMP', 'p', 'a', '*', 'f', 'v'), first);
  info = (await t.call('XINFO', 'STREAM', 's')) as unknown[];
  assert.deepEqual(['iids-tracked', 'iids-added', 'iids-duplicates'].map(field), [2, 2, 2]);
  // A value that changes clears it.
  assert.equal(await t.call('XCFGSET', 's', 'IDMP-MAXSIZE', 3), 'OK');
  assert.notEqual(await t.call('XADD', 's', 'IDMP', 'p', 'a', '*', 'f', 'v'), first);
});

test('XCFGSET with unchanged values on a stream that had no IDMP state yet: defaults, nothing to clear', async () => {
  const t = await groupDb();
  await t.call('XADD', 's', '1-0', 'f', 'v');
  assert.equal(await t.call('XCFGSET', 's', 'IDMP-DURATION', 100), 'OK');
  const info = (await t.call('XINFO', 'STREAM', 's')) as unknown[];
  assert.equal(info[info.indexOf('idmp-duration') + 1], 100);
  assert.equal(info[info.indexOf('idmp-maxsize') + 1], 100);
});

test('IDMP forgets iids beyond IDMP-MAXSIZE (oldest first) and after IDMP-DURATION', async () => {
  const t = await groupDb();
  await t.call('XADD', 's', '1-0', 'f', 'v');
  await t.call('XCFGSET', 's', 'IDMP-MAXSIZE', 2, 'IDMP-DURATION', 1);
  const a = await t.call('XADD', 's', 'IDMP', 'p', 'a', '*', 'f', 'v');
  t.clock.now += 1;
  const b = await t.call('XADD', 's', 'IDMP', 'p', 'b', '*', 'f', 'v');
  await t.call('XADD', 's', 'IDMP', 'p', 'c', '*', 'f', 'v');
  assert.equal(await t.call('XADD', 's', 'IDMP', 'p', 'b', '*', 'f', 'v'), b);
  assert.notEqual(await t.call('XADD', 's', 'IDMP', 'p', 'a', '*', 'f', 'v'), a); // evicted
  t.clock.now += 1000; // b was recorded 1000 ms ago: expired
  assert.notEqual(await t.call('XADD', 's', 'IDMP', 'p', 'b', '*', 'f', 'v'), b);
});

test('XIDMPRECORD records a pid/iid for an existing entry; documented error cases', async () => {
  const t = await groupDb();
  assert.equal(await t.error('XIDMPRECORD', 's', 'p', 'i', '1-0'), 'ERR no such key');
  await t.call('XADD', 's', '1-0', 'f', 'v');
  await t.call('SET', 'str', 'x');
  assert.match(await t.error('XIDMPRECORD', 'str', 'p', 'i', '1-0'), /^WRONGTYPE/);
  assert.equal(await t.error('XIDMPRECORD', 's', 'p', 'i', '2-0'), 'ERR the stream ID does not exist');
  assert.equal(await t.error('XIDMPRECORD', 's', '', 'i', '1-0'), 'ERR pid and iid must not be empty');
  assert.equal(await t.call('XIDMPRECORD', 's', 'p', 'i', '1-0'), 'OK');
  assert.equal(await t.call('XIDMPRECORD', 's', 'p', 'i', '1-0'), 'OK');
  await t.call('XADD', 's', '2-0', 'f', 'v');
  assert.equal(await t.error('XIDMPRECORD', 's', 'p', 'i', '2-0'), 'ERR the pid/iid pair already maps to a different stream ID');
  assert.equal(await t.call('XADD', 's', 'IDMP', 'p', 'i', '*', 'f', 'v'), '1-0');
});
