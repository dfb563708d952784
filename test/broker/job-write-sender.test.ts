// A worker's job writes as one script call (job-write-sender.ts) must leave the keyspace as the
// MULTI of the same commands does, and fail as it fails, on every backend's Lua (the Worker
// itself scripts them on redis-server only). Which batches the JSON can carry, the NOSCRIPT
// fallback, and a Worker on redis-server sending its writes through the script.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Arg, Connection, Value } from '../../src/client/connection.js';
import { connect } from '../../src/client/connect.js';
import { JOB_WRITES_SHA1, JobWriteSender } from '../../src/broker/worker/job-write-sender.js';
import { argsJson, rowsJson } from '../../src/broker/lua-json.js';
import { Producer } from '../../src/broker/producer.js';
import { Worker } from '../../src/broker/worker.js';
import { Queue } from '../../src/broker/queue.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { dumpPrefix } from '../support/keyspace-dump.js';

test('the JSON carries texts and numbers as RESP would; bytes, lone surrogates and over-long commands are left to commands', () => {
  assert.equal(rowsJson([['HSET', 'k', 'n', 12, 'f', 1.5, 'big', 10n, 'emoji', '😀']]), '[["HSET","k","n","12","f","1.5","big","10","emoji","😀"]]');
  assert.equal(rowsJson([['SET', 'k', 'line\nbreak\u0001"quoted"\\']]), JSON.stringify([['SET', 'k', 'line\nbreak\u0001"quoted"\\']]));
  assert.equal(rowsJson([['SET', 'k', Buffer.from([0xff])]]), null);
  assert.equal(rowsJson([['SET', 'k', 'half \ud83d pair']]), null);
  assert.equal(rowsJson([['DEL', ...Array.from({ length: 7000 }, (_, i) => `k${i}`)]]), null);
  assert.equal(argsJson(['a', 1, 2n]), '["a","1","2"]');
  assert.equal(argsJson(['a', Buffer.from('b')]), null);
});

/** A stream with a group and five entries pending to consumer c, under this prefix. */
async function setUp(conn: Connection, p: string): Promise<void> {
  for (let i = 1; i <= 5; i++) await conn.call('XADD', `${p}s`, `1-${i}`, 'f', 'v');
  await conn.call('XGROUP', 'CREATE', `${p}s`, 'g', '0');
  await conn.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', `${p}s`, '>');
  await conn.call('SET', `${p}str`, 'not a hash');
}

/** Everything under a prefix, prefix removed: what two runs must agree on (the stream with its group's PEL). */
function dump(conn: Connection, p: string): Promise<unknown> {
  return dumpPrefix(conn, p, async (key, name) => [await conn.call('XRANGE', key, '-', '+'), name === 's' ? await conn.call('XPENDING', key, 'g') : null]);
}

/** One of the writes a worker batches, on keys under prefix p (the `i`th event gets id 2-i). */
const write = fc.oneof(
  fc.record({ kind: fc.constant('hset'), n: fc.integer({ min: 1, max: 3 }), field: fc.constantFrom('state', 'started', 'result', 'attempts'), value: fc.oneof(fc.string(), fc.integer()) }),
  fc.record({ kind: fc.constant('zadd'), n: fc.integer({ min: 1, max: 3 }), score: fc.integer({ min: 0, max: 1e13 }) }),
  fc.record({ kind: fc.constant('event'), n: fc.integer({ min: 1, max: 3 }), value: fc.string() }),
  fc.record({ kind: fc.constant('xack'), ids: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('del'), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('log'), n: fc.integer({ min: 1, max: 3 }), value: fc.string() }),
  fc.record({ kind: fc.constant('wrongtype'), value: fc.string() }),
);
type Write = typeof write extends fc.Arbitrary<infer W> ? W : never;

function commandsOf(p: string, writes: Write[]): Arg[][] {
  let event = 0;
  return writes.map((w): Arg[] => {
    switch (w.kind) {
      case 'hset':
        return ['HSET', `${p}job:${w.n}`, w.field, w.value];
      case 'zadd':
        return ['ZADD', `${p}completed`, w.score, `${w.n}`];
      case 'event':
        return ['XADD', `${p}events`, 'MAXLEN', '~', 100, `2-${++event}`, 'event', 'completed', 'jobId', `${w.n}`, 'returnvalue', w.value];
      case 'xack':
        return ['XACK', `${p}s`, 'g', ...w.ids.map((i) => `1-${i}`)];
      case 'del':
        return ['DEL', `${p}job:${w.n}`, `${p}job:${w.n}:logs`];
      case 'log':
        return ['RPUSH', `${p}job:${w.n}:logs`, w.value];
      case 'wrongtype':
        return ['HSET', `${p}str`, 'f', w.value];
    }
  });
}

describeEach(backends, (name) => `job writes as one script call on ${name}`, (b, name) => {
  let conn!: Connection;
  let sender!: JobWriteSender;
  before(async () => {
    conn = await b.connect();
    // Forced onto the script where the Worker would not use it (sluice): its Lua must agree too.
    sender = new JobWriteSender(conn, 'x');
    await sender.probe({ readClaim: false, xnack: false, idmp: false, deletionPolicies: false });
    assert.equal(sender.usesScript, true);
  });
  after(() => conn.close());

  test('any batch of job writes leaves what its MULTI leaves, and fails with the same first failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 25 }), async (writes) => {
        const run = unique('jw');
        const [viaMulti, viaScript] = [`{${run}}m:`, `{${run}}s:`];
        await setUp(conn, viaMulti);
        await setUp(conn, viaScript);
        const settle = (p: Promise<unknown>): Promise<string> => p.then(
          () => 'ok',
          (err: Error) => `${err.name}: ${err.message}`,
        );
        const multi = await settle(conn.multi(commandsOf(viaMulti, writes)));
        const script = await settle(sender.atomic(commandsOf(viaScript, writes)));
        assert.equal(script, multi);
        assert.deepEqual(await dump(conn, viaScript), await dump(conn, viaMulti));
        await conn.call('DEL', ...((await conn.call('KEYS', `{${run}}*`)) as Value[]).map(String));
      }),
      { numRuns: name === 'redis-server' ? 60 : 25 },
    );
  });

  test('pipelined writes: applied, a failure reported as the pipeline reports it', async () => {
    const p = `{${unique('jwp')}}:`;
    await conn.call('SET', `${p}str`, 'x');
    await assert.rejects(sender.pipelined([['HSET', `${p}h`, 'a', 1], ['HSET', `${p}str`, 'a', 1], ['RPUSH', `${p}l`, 'z']]), /WRONGTYPE/);
    assert.deepEqual(await conn.call('HGETALL', `${p}h`), ['a', '1']);
    assert.deepEqual(await conn.call('LRANGE', `${p}l`, 0, -1), ['z']);
  });

  test('after SCRIPT FLUSH (a restarted server), a batch goes with the script\'s text', async () => {
    const p = `{${unique('jwf')}}:`;
    await conn.call('SCRIPT', 'FLUSH');
    await sender.atomic([['HSET', `${p}h`, 'a', 1], ['ZADD', `${p}z`, 5, 'm']]);
    assert.deepEqual(await conn.call('HGETALL', `${p}h`), ['a', '1']);
    assert.deepEqual(await conn.call('SCRIPT', 'EXISTS', JOB_WRITES_SHA1), [1], 'cached again');
  });

  test(`the Worker's own choice: ${name === 'redis-server' ? 'the script' : 'commands (sluice\'s MULTI costs less than its Lua)'}`, async () => {
    const probed = new JobWriteSender(conn, 'x');
    await probed.probe();
    assert.equal(probed.usesScript, name === 'redis-server');
  });
});

describeEach([backends[0]!], (name) => `a Worker's job writes on ${name}`, (b) => {
  test('a user whose ACL denies EVALSHA gets commands', async () => {
    const admin = await b.connect();
    await admin.call('ACL', 'SETUSER', 'no-evalsha', 'on', '>pw', '~*', '&*', '+@all', '-evalsha');
    const conn = await connect(b.url!.replace('redis://', 'redis://no-evalsha:pw@'));
    const sender = new JobWriteSender(conn, 'x');
    await sender.probe();
    assert.equal(sender.usesScript, false);
    const p = `{${unique('jwacl')}}:`;
    await sender.atomic([['HSET', `${p}h`, 'a', 1], ['ZADD', `${p}z`, 5, 'm']]);
    assert.deepEqual(await admin.call('HGETALL', `${p}h`), ['a', '1'], 'written by a MULTI');
    await conn.close();
    await admin.call('ACL', 'DELUSER', 'no-evalsha');
    await admin.close();
  });

  test('go as script calls, not MULTIs, and the jobs end completed with their results', async () => {
    const conn = await b.connect();
    const stream = unique('jw-worker');
    const seen: string[] = [];
    // Counts what the Worker sends (a Proxy: the connection's inside stays its own).
    const counted = new Proxy(conn, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'call') return (...args: Arg[]) => (seen.push(args[0] === 'EVALSHA' && args[1] === JOB_WRITES_SHA1 ? 'script' : String(args[0])), (value as (...a: Arg[]) => unknown).apply(target, args));
        if (prop === 'multi') return (commands: Arg[][]) => (seen.push('MULTI'), (value as (c: Arg[][]) => unknown).call(target, commands));
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    const producer = new Producer(conn, { stream });
    await producer.addMany(Array.from({ length: 40 }, (_, n) => ({ n })));
    let done = 0;
    const ran = new Map<string, number>(); // job id → its payload's n
    const worker = new Worker<{ n: number }>(counted, { stream, group: 'g', concurrency: 8 }, async (job) => (done++, ran.set(job.id, job.payload.n), job.payload.n * 2));
    await worker.start();
    const deadline = Date.now() + 20_000;
    while (done < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await worker.close();
    assert.equal(done, 40);
    assert.ok(seen.includes('script'), `the writes went by script (${[...new Set(seen)].join(', ')})`);
    assert.ok(!seen.includes('MULTI'), 'no MULTI for a batch of completions');
    const queue = new Queue(conn, { stream });
    assert.equal(ran.size, 40);
    for (const [id, n] of ran) {
      const job = await queue.getJob(id);
      assert.equal(job?.state, 'completed');
      assert.equal(job?.returnValue, n * 2);
    }
    assert.equal(Number((await conn.call('XPENDING', stream, 'g'))?.[0 as never]), 0);
    await conn.close();
  });
});
