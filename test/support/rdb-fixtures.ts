// A dataset with every type sluice has, in the encodings Redis 7.0 picks (small and large
// hashes, sets, sorted sets, quicklists of several nodes, streams with tombstones, groups,
// PELs and consumers), and a snapshot of it read back through commands, so two servers can be
// compared after DUMP/RESTORE or an RDB file moved between them.
import type { Redis } from 'ioredis';

type Call = (...args: Array<string | number | Buffer>) => Promise<unknown>;

/** Fills the current database; `keys` of every type are returned for snapshot(). */
export async function populate(client: Redis, prefix = ''): Promise<string[]> {
  const call: Call = (...args) => client.call(String(args[0]), ...args.slice(1));
  const k = (name: string) => `${prefix}${name}`;
  await call('SET', k('str'), 'hello');
  await call('SET', k('int'), '12345');
  await call('SET', k('neg'), '-70000');
  await call('SET', k('big-int'), '12345678901234');
  await call('SET', k('long'), 'abc'.repeat(200)); // compressed with LZF by redis-server
  await call('SET', k('ttl'), 'soon', 'PX', '1000000');
  await call('RPUSH', k('list'), 'a', 'b', '1', '-2', '300', '70000', '-9000000000', 'x'.repeat(70));
  for (let i = 0; i < 400; i++) await call('RPUSH', k('long-list'), `element-${i}-${'y'.repeat(i % 50)}`);
  await call('HSET', k('hash'), 'f1', 'v1', 'f2', '2', 'n', '-1');
  for (let i = 0; i < 200; i++) await call('HSET', k('big-hash'), `field${i}`, `value${i}`);
  await call('HSET', k('wide-hash'), 'f', 'v'.repeat(100));
  await call('SADD', k('intset'), '1', '2', '-5', '100000', '5000000000');
  await call('SADD', k('set'), 'a', 'b', 'c', '1');
  for (let i = 0; i < 600; i++) await call('SADD', k('big-intset'), String(i * 3));
  await call('ZADD', k('zset'), '1', 'a', '2.5', 'b', '-inf', 'c', '0.1', 'd', '1e300', 'e');
  for (let i = 0; i < 200; i++) await call('ZADD', k('big-zset'), String(i / 7), `m${i}`);
  const s = k('stream');
  for (let i = 1; i <= 250; i++) await call('XADD', s, `${1000 + i}-${i % 3}`, 'n', String(i), 'payload', `p${i}`);
  await call('XADD', s, '5000-0', 'other', 'fields', 'x', '1');
  await call('XDEL', s, '1001-1', '1100-1', '1150-0');
  await call('XGROUP', 'CREATE', s, 'g1', '0');
  await call('XREADGROUP', 'GROUP', 'g1', 'alice', 'COUNT', '20', 'STREAMS', s, '>');
  await call('XREADGROUP', 'GROUP', 'g1', 'bob', 'COUNT', '5', 'STREAMS', s, '>');
  await call('XACK', s, 'g1', '1002-2', '1003-0');
  await call('XCLAIM', s, 'g1', 'carol', '0', '1004-1', 'RETRYCOUNT', '7');
  await call('XGROUP', 'CREATE', s, 'g2', '$');
  await call('XGROUP', 'CREATECONSUMER', s, 'g2', 'idle');
  await call('XADD', k('one-entry'), '1-1', 'a', 'b');
  await call('XADD', k('emptied'), '1-1', 'a', 'b');
  await call('XDEL', k('emptied'), '1-1');
  return ['str', 'int', 'neg', 'big-int', 'long', 'ttl', 'list', 'long-list', 'hash', 'big-hash', 'wide-hash', 'intset', 'set', 'big-intset', 'zset', 'big-zset', 'stream', 'one-entry', 'emptied'].map(k);
}

/**
 * Drops the XINFO fields that are not data: sluice's Redis 7.2 additions ("active-time",
 * "inactive") and "radix-tree-nodes" (an internal of Redis's rax).
 */
export function scrubInfo(reply: unknown, ignore: string[] = []): unknown {
  if (!Array.isArray(reply)) return reply;
  const out: unknown[] = [];
  for (let i = 0; i < reply.length; i++) {
    const v = reply[i];
    const name = Buffer.isBuffer(v) ? v.toString() : v;
    if (i % 2 === 0 && typeof name === 'string' && (['active-time', 'inactive', 'radix-tree-nodes'].includes(name) || ignore.includes(name))) {
      i++;
      continue;
    }
    out.push(scrubInfo(v, ignore));
  }
  return out;
}

/** What the keys hold, read through commands (sets sorted: a hashtable set's order is not data). */
export async function snapshot(client: Redis, keys: string[], ignore: string[] = []): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const key of keys) {
    const type = await client.type(key);
    const expireAt = await client.call('PEXPIRETIME', key);
    let value: unknown;
    switch (type) {
      case 'string':
        value = await client.getBuffer(key);
        break;
      case 'list':
        value = await client.lrangeBuffer(key, 0, -1);
        break;
      case 'hash':
        value = await client.callBuffer('HGETALL', key);
        break;
      case 'set':
        value = (await client.smembers(key)).sort();
        break;
      case 'zset':
        value = await client.call('ZRANGE', key, '0', '-1', 'WITHSCORES');
        break;
      case 'stream':
        value = [
          scrubInfo(await client.callBuffer('XINFO', 'STREAM', key, 'FULL'), ignore),
          scrubInfo(await client.call('XINFO', 'GROUPS', key), ignore),
          await client.call('XRANGE', key, '-', '+'),
        ];
        break;
      default:
        value = null;
    }
    out.push({ key, type, expireAt, value });
  }
  return out;
}
