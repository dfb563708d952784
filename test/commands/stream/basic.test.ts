// XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XREAD, XSETID through the embedded client.
// Every expected reply and error text here was checked against redis-server 7.0.15.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type EmbeddedDatabase, open, type Value } from '../../../src/client/embedded.js';
import type { Propagated } from '../../../src/commands/core/effects.js';
import { recordingPersistence } from '../../support/recording-persistence.js';
import { instanceBehind } from '../../../src/commands/core/instance-handles.js';
import { callRaw } from '../../../src/client/embedded-internals.js';

let db: EmbeddedDatabase;
let log: Propagated[][] = [];
let clock = 1_000_000;

before(async () => {
  db = await open({ now: () => clock });
  instanceBehind(db).persistence = recordingPersistence((batch) => log.push(batch));
});
after(() => db.close());

async function err(...args: Array<string | number>): Promise<string> {
  try {
    await db.call(...args);
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
}

async function fresh(key: string, ...ids: string[]): Promise<void> {
  await db.call('DEL', key);
  for (const id of ids) await db.call('XADD', key, id, 'f', `v${id}`);
}

/** What was propagated by the commands run in fn, as strings. */
async function propagated(fn: () => Promise<unknown>): Promise<string[][]> {
  log = [];
  await fn();
  return log.flat().map((p) => p.argv.map((a) => a.toString()));
}

const INVALID_ID = 'ERR Invalid stream ID specified as stream command argument';

describe('XADD', () => {
  test('explicit ids, ms-*, and the strtoull forms Redis accepts', async () => {
    await db.call('DEL', 's');
    assert.equal(await db.call('XADD', 's', '1-1', 'a', '1'), '1-1');
    assert.equal(await db.call('XADD', 's', '007-1', 'a', '1'), '7-1');
    assert.equal(await db.call('XADD', 's', ' 8-1', 'a', '1'), '8-1');
    assert.equal(await db.call('XADD', 's', '+9-1', 'a', '1'), '9-1');
    assert.equal(await db.call('XADD', 's', '10--0', 'a', '1'), '10-0');
    assert.equal(await db.call('XADD', 's', '11-+5', 'a', '1'), '11-5');
    assert.equal(await db.call('XADD', 's', '12', 'a', '1'), '12-0');
    assert.equal(await db.call('XADD', 's', '12-*', 'a', '1'), '12-1');
    assert.equal(await db.call('XADD', 's', '13-*', 'a', '1'), '13-0');
    assert.equal(await db.call('XLEN', 's'), 9);
  });

  test('"*" uses the clock and never goes backwards', async () => {
    await db.call('DEL', 's');
    clock = 5000;
    assert.equal(await db.call('XADD', 's', '*', 'a', '1'), '5000-0');
    assert.equal(await db.call('XADD', 's', '*', 'a', '1'), '5000-1');
    clock = 4000;
    assert.equal(await db.call('XADD', 's', '*', 'a', '1'), '5000-2');
    clock = 6000;
    assert.equal(await db.call('XADD', 's', '*', 'a', '1'), '6000-0');
  });

  test('id errors', async () => {
    await fresh('s', '12-0');
    assert.equal(await err('XADD', 's', '0-0', 'a', '1'), 'ERR The ID specified in XADD must be greater than 0-0');
    assert.equal(await err('XADD', 'new', '0-0', 'a', '1'), 'ERR The ID specified in XADD must be greater than 0-0');
    assert.equal(await db.call('EXISTS', 'new'), 0);
    assert.equal(await err('XADD', 's', '0-*', 'a', '1'), 'ERR The ID specified in XADD is equal or smaller than the target stream top item');
    assert.equal(await err('XADD', 's', '12-0', 'a', '1'), 'ERR The ID specified in XADD is equal or smaller than the target stream top item');
    assert.equal(await db.call('XADD', 's2', '0-*', 'a', '1'), '0-1');
    assert.equal(await err('XADD', 's3', '0', 'a', '1'), 'ERR The ID specified in XADD must be greater than 0-0');
    for (const bad of ['foo', '5-5-5', '5-', '-5', '5-18446744073709551616', '18446744073709551616', '', '**', '*-1', '* ', '-', '+']) {
      assert.equal(await err('XADD', 's', bad, 'a', '1'), INVALID_ID, bad);
    }
  });

  test('the last possible id exhausts the stream, checked before anything else', async () => {
    await db.call('DEL', 's');
    assert.equal(await db.call('XADD', 's', '18446744073709551615-18446744073709551615', 'a', '1'), '18446744073709551615-18446744073709551615');
    const exhausted = 'ERR The stream has exhausted the last possible ID, unable to add more items';
    assert.equal(await err('XADD', 's', '*', 'a', '1'), exhausted);
    assert.equal(await err('XADD', 's', '18446744073709551615-*', 'a', '1'), exhausted);
    assert.equal(await err('XADD', 's', '1-1', 'a', '1'), exhausted);
  });

  test('option and arity errors', async () => {
    await fresh('s', '1-1');
    const arity = "ERR wrong number of arguments for 'xadd' command";
    assert.equal(await err('XADD', 's', '12-*', 'a'), arity);
    assert.equal(await err('XADD', 's', '*', 'a', '1', 'b'), arity);
    assert.equal(await err('XADD', 's', 'NOMKSTREAM', '*', 'a'), arity);
    assert.equal(await err('XADD', 's', 'MAXLEN', '~', '1', 'LIMIT', '5'), arity);
    assert.equal(await err('XADD', 's', 'MAXLEN', 'a', '1'), 'ERR value is not an integer or out of range');
    assert.equal(await err('XADD', 's', 'MAXLEN', '1', 'LIMIT', '5', '*', 'a', '1'), 'ERR syntax error, LIMIT cannot be used without the special ~ option');
    assert.equal(await err('XADD', 's', 'MAXLEN', '=', '1', 'LIMIT', '5', '*', 'a', '1'), 'ERR syntax error, LIMIT cannot be used without the special ~ option');
    assert.equal(await err('XADD', 's', 'MAXLEN', '1', 'LIMIT', '5'), 'ERR syntax error, LIMIT cannot be used without the special ~ option');
    assert.equal(await err('XADD', 's', 'MAXLEN', '~', '1', 'LIMIT', '-1', '*', 'a', '1'), 'ERR The LIMIT argument must be >= 0.');
    assert.equal(await err('XADD', 's', 'MAXLEN', '~', '1', 'LIMIT', 'x', '*', 'a', '1'), 'ERR value is not an integer or out of range');
    assert.equal(await err('XADD', 's', 'MAXLEN', '~', '1', 'LIMIT'), INVALID_ID);
    assert.equal(await err('XADD', 's', 'LIMIT', '5', '*', 'a', '1'), 'ERR syntax error, LIMIT cannot be used without specifying a trimming strategy');
    const both = 'ERR syntax error, MAXLEN and MINID options at the same time are not compatible';
    assert.equal(await err('XADD', 's', 'MAXLEN', '1', 'MINID', '5', '*', 'a', '1'), both);
    assert.equal(await err('XADD', 's', 'MAXLEN', '5', 'MAXLEN', '4', '*', 'a', '1'), both);
    assert.equal(await err('XADD', 's', 'MAXLEN', '-1', '*', 'a', '1'), 'ERR The MAXLEN argument must be >= 0.');
    assert.equal(await err('XADD', 's', 'MAXLEN', '=', '*', 'a', '1'), 'ERR value is not an integer or out of range');
    assert.equal(await err('XADD', 's', 'MINID', 'x', '*', 'a', '1'), INVALID_ID);
    assert.equal(await err('XADD', 's', 'MINID', '-', '*', 'a', '1'), INVALID_ID);
    assert.equal(await err('XADD', 's', 'MINID', '(5', '*', 'a', '1'), INVALID_ID);
    assert.equal(await db.call('XLEN', 's'), 1);
  });

  test('NOMKSTREAM, LIMIT 0 and large LIMITs', async () => {
    await db.call('DEL', 'nope');
    assert.equal(await db.call('XADD', 'nope', 'NOMKSTREAM', '*', 'a', '1'), null);
    assert.equal(await db.call('EXISTS', 'nope'), 0);
    await fresh('s', '1-1');
    assert.equal(await db.call('XADD', 's', 'NOMKSTREAM', 'NOMKSTREAM', '2-1', 'a', '1'), '2-1');
    for (const limit of ['0', '1', '1000000', '99999999999']) {
      assert.match(String(await db.call('XADD', 's', 'MAXLEN', '~', '1', 'LIMIT', limit, '*', 'a', '1')), /^\d+-\d+$/);
    }
  });

  test('WRONGTYPE', async () => {
    await db.call('SET', 'str', 'x');
    const wrong = 'WRONGTYPE Operation against a key holding the wrong kind of value';
    for (const cmd of [['XADD', 'str', '*', 'a', '1'], ['XRANGE', 'str', '-', '+'], ['XREVRANGE', 'str', '+', '-'], ['XLEN', 'str'], ['XDEL', 'str', '1'], ['XTRIM', 'str', 'MAXLEN', '1'], ['XREAD', 'STREAMS', 'str', '0'], ['XSETID', 'str', '5']]) {
      assert.equal(await err(...cmd), wrong, cmd.join(' '));
    }
    // Argument errors that Redis detects before the key lookup win.
    assert.equal(await err('XRANGE', 'str', 'x', '+'), INVALID_ID);
    assert.equal(await err('XSETID', 'str', 'x'), INVALID_ID);
  });

  test('MAXLEN trims after adding; "~" keeps whole nodes', async () => {
    await db.call('DEL', 's');
    for (let i = 1; i <= 250; i++) await db.call('XADD', 's', `${i}-0`, 'f', String(i));
    assert.equal(await db.call('XADD', 's', 'MAXLEN', '~', '120', '251-0', 'f', 'x'), '251-0');
    assert.equal(await db.call('XLEN', 's'), 151); // the first node of 100 went, the second could not
    assert.equal(await db.call('XADD', 's', 'MAXLEN', '=', '10', '252-0', 'f', 'x'), '252-0');
    assert.equal(await db.call('XLEN', 's'), 10);
    assert.deepEqual(await db.call('XRANGE', 's', '-', '+', 'COUNT', '1'), [['243-0', ['f', '243']]]);
    assert.equal(await db.call('XADD', 's', 'MINID', '250', '253-0', 'f', 'x'), '253-0');
    assert.deepEqual((await db.call('XRANGE', 's', '-', '+')) as Value[], [['250-0', ['f', '250']], ['251-0', ['f', 'x']], ['252-0', ['f', 'x']], ['253-0', ['f', 'x']]]);
  });

  test('propagates the id it produced and "~" as its exact effect', async () => {
    await db.call('DEL', 's');
    clock = 9000;
    assert.deepEqual(await propagated(() => db.call('XADD', 's', '*', 'a', '1')), [['XADD', 's', '9000-0', 'a', '1']]);
    assert.deepEqual(await propagated(() => db.call('XADD', 's', '9000-*', 'a', '1')), [['XADD', 's', '9000-1', 'a', '1']]);
    assert.deepEqual(await propagated(() => db.call('XADD', 's', '9001-5', 'a', '1')), [['XADD', 's', '9001-5', 'a', '1']]);
    for (let i = 0; i < 200; i++) await db.call('XADD', 's', '*', 'a', '1');
    assert.deepEqual(await propagated(() => db.call('XADD', 's', 'MAXLEN', '~', '50', 'LIMIT', '500', '*', 'a', '1')), [['XADD', 's', 'MAXLEN', '=', '104', 'LIMIT', '500', '9001-206', 'a', '1']]);
    assert.deepEqual(await propagated(() => db.call('XADD', 's', 'MINID', '~', '9001-150', '*', 'a', '1')), [['XADD', 's', 'MINID', '=', '9001-103', '9001-207', 'a', '1']]);
    assert.deepEqual(await propagated(() => db.call('XADD', 's', 'MAXLEN', '=', '3', '*', 'a', '1')), [['XADD', 's', 'MAXLEN', '=', '3', '9001-208', 'a', '1']]);
    assert.deepEqual(await propagated(() => err('XADD', 's', '1-1', 'a', '1')), []);
    assert.deepEqual(await propagated(() => db.call('XADD', 'nope', 'NOMKSTREAM', '*', 'a', '1')), []);
  });
});

describe('XRANGE / XREVRANGE', () => {
  test('inclusive, exclusive and incomplete ids', async () => {
    await fresh('s', '1-1', '2-1', '3-1');
    const ids = async (...args: string[]) => ((await db.call(...args)) as Value[]).map((e) => (e as Value[])[0]);
    assert.deepEqual(await ids('XRANGE', 's', '-', '+'), ['1-1', '2-1', '3-1']);
    assert.deepEqual(await ids('XRANGE', 's', '(1-1', '+'), ['2-1', '3-1']);
    assert.deepEqual(await ids('XRANGE', 's', '2', '2'), ['2-1']);
    assert.deepEqual(await ids('XREVRANGE', 's', '+', '-', 'COUNT', '2'), ['3-1', '2-1']);
    assert.deepEqual(await ids('XREVRANGE', 's', '(3', '(1'), ['3-1', '2-1', '1-1']);
    assert.deepEqual(await ids('XRANGE', 's', '+', '-'), []);
    assert.deepEqual(await ids('XRANGE', 's', '(18446744073709551615', '+'), []);
    assert.deepEqual(await ids('XRANGE', 's', '-', '(0'), []);
    assert.deepEqual(await ids('XRANGE', 's', '-', '+', 'COUNT', '1', 'COUNT', '2'), ['1-1', '2-1']);
    assert.equal(await db.call('XRANGE', 's', '-', '+', 'COUNT', '-1'), null);
    assert.deepEqual(await db.call('XRANGE', 's', '1-1', '1-1'), [['1-1', ['f', 'v1-1']]]);
  });

  test('COUNT 0 is a null array on an existing key, an empty one on a missing key', async () => {
    await fresh('s', '1-1');
    await db.call('DEL', 'nokey');
    assert.equal(await db.call('XRANGE', 's', '-', '+', 'COUNT', '0'), null);
    assert.deepEqual(await db.call('XRANGE', 'nokey', '-', '+', 'COUNT', '0'), []);
    assert.deepEqual(await db.call('XRANGE', 'nokey', '-', '+'), []);
  });

  test('errors', async () => {
    await fresh('s', '1-1');
    assert.equal(await err('XRANGE', 's', '(-', '+'), INVALID_ID);
    assert.equal(await err('XRANGE', 's', '-', '(+'), INVALID_ID);
    assert.equal(await err('XRANGE', 's', '(', '+'), INVALID_ID);
    assert.equal(await err('XRANGE', 's', '(18446744073709551615-18446744073709551615', '+'), 'ERR invalid start ID for the interval');
    assert.equal(await err('XRANGE', 's', '-', '(0-0'), 'ERR invalid end ID for the interval');
    assert.equal(await err('XREVRANGE', 's', '(0-0', '-'), 'ERR invalid end ID for the interval');
    assert.equal(await err('XRANGE', 's', '-', '+', 'COUNT'), 'ERR syntax error');
    assert.equal(await err('XRANGE', 's', '-', '+', 'foo', '1'), 'ERR syntax error');
    assert.equal(await err('XRANGE', 's', '-', '+', 'COUNT', 'x'), 'ERR value is not an integer or out of range');
    assert.equal(await err('XRANGE', 's', '-'), "ERR wrong number of arguments for 'xrange' command");
  });
});

describe('XDEL / XLEN / XTRIM', () => {
  test('XDEL counts deleted entries and checks every id first', async () => {
    await fresh('s', '1-1', '2-1', '3-1');
    await db.call('DEL', 'nokey');
    assert.equal(await db.call('XDEL', 'nokey', 'x'), 0);
    assert.equal(await err('XDEL', 's', '1-1', 'x'), INVALID_ID);
    assert.equal(await err('XDEL', 's', '-'), INVALID_ID);
    assert.equal(await db.call('XLEN', 's'), 3);
    assert.equal(await db.call('XDEL', 's', '1-1', '1-1', '9-9'), 1);
    assert.equal(await db.call('XDEL', 's', '1'), 0);
    assert.equal(await db.call('XLEN', 's'), 2);
    assert.equal(await db.call('XLEN', 'nokey'), 0);
    assert.deepEqual(await propagated(() => db.call('XDEL', 's', '2-1')), [['XDEL', 's', '2-1']]);
    assert.deepEqual(await propagated(() => db.call('XDEL', 's', '2-1')), []);
  });

  test('XTRIM errors', async () => {
    await fresh('s', '1-1', '2-1', '3-1');
    assert.equal(await err('XTRIM', 's', 'MAXLEN'), "ERR wrong number of arguments for 'xtrim' command");
    assert.equal(await err('XTRIM', 's', 'FOO', '1'), 'ERR syntax error');
    assert.equal(await err('XTRIM', 's', 'MAXLEN', '1', 'FOO'), 'ERR syntax error');
    assert.equal(await err('XTRIM', 's', 'NOMKSTREAM', 'MAXLEN', '1'), 'ERR syntax error');
    assert.equal(await err('XTRIM', 's', 'MAXLEN', '1', '*'), 'ERR syntax error');
    assert.equal(await err('XTRIM', 's', 'MAXLEN', '1', 'LIMIT'), 'ERR syntax error');
    assert.equal(await err('XTRIM', 's', 'LIMIT', '5', 'MAXLEN', '1'), 'ERR syntax error, LIMIT cannot be used without the special ~ option');
    assert.equal(await err('XTRIM', 'nokey', 'MAXLEN', 'x'), 'ERR value is not an integer or out of range');
    assert.equal(await db.call('XTRIM', 'nokey', 'MAXLEN', '1'), 0);
    assert.equal(await db.call('XTRIM', 's', 'MAXLEN', '~', '1', 'LIMIT', '5'), 0);
    assert.equal(await db.call('XTRIM', 's', 'MINID', '3'), 2);
    assert.equal(await db.call('XLEN', 's'), 1);
  });

  test('XTRIM "~" propagates as "=" with the resulting length, exact trims as given', async () => {
    await db.call('DEL', 's');
    for (let i = 1; i <= 250; i++) await db.call('XADD', 's', `${i}-0`, 'f', 'v');
    assert.deepEqual(await propagated(() => db.call('XTRIM', 's', 'MAXLEN', '~', '10')), [['XTRIM', 's', 'MAXLEN', '=', '50']]);
    assert.deepEqual(await propagated(() => db.call('XTRIM', 's', 'MAXLEN', '~', '10')), []);
    assert.deepEqual(await propagated(() => db.call('XTRIM', 's', 'MAXLEN', '10')), [['XTRIM', 's', 'MAXLEN', '10']]);
    assert.equal(await db.call('XLEN', 's'), 10);
  });
});

describe('XREAD', () => {
  test('synchronous reads: COUNT, several keys, $, missing keys', async () => {
    await fresh('s', '1-1', '2-1', '3-1');
    await db.call('DEL', 'nokey');
    assert.deepEqual(await db.call('XREAD', 'COUNT', '1', 'STREAMS', 's', 'nokey', '0', '0'), [['s', [['1-1', ['f', 'v1-1']]]]]);
    assert.deepEqual(await db.call('XREAD', 'COUNT', '-5', 'STREAMS', 's', '2-1'), [['s', [['3-1', ['f', 'v3-1']]]]]);
    assert.equal(await db.call('XREAD', 'STREAMS', 's', 'nokey', '$', '$'), null);
    assert.equal(await db.call('XREAD', 'STREAMS', 's', '3-1'), null);
    // Redis 7.4's "+": the last entry.
    assert.deepEqual(await db.call('XREAD', 'STREAMS', 's', '+'), [['s', [['3-1', ['f', 'v3-1']]]]]);
  });

  test('errors', async () => {
    await fresh('s', '1-1');
    assert.equal(await err('XREAD', 'STREAMS', 's'), "ERR wrong number of arguments for 'xread' command");
    assert.equal(await err('XREAD', 'STREAMS', 's', '0', 'x'), "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
    assert.equal(await err('XREAD', 'FOO', 'STREAMS', 's', '0'), 'ERR syntax error');
    assert.equal(await err('XREAD', 'COUNT', '1', 'STREAMS'), 'ERR syntax error');
    assert.equal(await err('XREAD', 'BLOCK', '-1', 'STREAMS', 's', '0'), 'ERR timeout is negative');
    assert.equal(await err('XREAD', 'BLOCK', 'x', 'STREAMS', 's', '0'), 'ERR timeout is not an integer or out of range');
    assert.equal(await err('XREAD', 'BLOCK', '1.5', 'STREAMS', 's', '0'), 'ERR timeout is not an integer or out of range');
    assert.equal(await err('XREAD', 'COUNT', 'x', 'STREAMS', 's', '0'), 'ERR value is not an integer or out of range');
    assert.equal(await err('XREAD', 'STREAMS', 's', '-'), INVALID_ID);
    assert.equal(await err('XREAD', 'STREAMS', 's', '>'), 'ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.');
    await db.call('SET', 'str', 'x');
    assert.equal(await err('XREAD', 'STREAMS', 's', 'str', 'x', '0'), INVALID_ID); // ids are parsed key by key
    assert.equal(await err('XREAD', 'STREAMS', 'str', 's', '0', 'x'), 'WRONGTYPE Operation against a key holding the wrong kind of value');
  });

  test('BLOCK waits for an entry after the id; "$" is resolved when blocking', async () => {
    await fresh('s', '1-1');
    const reader = db.session();
    const pending = reader.call('XREAD', 'BLOCK', '0', 'STREAMS', 'other', 's', '$', '$');
    await db.call('XADD', 's', '5-0', 'k', 'v');
    assert.deepEqual(await pending, [['s', [['5-0', ['k', 'v']]]]]);
    reader.close();
  });

  test('BLOCK is served with COUNT and only by the stream that grew', async () => {
    await fresh('a', '1-0');
    await fresh('b', '1-0');
    const reader = db.session();
    const pending = reader.call('XREAD', 'COUNT', '1', 'BLOCK', '0', 'STREAMS', 'a', 'b', '1-0', '1-0');
    await db.call('MULTI');
    await db.call('XADD', 'b', '2-0', 'x', '1');
    await db.call('XADD', 'b', '3-0', 'x', '2');
    await db.call('EXEC');
    assert.deepEqual(await pending, [['b', [['2-0', ['x', '1']]]]]);
    reader.close();
  });

  test('BLOCK times out with a null array; inside MULTI it does not block', async () => {
    await fresh('s', '1-1');
    assert.equal(await db.call('XREAD', 'BLOCK', '5', 'STREAMS', 's', '$'), null);
    await db.call('MULTI');
    await db.call('XREAD', 'BLOCK', '0', 'STREAMS', 's', '$');
    assert.deepEqual(await db.call('EXEC'), [null]);
  });

  test('RESP3 replies with a map of stream to entries', async () => {
    await fresh('s', '1-1');
    const session = db.session();
    await session.call('HELLO', '3');
    const raw = await callRaw(session, 'XREAD', 'STREAMS', 's', '0');
    assert.equal(raw?.constructor.name, 'MapReply');
    assert.deepEqual(await session.call('XREAD', 'STREAMS', 's', '0'), ['s', [['1-1', ['f', 'v1-1']]]]);
    session.close();
  });

  test('key positions come after STREAMS', () => {
    const spec = instanceBehind(db).table.get('xread')!;
    const argv = ['XREAD', 'COUNT', '2', 'BLOCK', '0', 'STREAMS', 'a', 'b', '0', '0'].map((s) => Buffer.from(s));
    assert.deepEqual(spec.keys!(argv), [6, 7]);
  });
});

describe('XSETID', () => {
  test('checks and effects', async () => {
    await fresh('s', '1-1', '2-1', '3-1');
    await db.call('XDEL', 's', '1-1');
    await db.call('DEL', 'nokey');
    assert.equal(await err('XSETID', 'nokey', '5-5'), 'ERR no such key');
    assert.equal(await err('XSETID', 's', 'x'), INVALID_ID);
    assert.equal(await err('XSETID', 's', '-'), INVALID_ID);
    assert.equal(await err('XSETID', 's', '1-1'), 'ERR The ID specified in XSETID is smaller than the target stream top item');
    assert.equal(await err('XSETID', 's', '3-1', 'ENTRIESADDED', '0'), 'ERR The entries_added specified in XSETID is smaller than the target stream length');
    assert.equal(await err('XSETID', 's', '3-1', 'ENTRIESADDED', '-1'), 'ERR entries_added must be positive');
    assert.equal(await err('XSETID', 'nokey', '1', 'ENTRIESADDED', '-1'), 'ERR entries_added must be positive');
    assert.equal(await err('XSETID', 's', '3-1', 'ENTRIESADDED', 'x'), 'ERR value is not an integer or out of range');
    assert.equal(await err('XSETID', 's', '3-1', 'MAXDELETEDID', '4-0'), 'ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id');
    assert.equal(await err('XSETID', 's', '3-1', 'MAXDELETEDID', 'x'), INVALID_ID);
    assert.equal(await err('XSETID', 's', '3-1', 'FOO'), 'ERR syntax error');
    assert.equal(await err('XSETID', 's', '3-1', 'ENTRIESADDED'), 'ERR syntax error');
    assert.equal(await db.call('XSETID', 's', '3-1'), 'OK');
    clock = 5;
    assert.equal(await db.call('XSETID', 's', '10-0', 'MAXDELETEDID', '1-0', 'ENTRIESADDED', '10'), 'OK');
    assert.equal(await err('XADD', 's', '9-0', 'a', '1'), 'ERR The ID specified in XADD is equal or smaller than the target stream top item');
    assert.equal(await db.call('XADD', 's', '*', 'a', '1'), '10-1');
  });

  test('an emptied stream may go back, even below max_deleted_entry_id (as in 7.0)', async () => {
    await fresh('x', '5-1', '6-1');
    assert.equal(await db.call('XDEL', 'x', '5-1', '6-1'), 2);
    assert.equal(await db.call('XSETID', 'x', '0-0'), 'OK');
    assert.equal(await db.call('XADD', 'x', '1-0', 'a', '1'), '1-0');
  });
});
