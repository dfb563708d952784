// Scripted adds batched into one script call (scripted-batch.ts): how commands are grouped and
// answered, and the batch script on every backend (sluice runs Lua too, though its Producer
// uses XADD IDMP): sent twice it adds each entry, record and event once; an iid twice in one
// batch is added once; the window keeps the last 1,000 iids. On redis-server, where the Producer
// scripts its adds, a slice of addMany is one command.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Arg, Connection, Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { scriptedJobAdd, withJobAddText } from '../../src/broker/jobs/add-script.js';
import { idempotentXadd, SCRIPT_IDEMPOTENCE_WINDOW, scriptIidsKey } from '../../src/broker/idempotence.js';
import { eventCommand } from '../../src/broker/jobs/events.js';
import { ADD_BATCH_SCRIPT, ADD_BATCH_SHA1, batchScriptedAdds } from '../../src/broker/scripted-batch.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { addsInBatch } from '../support/batch-adds.js';

const plainAdd = (stream: string, pid: string, iid: string): Arg[] => idempotentXadd('script', stream, pid, iid, ['*', 'payload', iid]);

function jobAdd(stream: string, jobId: string, iid = jobId): Arg[] {
  const keys = jobKeys(stream);
  const xadd = idempotentXadd('script', stream, 'p', iid, ['*', 'payload', '{}', 'job-id', jobId]);
  return scriptedJobAdd(xadd, ['HSET', keys.record(jobId), 'data', '{}', 'added', 1], keys.events, eventCommand(keys.events, 100, 'added', jobId))!;
}

test('adds of one stream and producer go as one call where the first was, each stream\'s order kept; replies go back in order', () => {
  const commands = [plainAdd('a', 'p', '1'), plainAdd('b', 'p', '1'), plainAdd('a', 'p', '2'), plainAdd('b', 'p', '2'), plainAdd('a', 'q', '1'), plainAdd('a', 'p', '3'), ['PING'], plainAdd('a', 'p', '4'), plainAdd('a', 'p', '5')];
  const batch = batchScriptedAdds(commands);
  // a's adds by p join across b's; q's add for a ends that group (a/p/3 must follow it), and so
  // does any other command.
  assert.deepEqual(batch.commands.map((c) => (c[1] === ADD_BATCH_SHA1 ? `batch of ${addsInBatch(c)}` : c === commands[4] ? 'a/q/1' : c === commands[5] ? 'a/p/3' : String(c[0]))), ['batch of 2', 'batch of 2', 'a/q/1', 'a/p/3', 'PING', 'batch of 2']);
  const failed = new Error('OOM');
  assert.deepEqual(batch.spread([['a1', 'a2'], ['b1', 'b2'], 'aq1', 'a3', 'PONG', ['a4', 'a5']]), ['a1', 'b1', 'a2', 'b2', 'aq1', 'a3', 'PONG', 'a4', 'a5']);
  assert.deepEqual(batch.spread([failed, ['b1', 'b2'], 'aq1', 'a3', 'PONG', 'x']).slice(0, 3), [failed, 'b1', failed], 'a failed batch fails each of its adds');
  assert.ok(batch.spread([failed, ['b1', 'b2'], 'aq1', 'a3', 'PONG', 'x'])[7] instanceof Error, 'a batch answered with no ids fails its adds');
  // With their text (after a NOSCRIPT), the batch carries its own.
  const withText = batchScriptedAdds(withJobAddText([jobAdd('s', 'j1'), jobAdd('s', 'j2')]));
  assert.deepEqual(withText.commands.map((c) => c.slice(0, 2)), [['EVAL', ADD_BATCH_SCRIPT]]);
  const other = batchScriptedAdds([jobAdd('s', 'j1'), jobAdd('s', 'j2')].map((c) => ['EVAL', 'return 1', ...c.slice(2)]));
  assert.equal(other.commands.length, 2, 'another script: left alone');
});

describeEach(backends, (name) => `batched scripted adds on ${name}`, (b, name) => {
  let conn!: Connection;
  before(async () => {
    conn = await b.connect();
    await conn.call('SCRIPT', 'LOAD', ADD_BATCH_SCRIPT);
  });
  after(() => conn.close());

  async function send(commands: Arg[][]): Promise<Array<Value | Error>> {
    const batch = batchScriptedAdds(commands);
    assert.equal(batch.commands.length, 1);
    return batch.spread([await conn.call(...batch.commands[0]!)]);
  }

  test('a batch of job adds sent twice adds each entry, record and event once, and keeps the states', async () => {
    const stream = unique('batch-resent');
    const keys = jobKeys(stream);
    const adds = ['j1', 'j2', 'j3'].map((id) => jobAdd(stream, id));
    const first = await send(adds);
    assert.equal(new Set(first).size, 3);
    await conn.call('HSET', keys.record('j2'), 'state', 'active'); // a worker took it meanwhile
    assert.deepEqual(await send(adds), first);
    assert.equal(Number(await conn.call('XLEN', stream)), 3);
    assert.equal(Number(await conn.call('XLEN', keys.events)), 3);
    const queue = new Queue(conn, { stream });
    const jobs = await Promise.all(['j1', 'j2', 'j3'].map((id) => queue.getJob(id)));
    assert.deepEqual(jobs.map((j) => [j?.entryId, j?.state]), [[first[0], 'waiting'], [first[1], 'active'], [first[2], 'waiting']]);
  });

  test('an iid twice in one batch is added once; the window keeps the last 1,000 iids', async () => {
    const stream = unique('batch-window');
    const [x, y] = await send([plainAdd(stream, 'p', 'same'), plainAdd(stream, 'p', 'same')]);
    assert.equal(x, y);
    for (let round = 0; round < 3; round++) await send(Array.from({ length: 400 }, (_, i) => plainAdd(stream, 'p', `r${round}-${i}`)));
    const iids = scriptIidsKey(stream, 'p');
    assert.equal(Number(await conn.call('HLEN', iids)), SCRIPT_IDEMPOTENCE_WINDOW);
    assert.equal(Number(await conn.call('LLEN', `${iids}:order`)), SCRIPT_IDEMPOTENCE_WINDOW);
    assert.deepEqual(await conn.call('LRANGE', `${iids}:order`, 0, 0), ['r0-200'], 'the oldest kept is the 1,000th newest');
    const ttl = Number(await conn.call('PTTL', iids));
    assert.ok(ttl > 0 && ttl <= 100_000, `PTTL ${ttl}`);
    assert.equal(Number(await conn.call('XLEN', stream)), 1201);
  });

  test('a batch goes as one JSON argument; one whose arguments JSON cannot carry (a lone surrogate) goes as arguments, to the same effect', async () => {
    const stream = unique('batch-json');
    const odd = (iid: string): Arg[] => idempotentXadd('script', stream, 'p', iid, ['*', 'payload', `half \ud83d ${iid}`]);
    const plain = batchScriptedAdds([plainAdd(stream, 'p', 'a'), plainAdd(stream, 'p', 'b')]).commands[0]!;
    const asArgs = batchScriptedAdds([odd('c'), odd('d')]).commands[0]!;
    assert.equal(plain.length, 3 + 3 + 1, 'keys, then one JSON argument');
    assert.ok(asArgs.length > 3 + 3 + 1, 'keys, then every argument');
    const ids = [...((await conn.call(...plain)) as Value[]), ...((await conn.call(...asArgs)) as Value[])];
    const entries = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
    assert.deepEqual(entries.map(([id]) => id), ids);
    assert.deepEqual(entries.map(([, fields]) => fields[1]), ['a', 'b', 'half \ufffd c', 'half \ufffd d']);
  });

  test('a Producer sends a slice of addMany as one command where it scripts its adds', { skip: name === 'redis-server' ? false : 'XADD IDMP here: no script' }, async () => {
    const stream = unique('batch-producer');
    const sent: Arg[][] = [];
    const spy = Object.assign(Object.create(conn) as Connection, {
      call: (...args: Arg[]) => (sent.push(args), conn.call(...args)),
      pipeline: (commands: Arg[][]) => (sent.push(...commands), conn.pipeline(commands)),
    });
    const producer = new Producer<{ n: number }>(spy, { stream });
    const ids = await producer.addMany(Array.from({ length: 250 }, (_, n) => ({ n })));
    const adds = sent.filter((c) => c[0] === 'EVALSHA');
    assert.deepEqual(adds.map((c) => c[1]), [ADD_BATCH_SHA1, ADD_BATCH_SHA1, ADD_BATCH_SHA1], 'slices of 100, 100 and 50');
    const queue = new Queue(conn, { stream });
    assert.equal((await queue.getJobCounts()).waiting, 250);
    assert.deepEqual((await queue.getJob(ids[249]!))?.data, { n: 249 });
    await producer.close();
  });
});
