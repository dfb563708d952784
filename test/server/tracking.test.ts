// Client-side caching across connections of `sluice server` (in process): CLIENT TRACKING's
// invalidations as RESP3 pushes after the client's own reply, as __redis__:invalidate messages to
// a RESP2 redirect client (ioredis too), expiry and FLUSHALL, tracking-redir-broken, BCAST with
// NOLOOP, scripts, a served BLMOVE, tracking-table-max-keys and the INFO / CLIENT LIST fields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { waitFor, within } from '../support/wait.js';
import { type RespClient, type Wire, array, bulk, int } from './resp-client.js';
import { useInProcessServer } from './in-process-server.js';

const server = useInProcessServer();
const connect = server.connect;

const ok: Wire = { t: 'simple', v: 'OK' };
const push = (...items: Wire[]): Wire => ({ t: 'push', v: items });
const invalidate = (...keys: string[]): Wire => push(bulk('invalidate'), array(keys.map(bulk)));
const message = (keys: string[] | null): Wire => array([bulk('message'), bulk('__redis__:invalidate'), keys === null ? bulk(null) : array(keys.map(bulk))]);

async function clientId(c: RespClient): Promise<string> {
  const id = await c.call('CLIENT', 'ID');
  assert.equal(id.t, 'int');
  return String(id.v);
}

async function infoField(c: RespClient, field: string): Promise<string> {
  const reply = await c.call('INFO', 'everything');
  const text = String((reply as { v: string }).v);
  const m = new RegExp(`\\r\\n${field}:([^\\r]*)\\r\\n`).exec(text);
  assert.ok(m !== null, `INFO has ${field}`);
  return m[1]!;
}

/** Reads until a reply, and asserts nothing else is waiting after it. */
async function settle(c: RespClient): Promise<void> {
  assert.deepEqual(await c.call('PING'), { t: 'simple', v: 'PONG' });
  assert.equal(c.queued, 0);
}

test('RESP3: a key the client read is invalidated once, after the reply of the command that changed it', async () => {
  const r = await connect(3);
  const other = await connect(2);
  await r.call('CLIENT', 'TRACKING', 'on');
  await other.call('SET', 'rk1', '1');
  await other.call('SET', 'rk2', '1');
  assert.deepEqual(await r.call('GET', 'rk1'), bulk('1'));
  // Another client's write: the push arrives on its own.
  await other.call('INCR', 'rk2'); // never read: nothing
  await other.call('INCR', 'rk1');
  assert.deepEqual(await r.read(), invalidate('rk1'));
  await other.call('INCR', 'rk1'); // forgotten once invalidated
  await settle(r);
  // Its own write: the reply first, then the push.
  await r.call('HSET', 'rh', 'f', '1');
  await r.call('HGET', 'rh', 'f');
  assert.deepEqual(await r.call('HDEL', 'rh', 'f'), int(1));
  assert.deepEqual(await r.read(), invalidate('rh'));
  // A transaction: after EXEC's reply.
  await r.call('GET', 'rk2');
  await r.call('MULTI');
  await r.call('INCR', 'rk2');
  assert.deepEqual(await r.call('EXEC'), array([int(3)]));
  assert.deepEqual(await r.read(), invalidate('rk2'));
  // FLUSHALL: a null, meaning every key.
  await r.call('GET', 'rk1');
  assert.deepEqual(await r.call('FLUSHALL'), ok);
  assert.deepEqual(await r.read(), push(bulk('invalidate'), { t: 'null' }));
  await r.call('CLIENT', 'TRACKING', 'off');
  await settle(r);
});

test('RESP3: an expired key is invalidated (active expiry)', async () => {
  const r = await connect(3);
  await r.call('CLIENT', 'TRACKING', 'on');
  await r.call('SET', 'exp1', 'v', 'PX', '1000');
  assert.deepEqual(await r.call('GET', 'exp1'), bulk('v'));
  assert.deepEqual(await within(r.read(), 'the expiry invalidation'), invalidate('exp1'));
  await r.call('CLIENT', 'TRACKING', 'off');
});

test('RESP2 with REDIRECT: the subscribed redirect client gets messages on __redis__:invalidate, FLUSHDB a null', async () => {
  const redir = await connect(2);
  const id = await clientId(redir);
  assert.deepEqual(await redir.call('SUBSCRIBE', '__redis__:invalidate'), array([bulk('subscribe'), bulk('__redis__:invalidate'), int(1)]));
  const r = await connect(2);
  const other = await connect(2);
  assert.deepEqual(await r.call('CLIENT', 'TRACKING', 'on', 'REDIRECT', id), ok);
  assert.deepEqual(await r.call('CLIENT', 'GETREDIR'), int(Number(id)));
  await other.call('MSET', 'a2', '1', 'b2', '1');
  await r.call('MGET', 'a2', 'b2');
  await other.call('DEL', 'a2', 'b2');
  assert.deepEqual(await redir.read(), message(['a2']));
  assert.deepEqual(await redir.read(), message(['b2']));
  await r.call('GET', 'a2');
  await other.call('FLUSHDB');
  assert.deepEqual(await redir.read(), message(null));
  // The tracking client itself (RESP2, redirecting) gets nothing in its own stream.
  await settle(r);
  await r.call('CLIENT', 'TRACKING', 'off');
  assert.deepEqual(await r.call('CLIENT', 'GETREDIR'), int(-1));
});

test('ioredis: a subscriber receives the invalidations of the keys another connection reads', async () => {
  // RESP2: ioredis 6 speaks RESP3 by default, where it drops the invalidate pushes it has no use for.
  const sub = new Redis({ port: server.port, lazyConnect: true, protocol: 2 });
  const reader = new Redis({ port: server.port, lazyConnect: true });
  try {
    await sub.connect();
    await reader.connect();
    const received: string[][] = [];
    sub.on('messageBuffer', (channel: Buffer, msg: unknown) => {
      if (channel.toString() === '__redis__:invalidate') received.push((msg as Buffer[]).map((b) => b.toString()));
    });
    const subId = String(await sub.client('ID'));
    await sub.subscribe('__redis__:invalidate');
    assert.equal(await reader.call('CLIENT', 'TRACKING', 'on', 'REDIRECT', subId), 'OK');
    await reader.set('io:k', 'v1');
    assert.equal(await reader.get('io:k'), 'v1');
    await reader.set('io:k', 'v2');
    await waitFor(() => received.length === 1, 'the invalidation message');
    assert.deepEqual(received, [['io:k']]);
  } finally {
    sub.disconnect();
    reader.disconnect();
  }
});

test('a redirect client that went away: tracking-redir-broken (RESP3), broken_redirect in TRACKINGINFO, R in CLIENT LIST', async () => {
  const redir = await connect(2);
  const id = await clientId(redir);
  const r = await connect(3);
  await r.call('CLIENT', 'TRACKING', 'on', 'REDIRECT', id);
  await r.call('GET', 'brk');
  assert.deepEqual(await redir.call('QUIT'), ok);
  const other = await connect(2);
  await other.call('SET', 'brk', '1');
  assert.deepEqual(await r.read(), push(bulk('tracking-redir-broken'), int(Number(id))));
  const info = await r.call('CLIENT', 'TRACKINGINFO');
  assert.deepEqual(info, {
    t: 'map',
    v: [
      [bulk('flags'), { t: 'set', v: [bulk('on'), bulk('broken_redirect')] }],
      [bulk('redirect'), int(Number(id))],
      [bulk('prefixes'), array([])],
    ],
  });
  const line = String((await r.call('CLIENT', 'INFO') as { v: string }).v);
  assert.match(line, / flags=tR /);
  assert.match(line, new RegExp(` redir=${id} `));
  await r.call('CLIENT', 'TRACKING', 'off');
});

test('BCAST: keys under the prefixes, NOLOOP leaving out the client\'s own changes', async () => {
  const redir = await connect(3);
  const id = await clientId(redir);
  const r = await connect(2);
  const other = await connect(2);
  assert.deepEqual(await r.call('CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'bc:', 'REDIRECT', id, 'NOLOOP'), ok);
  await r.call('SET', 'bc:mine', '1'); // its own change: left out
  await other.call('SET', 'bc:theirs', '1');
  await other.call('SET', 'elsewhere', '1');
  assert.deepEqual(await redir.read(), invalidate('bc:theirs'));
  await r.call('MSET', 'bc:x', '1', 'bc:y', '2');
  await other.call('MSET', 'bc:y', '3', 'bc:z', '4');
  assert.deepEqual(await redir.read(), invalidate('bc:y', 'bc:z'));
  assert.match(String((await r.call('CLIENT', 'INFO') as { v: string }).v), / flags=tB /);
  assert.equal(await infoField(r, 'tracking_total_prefixes'), '1');
  await r.call('CLIENT', 'TRACKING', 'off');
  assert.equal(await infoField(r, 'tracking_total_prefixes'), '0');
  await settle(redir);
});

test('a script\'s read command remembers the script\'s declared keys for its caller', async () => {
  const r = await connect(3);
  const other = await connect(2);
  await r.call('CLIENT', 'TRACKING', 'on');
  await r.call('EVAL', "redis.call('set', 'sc3', 'x')", '2', 'sc1', 'sc2'); // no read: nothing remembered
  await other.call('MSET', 'sc1', '1', 'sc2', '1');
  await settle(r);
  await r.call('EVAL', "return redis.call('get', 'sc3')", '2', 'sc1', 'sc2');
  await other.call('MSET', 'sc2', '2', 'sc1', '2');
  assert.deepEqual(await r.read(), invalidate('sc2'));
  assert.deepEqual(await r.read(), invalidate('sc1'));
  await r.call('CLIENT', 'TRACKING', 'off');
});

test('a blocked BLMOVE served by another client\'s push: its reply first, then the invalidation of its target', async () => {
  const r = await connect(3);
  const other = await connect(2);
  await other.call('RPUSH', 'bl:dst', 'a');
  await r.call('CLIENT', 'TRACKING', 'on');
  await r.call('LRANGE', 'bl:dst', '0', '-1');
  r.send(['BLMOVE', 'bl:src', 'bl:dst', 'LEFT', 'LEFT', '0']);
  await waitFor(async () => (await other.call('INFO', 'clients') as { v: string }).v.includes('blocked_clients:1'), 'BLMOVE to block');
  await other.call('RPUSH', 'bl:src', 'foo');
  assert.deepEqual(await r.read(), bulk('foo'));
  assert.deepEqual(await r.read(), invalidate('bl:dst'));
  await r.call('CLIENT', 'TRACKING', 'off');
});

test('OPTIN with CLIENT CACHING yes for the next command only; INFO counts clients, keys and items', async () => {
  const r = await connect(3);
  const r2 = await connect(3);
  const other = await connect(2);
  await other.call('FLUSHALL');
  await r.call('CLIENT', 'TRACKING', 'on', 'OPTIN');
  await r.call('GET', 'oi1'); // not remembered
  await r.call('CLIENT', 'CACHING', 'yes');
  await r.call('GET', 'oi2'); // remembered
  await r.call('GET', 'oi3'); // CACHING lasted one command
  await r2.call('CLIENT', 'TRACKING', 'on');
  await r2.call('MGET', 'oi2', 'oi4');
  assert.equal(await infoField(other, 'tracking_clients'), '2');
  assert.equal(await infoField(other, 'tracking_total_keys'), '2');
  assert.equal(await infoField(other, 'tracking_total_items'), '3');
  await other.call('MSET', 'oi1', '1', 'oi2', '1', 'oi3', '1');
  assert.deepEqual(await r.read(), invalidate('oi2'));
  assert.deepEqual(await r2.read(), invalidate('oi2'));
  await settle(r);
  await r.call('CLIENT', 'TRACKING', 'off');
  await r2.call('CLIENT', 'TRACKING', 'off');
  assert.equal(await infoField(other, 'tracking_clients'), '0');
});

test('tracking-table-max-keys: keys past the limit are dropped, their clients told', async () => {
  const r = await connect(3);
  const other = await connect(2);
  await other.call('FLUSHALL');
  await r.call('CLIENT', 'TRACKING', 'on');
  for (let i = 0; i < 5; i++) await r.call('GET', `lim${i}`);
  assert.equal(await infoField(other, 'tracking_total_keys'), '5');
  await other.call('CONFIG', 'SET', 'tracking-table-max-keys', '2');
  try {
    // Applied before the next command (and every 100 ms): three keys go, each invalidated.
    const dropped = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const msg = await within(r.read(), 'an eviction invalidation');
      assert.equal(msg.t, 'push');
      dropped.add(String(((msg as { v: Wire[] }).v[1] as { v: Wire[] }).v.map((k) => (k as { v: string }).v)));
    }
    assert.equal(dropped.size, 3);
    assert.equal(await infoField(other, 'tracking_total_keys'), '2');
  } finally {
    await other.call('CONFIG', 'SET', 'tracking-table-max-keys', '1000000');
  }
  await r.call('CLIENT', 'TRACKING', 'off');
});
