// Pub/Sub and MONITOR across connections of `sluice server` (in process): messages published by
// one socket reach the subscribers on others, in RESP2 (arrays) and RESP3 (pushes); subscribers
// that disconnect leave the registry; MONITOR lines; a real client (ioredis) subscribing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { open } from '../../src/client/embedded.js';
import { waitFor } from '../support/wait.js';
import { type RespClient, type Wire, array, bulk, int } from './resp-client.js';
import { useInProcessServer } from './in-process-server.js';

const server = useInProcessServer();
const connect = server.connect;

const push = (...items: Wire[]): Wire => ({ t: 'push', v: items });

/** Every field of this connection's CLIENT INFO line. */
async function clientInfo(c: RespClient): Promise<Record<string, string>> {
  const reply = await c.call('CLIENT', 'INFO');
  assert.ok(reply.t === 'bulk' || reply.t === 'verbatim');
  return Object.fromEntries(String(reply.v).trim().split(' ').map((kv) => kv.split('=', 2) as [string, string]));
}

test('RESP2: a message published on another connection reaches channel and pattern subscribers', async () => {
  const sub = await connect(2);
  const pub = await connect(2);
  sub.send(['SUBSCRIBE', 'news', 'sport']);
  assert.deepEqual(await sub.read(), array([bulk('subscribe'), bulk('news'), int(1)]));
  assert.deepEqual(await sub.read(), array([bulk('subscribe'), bulk('sport'), int(2)]));
  assert.deepEqual(await sub.call('PSUBSCRIBE', 'n*'), array([bulk('psubscribe'), bulk('n*'), int(3)]));
  assert.deepEqual(await pub.call('PUBLISH', 'news', 'hello'), int(2));
  assert.deepEqual(await sub.read(), array([bulk('message'), bulk('news'), bulk('hello')]));
  assert.deepEqual(await sub.read(), array([bulk('pmessage'), bulk('n*'), bulk('news'), bulk('hello')]));
  assert.deepEqual(await pub.call('PUBLISH', 'weather', 'rain'), int(0));
  assert.deepEqual(await pub.call('PUBSUB', 'NUMSUB', 'news', 'weather'), array([bulk('news'), int(1), bulk('weather'), int(0)]));
  const info = await clientInfo(pub);
  assert.equal(info.flags, 'N');
  // The subscriber is in subscribed mode: its CLIENT LIST line shows it (seen from the publisher).
  const list = await pub.call('CLIENT', 'LIST', 'TYPE', 'pubsub');
  assert.match(String((list as { v: string }).v), /flags=P db=0 sub=2 psub=1 ssub=0 /);
  assert.deepEqual(await sub.call('PING'), array([bulk('pong'), bulk('')]));
  assert.deepEqual(
    await sub.call('GET', 'k'),
    { t: 'error', v: "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context" },
  );
  sub.send(['UNSUBSCRIBE', 'news', 'sport']);
  assert.deepEqual(await sub.read(), array([bulk('unsubscribe'), bulk('news'), int(2)]));
  assert.deepEqual(await sub.read(), array([bulk('unsubscribe'), bulk('sport'), int(1)]));
  assert.deepEqual(await sub.call('PUNSUBSCRIBE'), array([bulk('punsubscribe'), bulk('n*'), int(0)]));
  assert.deepEqual(await sub.call('GET', 'k'), bulk(null));
  assert.deepEqual(await pub.call('PUBLISH', 'news', 'nobody'), int(0));
});

test('RESP3: messages arrive as pushes, between the subscriber\'s own replies', async () => {
  const sub = await connect(3);
  const pub = await connect(2);
  assert.deepEqual(await sub.call('SUBSCRIBE', 'ch'), push(bulk('subscribe'), bulk('ch'), int(1)));
  assert.deepEqual(await sub.call('SSUBSCRIBE', 'shard'), push(bulk('ssubscribe'), bulk('shard'), int(1)));
  assert.deepEqual(await pub.call('PUBLISH', 'ch', 'one'), int(1));
  assert.deepEqual(await sub.read(), push(bulk('message'), bulk('ch'), bulk('one')));
  assert.deepEqual(await pub.call('SPUBLISH', 'shard', 'two'), int(1));
  assert.deepEqual(await sub.read(), push(bulk('smessage'), bulk('shard'), bulk('two')));
  // In RESP3 a subscribed client keeps running commands.
  assert.deepEqual(await sub.call('SET', 'k3', 'v'), { t: 'simple', v: 'OK' });
  assert.deepEqual(await sub.call('PING'), { t: 'simple', v: 'PONG' });
  // Its own PUBLISH: the message comes first, then the count.
  sub.send(['PUBLISH', 'ch', 'self']);
  assert.deepEqual(await sub.read(), push(bulk('message'), bulk('ch'), bulk('self')));
  assert.deepEqual(await sub.read(), int(1));
  assert.deepEqual((await clientInfo(sub)).ssub, '1');
  assert.deepEqual(await sub.call('RESET'), { t: 'simple', v: 'RESET' });
  assert.deepEqual(await pub.call('PUBLISH', 'ch', 'after reset'), int(0));
  assert.deepEqual(await pub.call('PUBSUB', 'SHARDNUMSUB', 'shard'), array([bulk('shard'), int(0)]));
});

test('a subscriber that disconnects is removed from the registry', async () => {
  const observer = await connect(2);
  const before = await observer.call('INFO', 'stats');
  const count = (info: Wire, field: string) => Number(new RegExp(`${field}:(\\d+)`).exec(String((info as { v: string }).v))![1]);
  const subs: RespClient[] = [];
  for (let i = 0; i < 5; i++) {
    const s = await connect(i % 2 === 0 ? 2 : 3);
    s.send(['SUBSCRIBE', 'gone', `only-${i}`]);
    s.send(['PSUBSCRIBE', `pattern-${i}-*`]);
    for (let j = 0; j < 3; j++) await s.read();
    subs.push(s);
  }
  assert.deepEqual(await observer.call('PUBSUB', 'NUMSUB', 'gone'), array([bulk('gone'), int(5)]));
  assert.equal(count(await observer.call('INFO', 'stats'), 'pubsub_channels'), count(before, 'pubsub_channels') + 6);
  assert.equal(count(await observer.call('INFO', 'stats'), 'pubsub_patterns'), count(before, 'pubsub_patterns') + 5);
  for (const s of subs) s.close();
  await waitFor(async () => {
    const reply = await observer.call('PUBSUB', 'NUMSUB', 'gone');
    return reply.t === 'array' && reply.v?.[1]?.t === 'int' && reply.v[1].v === 0n;
  }, 'subscribers to leave');
  const after = await observer.call('INFO', 'stats');
  assert.equal(count(after, 'pubsub_channels'), count(before, 'pubsub_channels'));
  assert.equal(count(after, 'pubsub_patterns'), count(before, 'pubsub_patterns'));
  assert.deepEqual(await observer.call('PUBLISH', 'gone', 'x'), int(0));
  assert.deepEqual(await observer.call('PUBSUB', 'CHANNELS', 'only-*'), array([]));
});

test('MONITOR: one line per command run elsewhere, quoted as sdscatrepr, credentials redacted', async () => {
  const monitor = await connect(2);
  const other = await connect(2);
  const port = Number(String((await clientInfo(other)).addr).split(':')[1]);
  assert.deepEqual(await monitor.call('MONITOR'), { t: 'simple', v: 'OK' });
  const lines: string[] = [];
  const next = async () => {
    const w = await monitor.read();
    assert.equal(w.t, 'simple');
    const m = /^(\d+)\.(\d{6}) \[(\d+) 127\.0\.0\.1:(\d+)\] (.*)$/.exec((w as { v: string }).v);
    assert.ok(m, `monitor line ${JSON.stringify(w)}`);
    assert.equal(Number(m[4]), port);
    lines.push(`[${m[3]}] ${m[5]}`);
  };
  await other.call('SET', 'k', 'a"b\\c\r\n\x01 \u00e9');
  await other.call('AUTH', 'secret');
  await other.call('HELLO', '2', 'AUTH', 'default', 'pw');
  await other.call('SELECT', '2');
  await other.call('GET', 'k');
  await other.call('SELECT', '0');
  await other.call('CONFIG', 'GET', 'maxmemory'); // admin: not shown
  await other.call('MULTI');
  await other.call('INCR', 'n');
  await other.call('EXEC');
  for (let i = 0; i < 8; i++) await next();
  assert.deepEqual(lines, [
    '[0] "SET" "k" "a\\"b\\\\c\\r\\n\\x01 \\xc3\\xa9"',
    '[0] "AUTH" "(redacted)"',
    '[0] "HELLO" "2" "AUTH" "(redacted)" "(redacted)"',
    '[2] "SELECT" "2"',
    '[2] "GET" "k"',
    '[0] "SELECT" "0"',
    '[0] "MULTI"',
    '[0] "INCR" "n"',
  ]);
  await next();
  assert.equal(lines.at(-1), '[0] "EXEC"');
  // The monitor is flagged O, may not touch the keyspace, and leaves with RESET.
  assert.equal((await clientInfo(monitor)).flags, 'O');
  // Its own commands are shown to it too, after their reply, as in Redis.
  assert.match(String((await monitor.read() as { v: string }).v), /\] "CLIENT" "INFO"$/);
  assert.deepEqual(await monitor.call('GET', 'k'), { t: 'error', v: "ERR Replica can't interact with the keyspace" });
  assert.deepEqual(await monitor.call('RESET'), { t: 'simple', v: 'RESET' });
  await other.call('SET', 'k', 'after');
  assert.deepEqual(await monitor.call('PING'), { t: 'simple', v: 'PONG' });
  assert.equal(monitor.queued, 0);
});

test('MONITOR shows EVAL and FCALL before the commands their script runs, which show as [db lua]', async () => {
  const monitor = await connect(2);
  const other = await connect(2);
  try {
    assert.deepEqual(await monitor.call('MONITOR'), { t: 'simple', v: 'OK' });
    const line = async (): Promise<string> => String(((await monitor.read()) as { v: string }).v).replace(/^\d+\.\d{6} /, '');
    await other.call('EVAL', "return redis.call('set', KEYS[1], ARGV[1])", '1', 'mk', 'v');
    assert.match(await line(), /^\[0 127\.0\.0\.1:\d+\] "EVAL" "return redis\.call\('set', KEYS\[1\], ARGV\[1\]\)" "1" "mk" "v"$/);
    assert.equal(await line(), '[0 lua] "set" "mk" "v"');
    await other.call('FUNCTION', 'LOAD', 'REPLACE', "#!lua name=monlib\nredis.register_function('monfn', function(keys) return redis.call('get', keys[1]) end)");
    assert.match(await line(), /^\[0 127\.0\.0\.1:\d+\] "FUNCTION" "LOAD" "REPLACE" /);
    await other.call('FCALL', 'monfn', '1', 'mk');
    assert.match(await line(), /^\[0 127\.0\.0\.1:\d+\] "FCALL" "monfn" "1" "mk"$/);
    assert.equal(await line(), '[0 lua] "get" "mk"');
    await other.call('FUNCTION', 'DELETE', 'monlib');
  } finally {
    monitor.close();
    other.close();
  }
});

test('the embedded client refuses SUBSCRIBE and MONITOR with an error instead of waiting', async () => {
  const db = await open();
  try {
    const session = db.session();
    await assert.rejects(session.call('SUBSCRIBE', 'ch'), /SUBSCRIBE is not supported by the embedded client/);
    await assert.rejects(session.call('MONITOR'), /MONITOR is not supported by the embedded client/);
    assert.equal(await session.call('PUBLISH', 'ch', 'm'), 0);
  } finally {
    await db.close();
  }
});

test('ioredis subscribe and psubscribe against sluice server', async () => {
  const subscriber = new Redis({ port: server.port, host: '127.0.0.1' });
  const publisher = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const received: string[] = [];
    subscriber.on('message', (channel: string, message: string) => received.push(`message ${channel} ${message}`));
    subscriber.on('pmessage', (pattern: string, channel: string, message: string) =>
      received.push(`pmessage ${pattern} ${channel} ${message}`));
    assert.equal(await subscriber.subscribe('io:a', 'io:b'), 2);
    assert.equal(await subscriber.psubscribe('io:*'), 3);
    assert.equal(await publisher.publish('io:a', 'x'), 2);
    assert.equal(await publisher.publish('io:c', 'y'), 1);
    await waitFor(() => received.length === 3, 'three deliveries');
    assert.deepEqual(received, ['message io:a x', 'pmessage io:* io:a x', 'pmessage io:* io:c y']);
    assert.deepEqual(await publisher.pubsub('NUMPAT'), 1);
    // (ioredis's argument-less unsubscribe() never resolves, against Redis too: name them.)
    assert.equal(await subscriber.unsubscribe('io:a', 'io:b'), 1);
    assert.equal(await subscriber.punsubscribe('io:*'), 0);
    assert.equal(await subscriber.get('io:none'), null);
  } finally {
    subscriber.disconnect();
    publisher.disconnect();
  }
});
