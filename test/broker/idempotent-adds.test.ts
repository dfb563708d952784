// Idempotent adds on every backend: an add sent twice, as ioredis resends the commands left
// unanswered when a link drops, adds one entry (XADD IDMP on sluice server and the embedded
// engine, the script on redis-server 7); idempotencyKey and producerId deduplicate alike
// everywhere; at most 100 adds of a producer (1,000 with the script) are unanswered at once (what the server
// remembers); idempotent: false is plain XADD. The real thing (a server killed and restarted
// while a producer adds) is test/faults/duplicate-adds.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Arg, Connection, Value } from '../../src/client/connection.js';
import { IDEMPOTENCE_WINDOW, SCRIPT_IDEMPOTENCE_WINDOW, scriptIidsKey } from '../../src/broker/idempotence.js';
import { Producer } from '../../src/broker/producer.js';
import { ADD_BATCH_SCRIPT, ADD_BATCH_SHA1 } from '../../src/broker/scripted-batch.js';
import { addsInBatch } from '../support/batch-adds.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';

const isAdd = (c: Arg[]): boolean => c[0] === 'XADD' || c[0] === 'EVALSHA' || c[0] === 'EVAL';

/** The adds a command makes: a batch of scripted adds (scripted-batch.ts) makes several. */
function addsIn(c: Arg[]): number {
  if (!isAdd(c)) return 0;
  if (c[1] !== ADD_BATCH_SHA1 && c[1] !== ADD_BATCH_SCRIPT) return 1;
  return addsInBatch(c);
}

/**
 * A connection that sends every add twice and answers with the second reply: what a client
 * library's resend after a reconnect looks like when the server had applied the first send.
 */
function resending(conn: Connection): Connection {
  return Object.assign(Object.create(conn) as Connection, {
    call: async (...args: Arg[]): Promise<Value> => {
      if (!isAdd(args)) return conn.call(...args);
      await conn.call(...args);
      return conn.call(...args);
    },
    pipeline: async (commands: Arg[][]): Promise<Array<Value | Error>> => {
      const adds = commands.filter(isAdd);
      const replies = await conn.pipeline([...commands, ...adds]);
      let resent = commands.length;
      return commands.map((c, i) => (isAdd(c) ? replies[resent++]! : replies[i]!));
    },
  });
}

/** A connection that counts the adds sent and not yet answered, keeping the highest count. */
function counting(conn: Connection): { conn: Connection; maxInFlight: () => number } {
  let now = 0;
  let max = 0;
  const track = async <R>(n: number, p: () => Promise<R>): Promise<R> => {
    now += n;
    max = Math.max(max, now);
    try {
      return await p();
    } finally {
      now -= n;
    }
  };
  const wrapped = Object.assign(Object.create(conn) as Connection, {
    call: (...args: Arg[]) => track(addsIn(args), () => conn.call(...args)),
    pipeline: (commands: Arg[][]) => track(commands.reduce((n, c) => n + addsIn(c), 0), () => conn.pipeline(commands)),
  });
  return { conn: wrapped, maxInFlight: () => max };
}

async function entries(conn: Connection, stream: string): Promise<Array<{ id: string; payload: string }>> {
  const rows = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
  return rows.map(([id, fields]) => ({ id, payload: fields[fields.indexOf('payload') + 1]! }));
}

describeEach(backends, (name) => `idempotent adds on ${name}`, (b, name) => {
  let conn!: Connection;
  before(async () => (conn = await b.connect()));
  after(() => conn.close());

  test('adds sent twice (a resend after a reconnect) are in the stream once, with the first id', async () => {
    const stream = unique('resent');
    const producer = new Producer(resending(conn), { jobs: false, stream });
    const one = await producer.add({ n: 0 });
    const many = await producer.addMany(Array.from({ length: 250 }, (_, i) => ({ n: i + 1 })));
    const stored = await entries(conn, stream);
    assert.equal(stored.length, 251, 'no entry added twice');
    assert.deepEqual(stored.map((e) => e.id), [one, ...many]);
  });

  test('the same payload added twice without a key is added twice (ids, not content, tell adds apart)', async () => {
    const stream = unique('same-payload');
    const producer = new Producer(conn, { jobs: false, stream });
    await producer.add({ same: true });
    await producer.add({ same: true });
    await producer.addMany([{ same: true }, { same: true }]);
    assert.equal(Number(await conn.call('XLEN', stream)), 4);
  });

  test('idempotencyKey alone: a second add with the key adds nothing and returns the first id', async () => {
    const stream = unique('key');
    const producer = new Producer(conn, { jobs: false, stream });
    const first = await producer.add({ order: 7 }, { idempotencyKey: 'order-7' });
    assert.equal(await producer.add({ order: 7, again: true }, { idempotencyKey: 'order-7' }), first);
    const [x, y] = await producer.addMany([{ payload: 8, idempotencyKey: 'order-8' }, { payload: 8, idempotencyKey: 'order-8' }], { keyed: true });
    assert.equal(x, y);
    // Keys and the producer's own numbering never collide: key '0' is not the first add's id.
    await producer.add({ plain: true });
    await producer.add({ keyed: 0 }, { idempotencyKey: '0' });
    assert.equal(Number(await conn.call('XLEN', stream)), 4);
  });

  test('producerId without a key deduplicates by content, with a key by the key, on every server', async () => {
    const stream = unique('pid');
    const p1 = new Producer(conn, { jobs: false, stream, producerId: 'shop-1' });
    const auto = await p1.add({ order: 2 });
    assert.equal(await p1.add({ order: 2 }), auto);
    // Another Producer object with the same producerId (a restarted process) is the same producer.
    const p2 = new Producer(conn, { jobs: false, stream, producerId: 'shop-1' });
    assert.equal(await p2.add({ order: 2 }), auto);
    const keyed = await p1.add({ order: 3 }, { idempotencyKey: 'order-3' });
    assert.equal(await p2.add({ order: 3 }, { idempotencyKey: 'order-3' }), keyed);
    assert.equal(Number(await conn.call('XLEN', stream)), 2);
  });

  // The script (redis-server) remembers 1,000 iids a producer, IDMP 100: as many in flight.
  const window = name === 'redis-server' ? SCRIPT_IDEMPOTENCE_WINDOW : IDEMPOTENCE_WINDOW;

  test('at most the remembered window of adds unanswered at once, however many are asked for', async () => {
    const stream = unique('window');
    const { conn: c, maxInFlight } = counting(conn);
    const producer = new Producer(c, { jobs: false, stream });
    const many = 4 * window + 50;
    await Promise.all([producer.addMany(Array.from({ length: many }, (_, i) => i)), ...Array.from({ length: 30 }, (_, i) => producer.add(1e6 + i))]);
    assert.equal(Number(await conn.call('XLEN', stream)), many + 30);
    assert.ok(maxInFlight() <= window, `${maxInFlight()} unanswered at once`);
    assert.ok(maxInFlight() > window / 2, `${maxInFlight()} unanswered at once: slices go without waiting for the ones before`);
  });

  test('idempotent: false is plain XADD: a resend adds the entry again', async () => {
    const stream = unique('plain');
    const producer = new Producer(resending(conn), { jobs: false, stream, idempotent: false });
    await producer.add({ n: 1 });
    assert.equal(Number(await conn.call('XLEN', stream)), 2);
    await assert.rejects(producer.add({ n: 2 }, { idempotencyKey: 'k' }), /idempotencyKey: this Producer was made with idempotent: false/);
    assert.throws(() => new Producer(conn, { jobs: false, stream, idempotent: false, producerId: 'p' }), /producerId needs idempotent adds/);
  });

  test('a server with neither IDMP nor EVAL: plain XADD by default; producerId and idempotencyKey are refused', async () => {
    const stream = unique('neither');
    const bare = Object.assign(Object.create(conn) as Connection, {
      call: async (...args: Arg[]): Promise<Value> => (args[0] === 'COMMAND' && ['XCFGSET', 'EVAL'].includes(String(args[2])) ? [null] : conn.call(...args)),
    });
    const plain = new Producer(bare, { jobs: false, stream });
    const id = await plain.add({ n: 1 });
    assert.deepEqual(((await conn.call('XRANGE', stream, '-', '+')) as Value[][]).map((e) => e[0]), [id]);
    await assert.rejects(plain.add({ n: 2 }, { idempotencyKey: 'k' }), /idempotencyKey: this server can deduplicate adds in no way \(neither XADD IDMP nor EVAL\)/);
    await assert.rejects(new Producer(bare, { jobs: false, stream, producerId: 'p' }).add({ n: 3 }), /producerId: this server can deduplicate adds in no way/);
    assert.equal(Number(await conn.call('XLEN', stream)), 1);
  });

  test('what the server remembers stays bounded: the last 1,000 ids of a producer', { skip: name === 'redis-server' ? false : 'the script\'s keys (redis-server 7); IDMP keeps its own, bounded by IDMP-MAXSIZE' }, async () => {
    const stream = unique('bounded');
    const producer = new Producer(conn, { jobs: false, stream, producerId: 'bounded' });
    const adds = SCRIPT_IDEMPOTENCE_WINDOW + 150;
    await producer.addMany(Array.from({ length: adds }, (_, i) => ({ payload: i, idempotencyKey: `k${i}` })), { keyed: true });
    const iids = scriptIidsKey(stream, 'bounded');
    assert.equal(Number(await conn.call('HLEN', iids)), SCRIPT_IDEMPOTENCE_WINDOW);
    assert.equal(Number(await conn.call('LLEN', `${iids}:order`)), SCRIPT_IDEMPOTENCE_WINDOW);
    const ttl = Number(await conn.call('PTTL', iids));
    assert.ok(ttl > 0 && ttl <= 100_000, `PTTL ${ttl}`);
    // The last key is remembered, the first forgotten (added again).
    await producer.add(adds - 1, { idempotencyKey: `k${adds - 1}` });
    await producer.add(0, { idempotencyKey: 'k0' });
    assert.equal(Number(await conn.call('XLEN', stream)), adds + 1);
  });
});
