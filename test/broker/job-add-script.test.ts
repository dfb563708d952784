// A job's add on every backend: the record names its entry as soon as add() resolves (one
// script where adds are scripted anyway, the MULTI and its entry link elsewhere), the `added`
// event is there, an emptied script cache (a restart) costs nothing but the text, and the
// add script itself adds nothing when sent twice (a resend after a lost reply).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, Value } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { JOB_ADD_SCRIPT, scriptedJobAdd } from '../../src/broker/jobs/add-script.js';
import { idempotentXadd, IDEMPOTENT_XADD_SCRIPT } from '../../src/broker/idempotence.js';
import { eventCommand } from '../../src/broker/jobs/events.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';

describeEach(backends, (name) => `adding jobs on ${name}`, (b) => {
  let conn!: Connection;
  before(async () => {
    conn = await b.connect();
  });
  after(async () => {
    await conn?.close();
  });

  /** The entry ids of a stream by their job-id field. */
  async function entriesByJob(stream: string): Promise<Map<string, string>> {
    const entries = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
    const out = new Map<string, string>();
    for (const [id, fields] of entries) out.set(fields[fields.indexOf('job-id') + 1]!, id);
    return out;
  }

  test('the record names its entry when add() resolves, one at a time and in bulk', async () => {
    const stream = unique('adds');
    const producer = new Producer<{ n: number }>(conn, { stream });
    const queue = new Queue(conn, { stream });
    const one = await producer.add({ n: 1 });
    const many = await producer.addMany([{ n: 2 }, { n: 3 }, { n: 4 }]);
    const entries = await entriesByJob(stream);
    for (const id of [one, ...many]) {
      const job = await queue.getJob(id);
      assert.equal(job?.state, 'waiting');
      assert.equal(job?.entryId, entries.get(id), `job ${id} names its entry`);
    }
    const events = (await conn.call('XRANGE', jobKeys(stream).events, '-', '+')) as Array<[string, string[]]>;
    assert.deepEqual(
      events.map(([, f]) => [f[1], f[3]]),
      [one, ...many].map((id) => ['added', id]),
    );
    await producer.close();
  });

  test('adds go on after the script cache is emptied', async () => {
    const stream = unique('flushed');
    const producer = new Producer<{ n: number }>(conn, { stream });
    const queue = new Queue(conn, { stream });
    await producer.add({ n: 1 });
    await conn.call('SCRIPT', 'FLUSH');
    const single = await producer.add({ n: 2 });
    await conn.call('SCRIPT', 'FLUSH');
    const bulk = await producer.addMany([{ n: 3 }, { n: 4 }]);
    const entries = await entriesByJob(stream);
    assert.equal(entries.size, 4);
    for (const id of [single, ...bulk]) assert.equal((await queue.getJob(id))?.entryId, entries.get(id));
    await producer.close();
  });

  test('the add script sent twice adds one entry, one record and one event', async () => {
    const stream = unique('resent');
    const keys = jobKeys(stream);
    await conn.call('SCRIPT', 'LOAD', IDEMPOTENT_XADD_SCRIPT);
    await conn.call('SCRIPT', 'LOAD', JOB_ADD_SCRIPT);
    const xadd = idempotentXadd('script', stream, 'p1', 'iid-1', ['*', 'payload', '{}', 'job-id', 'j1']);
    const add = scriptedJobAdd(xadd, ['HSET', keys.record('j1'), 'data', '{}', 'added', 1], keys.events, eventCommand(keys.events, 100, 'added', 'j1'))!;
    const first = String(await conn.call(...add));
    await conn.call('HSET', keys.record('j1'), 'state', 'active'); // a worker took it meanwhile
    const again = String(await conn.call(...add));
    assert.equal(again, first);
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
    assert.equal(Number(await conn.call('XLEN', keys.events)), 1);
    const record = (await conn.call('HGETALL', keys.record('j1'))) as Value[];
    const fields = new Map<string, string>();
    for (let i = 0; i < record.length; i += 2) fields.set(String(record[i]), String(record[i + 1]));
    assert.equal(fields.get('entry'), first);
    assert.equal(fields.get('state'), 'active', 'a resend does not set the state back');
  });
});
