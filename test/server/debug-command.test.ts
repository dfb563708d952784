// DEBUG and enable-debug-command, side by side with redis-server 7.0.15: the refusal (and its
// stats), CONFIG GET/SET, the subcommands' replies and errors, `local` for loopback versus a
// foreign client; then DEBUG RELOAD's round trip of a dataset (groups, PEL, last ids, TTLs).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { foreignHost } from './foreign-host.js';
import { startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient, array, bulk, error, int, simple, type Wire } from './resp-client.js';

after(async () => {
  await stopAll();
});

const REFUSED =
  'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local ' +
  'connection, otherwise you need to set this option in the configuration file, and then restart the server.';

/** Both servers with the same flags; the callback runs once per server. */
async function bothWith(flags: string[], fn: (c: RespClient, name: string) => Promise<void>): Promise<void> {
  for (const proc of [await startSluiceProcess(...flags), await startRedisProcess(...flags)]) {
    const c = await RespClient.connect(proc.port);
    try {
      await fn(c, proc.name);
    } finally {
      c.close();
      await proc.kill();
    }
  }
}

function commandstat(info: Wire, name: string): string {
  const text = (info as { v: string }).v;
  const line = text.split('\r\n').find((l) => l.startsWith(`cmdstat_${name}:`)) ?? '';
  return line.replace(/usec=\d+,usec_per_call=[\d.]+,/, '');
}

test('by default DEBUG is refused with Redis 7.0\'s text, counted as rejected, and the setting is immutable', async () => {
  await bothWith([], async (c) => {
    assert.deepEqual(await c.call('DEBUG', 'HELP'), error(REFUSED));
    assert.deepEqual(await c.call('DEBUG', 'SLEEP', '0'), error(REFUSED));
    // Unknown subcommands are refused the same way: the check comes before the command runs.
    assert.deepEqual(await c.call('DEBUG', 'nosuch'), error(REFUSED));
    assert.equal(commandstat(await c.call('INFO', 'commandstats'), 'debug'), 'cmdstat_debug:calls=0,rejected_calls=3,failed_calls=0');
    assert.deepEqual(await c.call('CONFIG', 'GET', 'enable-debug-command'), {
      t: 'array',
      v: [{ t: 'bulk', v: 'enable-debug-command' }, { t: 'bulk', v: 'no' }],
    });
    assert.deepEqual(
      await c.call('CONFIG', 'SET', 'enable-debug-command', 'yes'),
      error("ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config"),
    );
    // A refused DEBUG inside MULTI aborts the transaction.
    assert.deepEqual(await c.call('MULTI'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'SLEEP', '0'), error(REFUSED));
    assert.deepEqual(await c.call('EXEC'), error('EXECABORT Transaction discarded because of previous errors.'));
  });
});

test('with enable-debug-command yes: the subcommands reply as Redis', async () => {
  await bothWith(['--enable-debug-command', 'yes'], async (c, name) => {
    assert.deepEqual(await c.call('DEBUG', 'SLEEP', '0'), simple('OK'), name);
    assert.deepEqual(await c.call('DEBUG', 'SLEEP', 'notanumber'), simple('OK'), name); // strtod: 0 seconds
    assert.deepEqual(await c.call('DEBUG', 'LOG', 'hello from the test'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'SET-ACTIVE-EXPIRE', '0'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'set-active-expire', '1'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'CHANGE-REPL-ID'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'ERROR', 'CUSTOM something\nbroke'), error('CUSTOM something broke'));
    assert.deepEqual(
      await c.call('DEBUG', 'nosuch'),
      error("ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP."),
    );
    // A known subcommand with the wrong number of arguments gets the same error.
    assert.deepEqual(
      await c.call('DEBUG', 'SLEEP'),
      error("ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP."),
    );
    assert.deepEqual(await c.call('DEBUG'), error("ERR wrong number of arguments for 'debug' command"));
    assert.deepEqual(
      await c.call('DEBUG', 'RELOAD', 'FAST'),
      error('ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.'),
    );
    const help = (await c.call('DEBUG', 'HELP')) as { v: Wire[] };
    assert.deepEqual(help.v[0], simple('DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:'));
    for (const line of ['LOADAOF', 'RELOAD [option ...]', 'SLEEP <seconds>', 'SET-ACTIVE-EXPIRE <0|1>']) {
      assert.ok(help.v.some((w) => w.t === 'simple' && w.v === line), `${name}: ${line}`);
    }
    // DEBUG is one command with no subcommands in COMMAND INFO.
    assert.deepEqual(await c.call('COMMAND', 'INFO', 'debug'), {
      t: 'array',
      v: [
        {
          t: 'array',
          v: [
            { t: 'bulk', v: 'debug' },
            { t: 'int', v: -2n },
            { t: 'array', v: ['admin', 'noscript', 'loading', 'stale'].map(simple) },
            { t: 'int', v: 0n },
            { t: 'int', v: 0n },
            { t: 'int', v: 0n },
            { t: 'array', v: ['@admin', '@slow', '@dangerous'].map(simple) },
            { t: 'array', v: [] },
            { t: 'array', v: [] },
            { t: 'array', v: [] },
          ],
        },
      ],
    });
  });
});

test('DEBUG POPULATE: keys and values as Redis makes them, existing keys left alone, nothing propagated, its errors', async () => {
  await bothWith(['--enable-debug-command', 'yes'], async (c, name) => {
    await c.call('SET', 'key:1', 'mine');
    assert.deepEqual(await c.call('DEBUG', 'POPULATE', '3'), simple('OK'), name);
    assert.deepEqual(await c.call('MGET', 'key:0', 'key:1', 'key:2', 'key:3'), array(['value:0', 'mine', 'value:2', null].map(bulk)), name);
    // A size cuts the value or pads it with zero bytes.
    assert.deepEqual(await c.call('DEBUG', 'populate', '2', 'p', '3'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'POPULATE', '1', 'z', '9'), simple('OK'));
    assert.deepEqual(await c.call('MGET', 'p:0', 'p:1', 'z:0'), array(['val', 'val', 'value:0\0\0'].map(bulk)), name);
    assert.deepEqual(await c.call('DEBUG', 'POPULATE', '0'), simple('OK'));
    assert.deepEqual(await c.call('DBSIZE'), int(6));
    // Not a change: no dirty count for a save, nothing in the AOF or to replicas.
    const dirty = /rdb_changes_since_last_save:(\d+)/.exec(String((await c.call('INFO', 'persistence') as { v: string }).v))![1];
    assert.equal(dirty, '1', name);
    for (const bad of [['-1'], ['x'], ['1.5'], ['1', 'k', '-3']]) {
      assert.deepEqual(await c.call('DEBUG', 'POPULATE', ...bad), error('ERR value is out of range, must be positive'), `${name}: ${bad.join(' ')}`);
    }
    assert.deepEqual(
      await c.call('DEBUG', 'POPULATE', '1', 'a', '1', 'extra'),
      error("ERR unknown subcommand or wrong number of arguments for 'POPULATE'. Try DEBUG HELP."),
    );
  });
});

test('DEBUG OBJECT: the fields Redis 7.0 prints, an address that stays while INCR changes the value in place, an expired key still there, a missing one refused', async () => {
  await bothWith(['--enable-debug-command', 'yes'], async (c, name) => {
    await c.call('SET', 'counter', '20000');
    await c.call('SET', 'text', 'a short string');
    await c.call('RPUSH', 'list', 'a', 'b', 'c');
    const line = async (key: string): Promise<string> => String((await c.call('DEBUG', 'OBJECT', key) as { v: unknown }).v);
    const format = /^Value at:0x[0-9a-f]+ refcount:(\d+) encoding:(\w+) serializedlength:(\d+) lru:\d+ lru_seconds_idle:\d+/;
    const before = await line('counter');
    assert.deepEqual(format.exec(before)?.slice(1), ['1', 'int', '3'], `${name}: ${before}`);
    await c.call('INCR', 'counter');
    assert.equal((await line('counter')).split(' ')[1], before.split(' ')[1], `${name}: the address after INCR`);
    assert.deepEqual(format.exec(await line('text'))?.slice(1), ['1', 'embstr', '15'], name);
    assert.equal(format.exec(await line('list'))?.[2], 'quicklist', name);
    // Read as the dict entry: a key past its TTL that nothing removed yet is still described.
    await c.call('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    await c.call('SET', 'gone', 'v', 'PX', '1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.match(await line('gone'), format, name);
    await c.call('DEBUG', 'SET-ACTIVE-EXPIRE', '1');
    assert.deepEqual(await c.call('DEBUG', 'OBJECT', 'nosuchkey'), error('ERR no such key'), name);
  });
});

test('enable-debug-command local: loopback clients may, a client from another host may not', async () => {
  const host = foreignHost();
  try {
    for (const proc of [await startSluiceProcess('--bind', '0.0.0.0', '--protected-mode', 'no', '--enable-debug-command', 'local'),
      await startRedisProcess('--bind', '0.0.0.0', '--protected-mode', 'no', '--enable-debug-command', 'local')]) {
      const local = await RespClient.connect(proc.port);
      assert.deepEqual(await local.call('DEBUG', 'SLEEP', '0'), simple('OK'), proc.name);
      local.close();
      const foreign = await host.probe(proc.port, 'DEBUG SLEEP 0\r\n');
      assert.equal(foreign.data.toString('latin1'), `-${REFUSED}\r\n`, proc.name);
      await proc.kill();
    }
  } finally {
    host.destroy();
  }
});

test('DEBUG RELOAD: streams (groups, PEL, consumers, last ids), other types and TTLs come back as they were', async () => {
  const proc = await startSluiceProcess('--enable-debug-command', 'yes');
  const c = await RespClient.connect(proc.port);
  try {
    await c.call('XADD', 's', '1-1', 'a', '1');
    await c.call('XADD', 's', '2-2', 'b', '2');
    await c.call('XADD', 's', '3-3', 'c', '3');
    await c.call('XDEL', 's', '3-3');
    await c.call('XGROUP', 'CREATE', 's', 'g', '0');
    await c.call('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 's', '>');
    await c.call('XGROUP', 'CREATECONSUMER', 's', 'g', 'bob');
    await c.call('RPUSH', 'l', 'x', 'y');
    await c.call('HSET', 'h', 'f', 'v');
    await c.call('ZADD', 'z', '1.5', 'm');
    await c.call('SET', 'str', 'v', 'PX', '100000');
    await c.call('SELECT', '3');
    await c.call('SADD', 'set', 'in-db-3');
    await c.call('SELECT', '0');
    const snapshot = async () => [
      await c.call('XINFO', 'STREAM', 's', 'FULL'),
      await c.call('XPENDING', 's', 'g'),
      await c.call('LRANGE', 'l', '0', '-1'),
      await c.call('HGETALL', 'h'),
      await c.call('ZRANGE', 'z', '0', '-1', 'WITHSCORES'),
      await c.call('GET', 'str'),
      await c.call('EXISTS', 'set'),
      await c.call('DBSIZE'),
    ];
    const before = await snapshot();
    const ttl = (await c.call('PTTL', 'str')) as { v: bigint };
    assert.deepEqual(await c.call('DEBUG', 'RELOAD'), simple('OK'));
    assert.deepEqual(scrubTimes(await snapshot()), scrubTimes(before));
    const ttlAfter = (await c.call('PTTL', 'str')) as { v: bigint };
    assert.ok(ttlAfter.v > 0n && ttlAfter.v <= ttl.v, `TTL kept: ${ttlAfter.v}`);
    await c.call('SELECT', '3');
    assert.deepEqual(await c.call('SMEMBERS', 'set'), { t: 'array', v: [{ t: 'bulk', v: 'in-db-3' }] });
    await c.call('SELECT', '0');
    // NOSAVE loads the image the last RELOAD saved; NOFLUSH MERGE replaces the keys it holds.
    await c.call('RPUSH', 'l', 'z');
    await c.call('SET', 'later', '1');
    assert.deepEqual(await c.call('DEBUG', 'RELOAD', 'NOSAVE', 'NOFLUSH', 'MERGE'), simple('OK'));
    assert.deepEqual(await c.call('LRANGE', 'l', '0', '-1'), { t: 'array', v: [{ t: 'bulk', v: 'x' }, { t: 'bulk', v: 'y' }] });
    assert.deepEqual(await c.call('GET', 'later'), { t: 'bulk', v: '1' });
    // NOFLUSH without MERGE on a key that exists fails to load, as Redis's RDB load of a duplicate.
    assert.deepEqual(await c.call('DEBUG', 'RELOAD', 'NOSAVE', 'NOFLUSH'), error('ERR Error trying to load the RDB dump, check server logs.'));
    assert.deepEqual(await c.call('DEBUG', 'LOADAOF'), error('ERR DEBUG LOADAOF needs the append-only file on (CONFIG SET appendonly yes)'));
    assert.deepEqual(await c.call('MULTI'), simple('OK'));
    assert.deepEqual(await c.call('DEBUG', 'LOADAOF'), simple('QUEUED'));
    assert.deepEqual(await c.call('EXEC'), { t: 'array', v: [error('ERR DEBUG LOADAOF cannot run inside MULTI in sluice')] });
  } finally {
    c.close();
    await proc.kill();
  }
});

/**
 * A consumer's seen-time and active-time are not kept: the image is the AOF rewrite's commands,
 * and replaying them touches each consumer (as loading an AOF does in Redis; an RDB keeps them).
 */
function scrubTimes(v: Wire[]): Wire[] {
  const scrub = (w: Wire): Wire => {
    if (w.t !== 'array' || w.v === null) return w;
    const items = w.v.map(scrub);
    for (let i = 0; i + 1 < items.length; i++) {
      const k = items[i]!;
      if (k.t === 'bulk' && (k.v === 'seen-time' || k.v === 'active-time')) items[i + 1] = { t: 'int', v: 0n };
    }
    return { t: 'array', v: items };
  };
  return v.map(scrub);
}

test('DEBUG SLEEP stalls the whole server, inside MULTI too, as in Redis', async () => {
  for (const proc of [await startSluiceProcess('--enable-debug-command', 'yes'), await startRedisProcess('--enable-debug-command', 'yes')]) {
    const sleeper = await RespClient.connect(proc.port);
    const other = await RespClient.connect(proc.port);
    try {
      await other.call('PING'); // connected and served before the sleep
      const started = Date.now();
      let sleptAt = 0;
      const slept = sleeper.call('DEBUG', 'SLEEP', '0.6').then((reply) => ((sleptAt = Date.now()), reply));
      await new Promise((r) => setTimeout(r, 50));
      // Sent while the server sleeps (unless this process was slower than the sleep itself):
      // answered only once it wakes, never in between.
      const sentDuringSleep = sleptAt === 0;
      assert.deepEqual(await other.call('PING'), simple('PONG'), proc.name);
      if (sentDuringSleep) assert.ok(Date.now() - started >= 500, `${proc.name}: PING answered while the server slept`);
      assert.deepEqual(await slept, simple('OK'), proc.name);
      await sleeper.call('MULTI');
      await sleeper.call('DEBUG', 'SLEEP', '0');
      assert.deepEqual(await sleeper.call('EXEC'), array([simple('OK')]), proc.name);
    } finally {
      sleeper.close();
      other.close();
      await proc.kill();
    }
  }
});
