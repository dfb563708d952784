// What the set commands log, and that the log replays to the same sets: SPOP is logged as the
// SREMs of what it popped (or DEL when it took the whole set), never as SPOP, which would pick
// other members on replay; SMOVE and the STORE forms are logged as themselves.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { open, type EmbeddedDatabase } from '../../src/client/embedded.js';
import { recordPropagation } from './keys-helpers.js';

const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i));

test('SPOP is logged as SREM of each popped member, or DEL when the set is emptied', async () => {
  const db = await open();
  try {
    const log = recordPropagation(db);
    await db.call('SADD', 'one', 'm');
    assert.equal(await db.call('SPOP', 'one'), 'm');
    assert.deepEqual(log.splice(0), ['SADD one m', 'SREM one m']);

    await db.call('SADD', 's', ...range(20, (i) => `m${i}`));
    log.splice(0);
    // Few popped (Redis's case 2) and most popped (case 3, the kept members drawn instead).
    for (const count of ['3', '15']) {
      const popped = (await db.call('SPOP', 's', count)) as string[];
      assert.equal(popped.length, Number(count));
      assert.deepEqual(log.splice(0), popped.map((m) => `SREM s ${m}`));
    }
    assert.equal(await db.call('SCARD', 's'), 2);
    assert.equal(((await db.call('SPOP', 's', '5')) as string[]).length, 2);
    assert.deepEqual(log.splice(0), ['DEL s']);
    assert.equal(await db.call('EXISTS', 's'), 0);

    // Nothing to pop, nothing logged.
    await db.call('SPOP', 's');
    await db.call('SPOP', 's', '3');
    await db.call('SADD', 't', 'a');
    await db.call('SPOP', 't', '0');
    assert.deepEqual(log.splice(0), ['SADD t a']);
  } finally {
    await db.close();
  }
});

test('SMOVE and the STORE forms are logged as themselves, only when they change something', async () => {
  const db = await open();
  try {
    const log = recordPropagation(db);
    await db.call('SADD', 'a', '1', '2', '3');
    await db.call('SADD', 'b', '2', '3', '4');
    log.splice(0);
    await db.call('SMOVE', 'a', 'c', '1');
    await db.call('SMOVE', 'a', 'c', 'absent');
    await db.call('SMOVE', 'a', 'a', '2');
    await db.call('SINTERSTORE', 'i', 'a', 'b');
    await db.call('SUNIONSTORE', 'u', 'a', 'b');
    await db.call('SDIFFSTORE', 'd', 'b', 'a');
    await db.call('SINTERSTORE', 'i', 'a', 'missing');
    await db.call('SINTERSTORE', 'never', 'a', 'missing');
    assert.deepEqual(log, [
      'SMOVE a c 1',
      'SINTERSTORE i a b',
      'SUNIONSTORE u a b',
      'SDIFFSTORE d b a',
      'SINTERSTORE i a missing',
    ]);
    assert.equal(await db.call('EXISTS', 'i'), 0);
  } finally {
    await db.close();
  }
});

/** Every key's type and members (sorted), to compare a database before and after a restart. */
async function snapshot(db: EmbeddedDatabase): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const keys = ((await db.call('KEYS', '*')) as string[]).sort();
  for (const key of keys) {
    const type = (await db.call('TYPE', key)) as string;
    out[key] = type === 'set' ? [type, ...((await db.call('SMEMBERS', key)) as string[]).sort()] : [type];
  }
  return out;
}

test('SPOP, SMOVE and the STORE forms replay from the AOF to the same sets', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-sets-aof-'));
  try {
    let db = await open({ dir, appendfsync: 'always' });
    await db.call('SADD', 'pool', ...range(300, (i) => `job-${i}`));
    await db.call('SADD', 'ints', ...range(100, (i) => String(i * 7)));
    for (let i = 0; i < 40; i++) await db.call('SPOP', 'pool');
    await db.call('SPOP', 'pool', '25');
    await db.call('SPOP', 'ints', '90');
    for (let i = 0; i < 30; i++) await db.call('SMOVE', 'pool', 'moved', `job-${i * 9}`);
    await db.call('SRANDMEMBER', 'pool', '-10');
    await db.call('SINTERSTORE', 'both', 'pool', 'moved');
    await db.call('SUNIONSTORE', 'all', 'pool', 'moved', 'ints');
    await db.call('SDIFFSTORE', 'rest', 'pool', 'moved');
    await db.call('SADD', 'small', 'x', 'y');
    await db.call('SPOP', 'small', '2');
    await db.call('SET', 'str', 'v');
    await db.call('SUNIONSTORE', 'str', 'ints');
    const before = await snapshot(db);
    assert.equal(before.small, undefined, 'SPOP of the whole set deleted it');
    assert.equal(before.str![0], 'set', 'SUNIONSTORE overwrote the string');
    assert.equal(before.ints!.length - 1, 10);
    await db.close();

    db = await open({ dir });
    assert.deepEqual(await snapshot(db), before);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
