// Key eviction past maxmemory, on sluice server and redis-server 7.0.15 alike: the scenarios of
// Redis's own unit/maxmemory (external:skip there, so ported here), each policy's choice of
// victims (recent keys kept by LRU, frequent ones by LFU, keys without TTL by volatile-*), the
// `evicted` keyspace events and INFO's evicted_keys, and sluice's AOF logging each eviction.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServerProcess, startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient } from './resp-client.js';

after(stopAll);

const servers = Promise.all([startSluiceProcess(), startRedisProcess()]);

async function infoField(c: RespClient, field: string): Promise<number> {
  const info = String(((await c.call('INFO')) as { v: string }).v);
  const match = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  assert.ok(match !== null, `INFO has no ${field}`);
  return Number(match[1]);
}

let serial = 0;
const randomKey = () => `key:${serial++}:${Math.random().toString(36).slice(2)}`;

/** FLUSHALL, then a limit 100 KiB above the memory in use, with `policy` (as unit/maxmemory). */
async function limitAbove(c: RespClient, policy: string): Promise<number> {
  await c.call('CONFIG', 'SET', 'maxmemory', '0');
  await c.call('FLUSHALL');
  const limit = (await infoField(c, 'used_memory')) + 100 * 1024;
  await c.call('CONFIG', 'SET', 'maxmemory', String(limit));
  await c.call('CONFIG', 'SET', 'maxmemory-policy', policy);
  return limit;
}

/** Adds keys with `write` until used memory is within 4 KiB of the limit; returns how many. */
async function fillToLimit(c: RespClient, limit: number, write: (n: number) => Promise<unknown>): Promise<number> {
  for (let n = 0; ; n++) {
    await write(n);
    if ((await infoField(c, 'used_memory')) + 4096 > limit) {
      assert.ok(n > 10);
      return n + 1;
    }
  }
}

async function forEachServer(body: (c: RespClient, server: ServerProcess) => Promise<void>): Promise<void> {
  for (const server of await servers) {
    const c = await RespClient.connect(server.port);
    try {
      await body(c, server);
    } catch (err) {
      (err as Error).message = `on ${server.name}: ${(err as Error).message}`;
      throw err;
    } finally {
      await c.call('CONFIG', 'SET', 'maxmemory', '0');
      await c.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      c.close();
    }
  }
}

const ALL_POLICIES = ['allkeys-random', 'allkeys-lru', 'allkeys-lfu', 'volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl'];

test('every policy keeps used memory under the limit while keys with a TTL keep coming', async () => {
  await forEachServer(async (c) => {
    for (const policy of ALL_POLICIES) {
      const limit = await limitAbove(c, policy);
      const added = await fillToLimit(c, limit, () => c.call('SETEX', randomKey(), '10000', 'x'));
      for (let j = 0; j < added; j++) await c.call('SETEX', randomKey(), '10000', 'x');
      assert.ok((await infoField(c, 'used_memory')) < limit + 4096, policy);
      assert.ok((await infoField(c, 'evicted_keys')) > 0, policy);
    }
  });
});

test('allkeys-* evict keys without a TTL; volatile-* refuse writes with OOM rather than touch them', async () => {
  await forEachServer(async (c) => {
    for (const policy of ['allkeys-random', 'allkeys-lru', 'volatile-lru', 'volatile-random', 'volatile-ttl']) {
      const limit = await limitAbove(c, policy);
      const added = await fillToLimit(c, limit, () => c.call('SET', randomKey(), 'x'));
      let oom = 0;
      for (let j = 0; j < added; j++) {
        const reply = (await c.call('SET', randomKey(), 'x')) as { t: string; v: string };
        if (reply.t === 'error' && reply.v.includes('used memory')) oom++;
      }
      if (policy.startsWith('allkeys-')) {
        assert.equal(oom, 0, policy);
        assert.ok((await infoField(c, 'used_memory')) < limit + 4096, policy);
      } else {
        assert.ok(oom > 0, policy);
      }
    }
  });
});

test('volatile-* evict only keys with a TTL', async () => {
  await forEachServer(async (c) => {
    for (const policy of ['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl']) {
      const limit = await limitAbove(c, policy);
      const added = await fillToLimit(c, limit, (n) => (n % 2 === 1 ? c.call('SETEX', `key:${n}`, '10000', 'x') : c.call('SET', `key:${n}`, 'x')));
      for (let j = 0; j < added; j++) await c.call('SETEX', `foo:${j}`, '10000', 'x');
      assert.ok((await infoField(c, 'used_memory')) < limit + 4096, policy);
      for (let j = 0; j < added; j += 2) assert.deepEqual(await c.call('EXISTS', `key:${j}`), { t: 'int', v: 1n }, `${policy}: key:${j}`);
    }
  });
});

/** How many of `keys` are still there. */
async function surviving(c: RespClient, keys: string[]): Promise<number> {
  const reply = (await c.call('EXISTS', ...keys)) as { v: bigint };
  return Number(reply.v);
}

/**
 * Under `policy`, `load` fills a flushed server; then the limit leaves 24,000 bytes of room (~40
 * keys of a 500-byte value) and 120 new keys are written: at least 40 keys must go.
 */
async function pressure(c: RespClient, policy: string, load: () => Promise<void>, write: (n: number) => Promise<unknown>): Promise<void> {
  await c.call('CONFIG', 'SET', 'maxmemory', '0');
  await c.call('FLUSHALL');
  await c.call('CONFIG', 'SET', 'maxmemory-policy', policy);
  await load();
  await c.call('CONFIG', 'SET', 'maxmemory', String((await infoField(c, 'used_memory')) + 24_000));
  for (let j = 0; j < 120; j++) await write(j);
  assert.ok((await infoField(c, 'evicted_keys')) >= 40, policy);
}

test('allkeys-lru keeps the keys read recently, allkeys-lfu the keys read often, volatile-ttl the latest to expire', async () => {
  await forEachServer(async (c) => {
    const value = 'v'.repeat(500);
    const hot = Array.from({ length: 30 }, (_, i) => `hot:${i}`);
    // Enough cold keys for every victim: redis-server evicts ~170 keys here (its dict's growth counts too), sluice ~80.
    const cold = Array.from({ length: 300 }, (_, i) => `cold:${i}`);
    /** At least 90% of the keys evicted were cold ones. */
    const victimsWereCold = async (what: string) => {
      const evicted = await infoField(c, 'evicted_keys');
      const coldLost = cold.length - (await surviving(c, cold));
      assert.ok(coldLost >= evicted * 0.9, `${what}: ${coldLost} of the ${evicted} keys evicted were cold`);
    };
    const setNew = (j: number) => c.call('SET', `new:${j}`, value);

    // LRU: every key is written, two seconds pass (the LRU clock counts seconds), the hot ones are read.
    await c.call('CONFIG', 'RESETSTAT');
    await pressure(c, 'allkeys-lru', async () => {
      for (const k of [...cold, ...hot]) await c.call('SET', k, value);
      await sleep(2100);
      for (const k of hot) await c.call('GET', k);
    }, setNew);
    await victimsWereCold('LRU');
    assert.ok((await surviving(c, hot)) >= hot.length * 0.9, `LRU kept the hot keys (${await surviving(c, hot)} of ${hot.length})`);

    // LFU: the hot keys are read 100 times each; none of the others ever.
    await c.call('CONFIG', 'RESETSTAT');
    await pressure(c, 'allkeys-lfu', async () => {
      for (const k of [...cold, ...hot]) await c.call('SET', k, value);
      for (let round = 0; round < 100; round++) for (const k of hot) await c.call('GET', k);
      const freq = (await c.call('OBJECT', 'FREQ', hot[0]!)) as { v: bigint };
      assert.ok(freq.v > 5n, `a hot key's counter grew (${freq.v})`);
    }, setNew);
    assert.ok((await surviving(c, hot)) >= hot.length * 0.9, `LFU kept the frequent keys (${await surviving(c, hot)} of ${hot.length})`);

    // volatile-ttl: the keys expiring last outlive those expiring first.
    await c.call('CONFIG', 'RESETSTAT');
    await pressure(c, 'volatile-ttl', async () => {
      for (const k of cold) await c.call('SETEX', k, '1000', value);
      for (const k of hot) await c.call('SETEX', k, '100000', value);
    }, (j) => c.call('SETEX', `new:${j}`, '50000', value));
    assert.equal(await surviving(c, hot), hot.length, 'volatile-ttl kept the keys expiring last');
    await victimsWereCold('volatile-ttl');
  });
});

test('each eviction raises the evicted event and counts in evicted_keys', async () => {
  await forEachServer(async (c, server) => {
    await limitAbove(c, 'allkeys-random');
    await c.call('CONFIG', 'SET', 'notify-keyspace-events', 'Ee');
    const sub = await RespClient.connect(server.port);
    await sub.call('SUBSCRIBE', '__keyevent@0__:evicted');
    const events = new Set<string>();
    // Read as they come: unread events would sit in the subscriber's output buffer, which counts as used memory.
    void (async () => {
      for (;;) {
        const message = (await sub.read()) as { v: Array<{ v: string }> };
        assert.equal(message.v[0]!.v, 'message');
        events.add(message.v[2]!.v);
      }
    })().catch(() => {});
    await c.call('CONFIG', 'RESETSTAT');
    for (let j = 0; j < 300; j++) await c.call('SET', `k:${j}`, 'x'.repeat(1000));
    // Read together: every command may evict first, so INFO and DBSIZE must run atomically.
    await c.call('MULTI');
    await c.call('INFO', 'stats');
    await c.call('DBSIZE');
    const [info, dbsize] = ((await c.call('EXEC')) as { v: Array<{ v: string | bigint }> }).v;
    const evicted = Number(/evicted_keys:(\d+)/.exec(String(info!.v))![1]);
    assert.ok(evicted > 0);
    assert.equal(Number(dbsize!.v), 300 - evicted);
    for (let waited = 0; events.size < evicted && waited < 5000; waited += 20) await sleep(20);
    assert.equal(events.size, evicted);
    assert.equal(await surviving(c, [...events]), 0, 'the keys announced are gone');
    sub.close();
    await c.call('CONFIG', 'SET', 'notify-keyspace-events', '');
  });
});

test('sluice logs each eviction in the AOF as DEL (UNLINK with lazyfree-lazy-eviction): a restart has the same keys', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-eviction-'));
  try {
    const first = await startSluiceProcess('--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always');
    const c = await RespClient.connect(first.port);
    const limit = await limitAbove(c, 'allkeys-lru');
    for (let j = 0; j < 1500; j++) await c.call('SET', `k:${j}`, 'x'.repeat(100));
    await c.call('CONFIG', 'SET', 'lazyfree-lazy-eviction', 'yes');
    for (let j = 1500; j < 2000; j++) await c.call('SET', `k:${j}`, 'x'.repeat(100));
    assert.ok((await infoField(c, 'used_memory')) < limit + 4096);
    const keys = ((await c.call('KEYS', '*')) as { v: Array<{ v: string }> }).v.map((k) => k.v).sort();
    assert.ok(keys.length < 2000);
    c.close();
    await first.kill();

    const aofDir = join(dir, 'appendonlydir');
    const log = readdirSync(aofDir).filter((f) => f.endsWith('.aof')).map((f) => readFileSync(join(aofDir, f), 'latin1')).join('');
    assert.match(log, /\$3\r\nDEL\r\n/);
    assert.match(log, /\$6\r\nUNLINK\r\n/);

    const second = await startSluiceProcess('--dir', dir, '--appendonly', 'yes');
    const d = await RespClient.connect(second.port);
    const reloaded = ((await d.call('KEYS', '*')) as { v: Array<{ v: string }> }).v.map((k) => k.v).sort();
    assert.deepEqual(reloaded, keys);
    d.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
