// MIGRATE from sluice server and from redis-server 7.0.15 to the same kinds of targets, with the
// same commands: the replies, what the target holds after (values and TTLs), what stays at the
// source; then what only a sluice test can show: other clients wait while the target answers
// (MIGRATE is atomic as in Redis, where the whole server blocks), a silent target times out with
// Redis's IOERR, and a migrated key reaches the AOF as DEL.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type ServerProcess, startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient } from './resp-client.js';

after(stopAll);

const show = (w: unknown): string => JSON.stringify(w, (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** A MIGRATE session from `source` to `target`: every reply, then the target's and the source's keys. */
async function session(source: ServerProcess, target: ServerProcess): Promise<string[]> {
  const s = await RespClient.connect(source.port);
  const t = await RespClient.connect(target.port);
  await t.call('FLUSHALL');
  await s.call('FLUSHALL');
  const out: string[] = [];
  const call = async (c: RespClient, ...argv: string[]) => out.push(show(await c.call(...argv)));
  const port = String(target.port);
  await s.call('SET', 'str', 'v');
  await s.call('RPUSH', 'list', 'a', 'b', 'c');
  await s.call('HSET', 'hash', 'f', 'v');
  await s.call('ZADD', 'zset', '1.5', 'm');
  await s.call('SET', 'ttl', 'v', 'PX', '100000');
  await s.call('XADD', 'stream', '1-1', 'f', 'v');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'missing', '0', '1000');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'str', '0', '1000');
  await call(s, 'EXISTS', 'str');
  await call(t, 'GET', 'str');
  await call(s, 'MIGRATE', '127.0.0.1', port, '', '2', '1000', 'COPY', 'KEYS', 'list', 'hash', 'missing', 'ttl');
  await call(s, 'EXISTS', 'list', 'hash', 'ttl');
  await call(t, 'SELECT', '2');
  await call(t, 'LRANGE', 'list', '0', '-1');
  await call(t, 'HGETALL', 'hash');
  out.push(show(Number(((await t.call('PTTL', 'ttl')) as { v: bigint }).v) > 90_000));
  await call(s, 'MIGRATE', '127.0.0.1', port, '', '2', '1000', 'KEYS', 'list', 'zset');
  await call(s, 'MIGRATE', '127.0.0.1', port, '', '2', '1000', 'REPLACE', 'KEYS', 'list', 'zset', 'stream');
  await call(s, 'EXISTS', 'list', 'zset', 'stream');
  await call(t, 'ZRANGE', 'zset', '0', '-1', 'WITHSCORES');
  await call(t, 'XRANGE', 'stream', '-', '+');
  await call(s, 'SET', 'k', 'v');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'k', '0', '1000', 'AUTH', 'nopass');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'k', '0', '1000', 'AUTH2', 'user', 'pass');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'k', '0', '1000', 'KEYS', 'k');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'k', 'x', '1000');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'k', '0', '1000', 'BOGUS');
  await call(s, 'MIGRATE', '127.0.0.1', port, 'k', '0', '1000', 'AUTH');
  await call(s, 'MIGRATE', '127.0.0.1', '1', 'k', '0', '1000');
  out.push(/migrate_cached_sockets:[1-9]/.test(String(((await s.call('INFO', 'stats')) as { v: string }).v)) ? 'one cached connection' : 'no cached connection');
  s.close();
  t.close();
  return out;
}

test('MIGRATE: replies, moved values and TTLs, COPY, REPLACE, KEYS, AUTH and errors as redis-server', async () => {
  const [sluice, redis, redisTarget, sluiceTarget] = await Promise.all([startSluiceProcess(), startRedisProcess(), startRedisProcess(), startSluiceProcess()]);
  const expected = await session(redis, redisTarget);
  assert.deepEqual(await session(sluice, redisTarget), expected, 'sluice to redis-server');
  assert.deepEqual(await session(sluice, sluiceTarget), expected, 'sluice to sluice');
  assert.deepEqual(await session(redis, sluiceTarget), expected, 'redis-server to sluice');
  assert.ok(expected.includes(show({ t: 'simple', v: 'NOKEY' })));
});

/** A target that answers each line-terminated command `+OK` after `delayMs`, or never (delayMs < 0). */
async function fakeTarget(delayMs: number): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      // Two commands (SELECT, RESTORE) per MIGRATE of one key to a new connection.
      if (delayMs >= 0) setTimeout(() => socket.write('+OK\r\n+OK\r\n'), delayMs);
      void chunk;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

test('sluice: other clients wait while MIGRATE waits for its target (atomic as Redis), and a silent target times out', async () => {
  const source = await startSluiceProcess();
  const slow = await fakeTarget(300);
  const silent = await fakeTarget(-1);
  try {
    const a = await RespClient.connect(source.port);
    const b = await RespClient.connect(source.port);
    await a.call('SET', 'k', 'old');
    const migrating = a.call('MIGRATE', '127.0.0.1', String(slow.port), 'k', '0', '5000');
    await new Promise((r) => setTimeout(r, 50));
    // Sent while the target has not answered: it runs after the key is gone, so it is not lost.
    const write = b.call('SET', 'k', 'new');
    assert.deepEqual(await migrating, { t: 'simple', v: 'OK' });
    assert.deepEqual(await write, { t: 'simple', v: 'OK' });
    assert.deepEqual(await b.call('GET', 'k'), { t: 'bulk', v: 'new' });

    const started = Date.now();
    assert.deepEqual(await a.call('MIGRATE', '127.0.0.1', String(silent.port), 'k', '0', '200'), { t: 'error', v: 'IOERR error or timeout reading to target instance' });
    assert.ok(Date.now() - started >= 190);
    assert.deepEqual(await b.call('GET', 'k'), { t: 'bulk', v: 'new' }, 'kept: the target never acknowledged it');
    a.close();
    b.close();
  } finally {
    slow.server.close();
    silent.server.close();
  }
});

test('sluice: a migrated key reaches the AOF as DEL, so a restart does not bring it back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-migrate-'));
  try {
    const target = await startRedisProcess();
    const source = await startSluiceProcess('--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always');
    const c = await RespClient.connect(source.port);
    await c.call('SET', 'moved', 'v');
    await c.call('SET', 'stays', 'v');
    assert.deepEqual(await c.call('MIGRATE', '127.0.0.1', String(target.port), 'moved', '0', '1000'), { t: 'simple', v: 'OK' });
    c.close();
    await source.kill();
    const aofDir = join(dir, 'appendonlydir');
    const log = readdirSync(aofDir).filter((f) => f.endsWith('.aof')).map((f) => readFileSync(join(aofDir, f), 'latin1')).join('');
    assert.match(log, /\*2\r\n\$3\r\nDEL\r\n\$5\r\nmoved\r\n/);
    const again = await startSluiceProcess('--dir', dir, '--appendonly', 'yes');
    const d = await RespClient.connect(again.port);
    assert.deepEqual(await d.call('KEYS', '*'), { t: 'array', v: [{ t: 'bulk', v: 'stays' }] });
    d.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
