// rewriteStream (src/persist/rewrite-stream.ts): its commands, replayed into a fresh database,
// must rebuild the stream exactly as XINFO STREAM FULL shows it (consumers' seen/active times
// excepted: Redis's rewrite does not keep them either).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../../src/client/embedded.js';
import { Stream } from '../../../src/engine/stream.js';
import { rewriteStream } from '../../../src/persist/rewrite-stream.js';
import { groupDb, type GroupTestDb, seedStream } from './groups-helpers.js';
import { instanceBehind } from '../../../src/commands/core/instance-handles.js';

const CONSUMER_TIMES = new Set(['seen-time', 'active-time']);

function maskConsumerTimes(info: unknown): unknown {
  if (!Array.isArray(info)) return info;
  const out: unknown[] = [];
  for (let i = 0; i < info.length; i++) {
    out.push(maskConsumerTimes(info[i]));
    if (typeof info[i] === 'string' && CONSUMER_TIMES.has(info[i] as string) && i + 1 < info.length) {
      out.push('<time>');
      i++;
    }
  }
  return out;
}

async function replayed(t: GroupTestDb, key: string): Promise<{ commands: string[]; info: unknown }> {
  const value = instanceBehind(t.db).keyspace.db(0).get(key);
  assert.ok(value instanceof Stream);
  const commands = rewriteStream(Buffer.from(key), value);
  const copy = await open({ now: () => t.clock.now });
  for (const argv of commands) await copy.call(...argv);
  const info = await copy.call('XINFO', 'STREAM', key, 'FULL', 'COUNT', 0);
  await copy.close();
  return { commands: commands.map((c) => c.map(String).join(' ')), info };
}

test('a stream with groups, pending entries, idle consumers and deletions survives a rewrite', async () => {
  const t = await groupDb();
  await seedStream(t, 's', 6);
  await t.call('XDEL', 's', '6-1');
  await t.call('XGROUP', 'CREATE', 's', 'g', '0');
  await t.call('XGROUP', 'CREATE', 's', 'b-group', '$', 'ENTRIESREAD', 6);
  await t.call('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', 2, 'STREAMS', 's', '>');
  t.clock.now += 100;
  await t.call('XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', 's', '>');
  await t.call('XCLAIM', 's', 'g', 'carol', 0, '3-1', 'RETRYCOUNT', 5, 'IDLE', 40);
  await t.call('XACK', 's', 'g', '4-1');
  await t.call('XGROUP', 'CREATECONSUMER', 's', 'g', 'dave');
  await t.call('XGROUP', 'CREATECONSUMER', 's', 'b-group', 'eve');
  const expected = await t.call('XINFO', 'STREAM', 's', 'FULL', 'COUNT', 0);

  const { commands, info } = await replayed(t, 's');
  assert.deepEqual(maskConsumerTimes(info), maskConsumerTimes(expected));
  assert.deepEqual(commands.slice(5), [
    'XSETID s 6-1 ENTRIESADDED 6 MAXDELETEDID 6-1',
    'XGROUP CREATE s b-group 6-1 ENTRIESREAD 6',
    'XGROUP CREATECONSUMER s b-group eve',
    'XGROUP CREATE s g 5-1 ENTRIESREAD -1',
    `XCLAIM s g alice 0 1-1 TIME ${t.clock.now - 100} RETRYCOUNT 1 JUSTID FORCE`,
    `XCLAIM s g alice 0 2-1 TIME ${t.clock.now - 100} RETRYCOUNT 1 JUSTID FORCE`,
    `XCLAIM s g bob 0 5-1 TIME ${t.clock.now} RETRYCOUNT 1 JUSTID FORCE`,
    `XCLAIM s g carol 0 3-1 TIME ${t.clock.now - 40} RETRYCOUNT 5 JUSTID FORCE`,
    'XGROUP CREATECONSUMER s g dave',
  ]);
  await t.db.close();
});

test('an empty stream with a group is recreated empty, keeping its ids and counters', async () => {
  const t = await groupDb();
  await seedStream(t, 'e', 3);
  await t.call('XDEL', 'e', '1-1', '2-1', '3-1');
  await t.call('XGROUP', 'CREATE', 'e', 'g', '$');
  const expected = await t.call('XINFO', 'STREAM', 'e', 'FULL', 'COUNT', 0);
  const { commands, info } = await replayed(t, 'e');
  assert.equal(commands[0], 'XADD e MAXLEN 0 0-1 x y');
  assert.deepEqual(info, expected);
  await t.db.close();
});
