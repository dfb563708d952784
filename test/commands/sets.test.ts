// Set commands through the embedded client.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { SetReply } from '../../src/resp/reply.js';
import { callRaw } from '../../src/client/embedded-internals.js';

test('SADD / SREM / SCARD / SISMEMBER / SMISMEMBER', async () => {
  const db = await open();
  assert.equal(await db.call('SADD', 's', 'a', 'b', 'a'), 2);
  assert.equal(await db.call('SADD', 's', 'b', 'c'), 1);
  assert.equal(await db.call('SCARD', 's'), 3);
  assert.equal(await db.call('SISMEMBER', 's', 'a'), 1);
  assert.equal(await db.call('SISMEMBER', 's', 'z'), 0);
  assert.deepEqual(await db.call('SMISMEMBER', 's', 'a', 'z', 'c'), [1, 0, 1]);
  assert.deepEqual(await db.call('SMISMEMBER', 'nokey', 'a'), [0]);
  assert.equal(await db.call('SREM', 's', 'a', 'a', 'z'), 1);
  assert.equal(await db.call('SREM', 's', 'b', 'c'), 2);
  assert.equal(await db.call('EXISTS', 's'), 0, 'the last SREM deletes the key');
  await db.close();
});

test('SMEMBERS is a set reply; integer sets come sorted as an intset', async () => {
  const db = await open();
  await db.call('SADD', 'ints', '10', '-3', '7', '0');
  const raw = await callRaw(db, 'SMEMBERS', 'ints');
  assert.ok(raw instanceof SetReply);
  assert.deepEqual(await db.call('SMEMBERS', 'ints'), ['-3', '0', '7', '10']);
  await db.call('SADD', 'mixed', 'b', '1', 'a');
  assert.deepEqual(((await db.call('SMEMBERS', 'mixed')) as string[]).sort(), ['1', 'a', 'b']);
  assert.deepEqual(await db.call('SMEMBERS', 'nokey'), []);
  await db.close();
});

test('receipts idiom: SADD reports first sightings only', async () => {
  const db = await open();
  const ids = ['o1', 'o2', 'o1', 'o3', 'o2'];
  const firsts: string[] = [];
  for (const id of ids) if ((await db.call('SADD', 'receipts', id)) === 1) firsts.push(id);
  assert.deepEqual(firsts, ['o1', 'o2', 'o3']);
  assert.equal(await db.call('SCARD', 'receipts'), 3);
  await db.close();
});

test('WRONGTYPE from set commands', async () => {
  const db = await open();
  await db.call('HSET', 'h', 'f', 'v');
  for (const cmd of [['SADD', 'h', 'm'], ['SREM', 'h', 'm'], ['SCARD', 'h'], ['SISMEMBER', 'h', 'm'], ['SMEMBERS', 'h']]) {
    await assert.rejects(db.call(...cmd), /^ReplyError: WRONGTYPE/, cmd.join(' '));
  }
  await db.close();
});

test('SSCAN of a hashtable set: every member present for the whole scan is returned once, while members come and go', async () => {
  const db = await open();
  const all = Array.from({ length: 600 }, (_, i) => `m${i}`);
  await db.call('SADD', 'big', ...all);
  assert.equal(await db.call('OBJECT', 'ENCODING', 'big'), 'hashtable');
  const seen = new Map<string, number>();
  let cursor = '0';
  let round = 0;
  do {
    const [next, members] = (await db.call('SSCAN', 'big', cursor, 'COUNT', '25')) as [string, string[]];
    for (const m of members) seen.set(m, (seen.get(m) ?? 0) + 1);
    // Churn between calls: add new members, remove (odd-numbered) old ones.
    await db.call('SADD', 'big', `new${round}`);
    await db.call('SREM', 'big', `m${2 * round + 1}`);
    await db.call('SPOP', 'big');
    round++;
    cursor = next;
  } while (cursor !== '0');
  const present = new Set((await db.call('SMEMBERS', 'big')) as string[]);
  for (const m of all) if (present.has(m)) assert.equal(seen.get(m), 1, m);
  assert.ok(round > 10, 'the scan took several calls');
  await db.close();
});

test('SRANDMEMBER with a positive count gives distinct members; SPOP with a count leaves the rest', async () => {
  const db = await open();
  const all = Array.from({ length: 50 }, (_, i) => `m${i}`);
  await db.call('SADD', 's', ...all);
  for (const count of [2, 10, 20, 40, 49]) {
    const picked = (await db.call('SRANDMEMBER', 's', String(count))) as string[];
    assert.equal(new Set(picked).size, count);
    for (const m of picked) assert.ok(all.includes(m));
  }
  const repeated = (await db.call('SRANDMEMBER', 's', '-200')) as string[];
  assert.equal(repeated.length, 200);
  const popped = (await db.call('SPOP', 's', '45')) as string[];
  const left = (await db.call('SMEMBERS', 's')) as string[];
  assert.equal(new Set(popped).size, 45);
  assert.deepEqual([...popped, ...left].sort(), [...all].sort());
  await db.close();
});
