// What the newer sorted-set commands log, and that the log replays to the same sorted sets:
// ZMPOP and BZMPOP (at once or woken) are logged as ZPOPMIN/ZPOPMAX key n, n the number popped,
// as Redis rewrites them; the STORE forms and ZRANGESTORE as themselves, only when they change
// something; ZRANDMEMBER and the reading forms not at all.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { open, type EmbeddedDatabase } from '../../src/client/embedded.js';
import { recordPropagation } from './keys-helpers.js';

test('ZMPOP and BZMPOP are logged as ZPOPMIN/ZPOPMAX with the number popped', async () => {
  const db = await open();
  try {
    const log = recordPropagation(db);
    await db.call('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c');
    log.splice(0);
    assert.deepEqual(await db.call('ZMPOP', '2', 'none', 'z', 'MIN'), ['z', [['a', '1']]]);
    assert.deepEqual(await db.call('ZMPOP', '1', 'z', 'MAX', 'COUNT', '10'), ['z', [['c', '3'], ['b', '2']]]);
    assert.equal(await db.call('ZMPOP', '1', 'z', 'MAX'), null);
    assert.deepEqual(log.splice(0), ['ZPOPMIN z 1', 'ZPOPMAX z 2']);

    await db.call('ZADD', 'y', '5', 'e');
    log.splice(0);
    assert.deepEqual(await db.call('BZMPOP', '0', '1', 'y', 'MIN', 'COUNT', '3'), ['y', [['e', '5']]]);
    assert.deepEqual(log.splice(0), ['ZPOPMIN y 1']);

    // Woken by a ZADD: the ZADD, then the pop it served.
    const blocked = db.session().call('BZMPOP', '0', '2', 'q1', 'q2', 'MAX', 'COUNT', '2');
    await db.call('ZADD', 'q2', '1', 'j1', '2', 'j2', '3', 'j3');
    assert.deepEqual(await blocked, ['q2', [['j3', '3'], ['j2', '2']]]);
    assert.deepEqual(log.splice(0), ['ZADD q2 1 j1 2 j2 3 j3', 'ZPOPMAX q2 2']);

    // Reads log nothing.
    await db.call('ZRANDMEMBER', 'q2', '-5', 'WITHSCORES');
    await db.call('ZUNION', '2', 'q2', 'none', 'WITHSCORES');
    await db.call('ZINTERCARD', '1', 'q2');
    assert.deepEqual(log, []);
  } finally {
    await db.close();
  }
});

test('the STORE forms and ZRANGESTORE are logged as themselves, only when they change something', async () => {
  const db = await open();
  try {
    const log = recordPropagation(db);
    await db.call('ZADD', 'a', '1', 'x', '2', 'y');
    await db.call('ZADD', 'b', '3', 'y', '4', 'z');
    log.splice(0);
    await db.call('ZUNIONSTORE', 'u', '2', 'a', 'b', 'WEIGHTS', '1', '2');
    await db.call('ZINTERSTORE', 'i', '2', 'a', 'b', 'AGGREGATE', 'MAX');
    await db.call('ZDIFFSTORE', 'd', '2', 'a', 'b');
    await db.call('ZRANGESTORE', 'r', 'b', '0', '0');
    await db.call('ZINTERSTORE', 'i', '2', 'a', 'missing');
    await db.call('ZINTERSTORE', 'never', '2', 'a', 'missing');
    await db.call('ZRANGESTORE', 'never', 'missing', '0', '-1');
    assert.deepEqual(log, [
      'ZUNIONSTORE u 2 a b WEIGHTS 1 2',
      'ZINTERSTORE i 2 a b AGGREGATE MAX',
      'ZDIFFSTORE d 2 a b',
      'ZRANGESTORE r b 0 0',
      'ZINTERSTORE i 2 a missing',
    ]);
    assert.equal(await db.call('EXISTS', 'i'), 0);
  } finally {
    await db.close();
  }
});

/** Every key's type and, for sorted sets, members with scores and encoding. */
async function snapshot(db: EmbeddedDatabase): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of ((await db.call('KEYS', '*')) as string[]).sort()) {
    const type = await db.call('TYPE', key);
    out[key] = type === 'zset' ? [await db.call('OBJECT', 'ENCODING', key), await db.call('ZRANGE', key, '0', '-1', 'WITHSCORES')] : type;
  }
  return out;
}

test('ZMPOP, BZMPOP, the STORE forms and ZRANGESTORE replay from the AOF to the same sorted sets', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-zsets-aof-'));
  try {
    let db = await open({ dir, appendfsync: 'always' });
    await db.call('ZADD', 'big', ...Array.from({ length: 200 }, (_, i) => [String((i * 37) % 101), `m${i}`]).flat());
    await db.call('ZADD', 'small', '1.5', 'a', '-inf', 'b', '3', 'c');
    await db.call('SADD', 'set', 'a', 'm7', 'zz');
    await db.call('ZMPOP', '2', 'none', 'big', 'MAX', 'COUNT', '7');
    await db.call('BZMPOP', '0', '1', 'small', 'MIN');
    const blocked = db.session().call('BZMPOP', '0', '1', 'queue', 'MIN', 'COUNT', '2');
    await db.call('ZADD', 'queue', '3', 'q3', '1', 'q1', '2', 'q2');
    await blocked;
    await db.call('ZUNIONSTORE', 'u', '3', 'big', 'small', 'set', 'WEIGHTS', '2', '-1', 'inf', 'AGGREGATE', 'MIN');
    await db.call('ZINTERSTORE', 'i', '2', 'big', 'set');
    await db.call('ZDIFFSTORE', 'd', '2', 'big', 'set');
    await db.call('ZRANGESTORE', 'r', 'big', '(10', '50', 'BYSCORE', 'REV', 'LIMIT', '3', '20');
    await db.call('ZRANGESTORE', 'small2', 'small', '0', '-1');
    await db.call('SET', 'str', 'v');
    await db.call('ZUNIONSTORE', 'str', '1', 'small');
    const before = await snapshot(db);
    assert.deepEqual((before.u as unknown[])[0], 'skiplist');
    assert.deepEqual(before.i, ['listpack', ['m7', '58']]);
    assert.deepEqual(before.queue, ['listpack', ['q3', '3']]);
    assert.equal((before.str as unknown[])[0], 'listpack', 'ZUNIONSTORE overwrote the string');
    await db.close();

    db = await open({ dir });
    assert.deepEqual(await snapshot(db), before);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
