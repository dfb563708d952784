// A script running past busy-reply-threshold, seen from other clients, on sluice server and on
// redis-server 7.0 with the same assertions: BUSY replies in Redis's words (SCRIPT KILL's for an
// EVAL, FUNCTION KILL's for a function), clients that connect meanwhile served too, SCRIPT KILL
// and FUNCTION KILL (each refused for the other kind), UNKILLABLE once the script has written,
// SHUTDOWN NOSAVE as the way out, and the script's atomicity meanwhile: a client blocked on a
// key it writes is served after its end, and keys do not expire under it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { waitFor, within } from '../support/wait.js';
import { startRedisProcess, startSluiceProcess, stopAll, type ServerProcess } from './processes.js';
import { RespClient, type Wire } from './resp-client.js';

after(async () => {
  await stopAll();
});

const SERVERS: Array<() => Promise<ServerProcess>> = [() => startSluiceProcess(), () => startRedisProcess()];

const BUSY_EVAL = 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.';
const BUSY_FUNCTION = 'BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.';

function text(reply: Wire): string {
  return String((reply as { v: unknown }).v);
}

/** Calls PING on a new connection each time until the server answers BUSY. */
async function untilBusy(port: number): Promise<void> {
  await waitFor(async () => {
    const c = await RespClient.connect(port);
    try {
      return (await c.call('PING')).t === 'error';
    } finally {
      c.close();
    }
  }, 'the script to be busy');
}

/** Starts `argv` on a connection of its own (its reply is read later). */
async function runAside(port: number, ...argv: string[]): Promise<RespClient> {
  const c = await RespClient.connect(port);
  c.send(argv);
  return c;
}

test('an EVAL looping past busy-reply-threshold: BUSY to others, clients that connect meanwhile too, SCRIPT KILL stops it', async () => {
  for (const start of SERVERS) {
    const proc = await start();
    const admin = await RespClient.connect(proc.port);
    try {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
      const runner = await runAside(proc.port, 'EVAL', 'local a = 1 while true do a = a + 1 end', '0');
      await untilBusy(proc.port);
      assert.deepEqual(await admin.call('PING'), { t: 'error', v: BUSY_EVAL }, proc.name);
      assert.deepEqual(await admin.call('SET', 'k', 'v'), { t: 'error', v: BUSY_EVAL }, proc.name);
      // A connection made while the script runs is answered too.
      const late = await RespClient.connect(proc.port);
      assert.deepEqual(await late.call('GET', 'k'), { t: 'error', v: BUSY_EVAL }, proc.name);
      // FUNCTION STATS and FUNCTION KILL refuse to deal with an EVAL: SCRIPT KILL is the one.
      assert.deepEqual(await late.call('FUNCTION', 'STATS'), { t: 'error', v: BUSY_EVAL }, proc.name);
      assert.deepEqual(await late.call('FUNCTION', 'KILL'), { t: 'error', v: BUSY_EVAL }, proc.name);
      assert.deepEqual(await late.call('SHUTDOWN'), { t: 'error', v: BUSY_EVAL }, proc.name);
      assert.deepEqual(await late.call('SCRIPT', 'KILL'), { t: 'simple', v: 'OK' }, proc.name);
      const killed = await within(runner.read(), 'the killed script reply');
      assert.equal(killed.t, 'error', proc.name);
      assert.match(text(killed), /^ERR Script killed by user with SCRIPT KILL\.\.\. script: [0-9a-f]{40}, on @user_script:1\.$/, proc.name);
      await waitFor(async () => (await admin.call('PING')).t === 'simple', 'PONG after the kill');
      assert.deepEqual(await admin.call('SCRIPT', 'KILL'), { t: 'error', v: 'NOTBUSY No scripts in execution right now.' }, proc.name);
      late.close();
      runner.close();
    } finally {
      admin.close();
      await proc.kill();
    }
  }
});

test('a script looping inside pcall cannot yield; the connected clients are still answered and SCRIPT KILL stops it', async () => {
  for (const start of SERVERS) {
    const proc = await start();
    const admin = await RespClient.connect(proc.port);
    try {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
      const body = "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end";
      const runner = await runAside(proc.port, 'EVAL', body, '0');
      await waitFor(async () => (await admin.call('PING')).t === 'error', 'the script to be busy');
      assert.deepEqual(await admin.call('PING'), { t: 'error', v: BUSY_EVAL }, proc.name);
      assert.deepEqual(await admin.call('SCRIPT', 'KILL'), { t: 'simple', v: 'OK' }, proc.name);
      assert.match(text(await within(runner.read(), 'the killed script reply')), /killed by user/, proc.name);
      await waitFor(async () => (await admin.call('PING')).t === 'simple', 'PONG after the kill');
      runner.close();
    } finally {
      admin.close();
      await proc.kill();
    }
  }
});

test("a reply given in the turn a non-yielding script started in is still sent (its client can then SCRIPT KILL)", async () => {
  for (const start of [() => startSluiceProcess('--enable-debug-command', 'yes'), () => startRedisProcess('--enable-debug-command', 'yes')]) {
    const proc = await start();
    const admin = await RespClient.connect(proc.port);
    const r = await RespClient.connect(proc.port);
    const rd = await RespClient.connect(proc.port);
    try {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
      // While the server sleeps, r's PING and then rd's script arrive: the server reads both in
      // one turn, answers the PING, then runs the script (inside pcall: it cannot yield).
      admin.send(['DEBUG', 'SLEEP', '0.3']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      r.send(['PING']);
      await new Promise((resolve) => setTimeout(resolve, 20));
      rd.send(['EVAL', "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end", '0']);
      assert.deepEqual(await within(r.read(), `${proc.name}: the PONG read with the script`), { t: 'simple', v: 'PONG' });
      await waitFor(async () => (await r.call('PING')).t === 'error', 'the script to be busy');
      assert.deepEqual(await r.call('SCRIPT', 'KILL'), { t: 'simple', v: 'OK' }, proc.name);
      assert.match(text(await within(rd.read(), 'the killed script reply')), /killed by user/, proc.name);
    } finally {
      admin.close();
      r.close();
      rd.close();
      await proc.kill();
    }
  }
});

test('a function past the threshold: FUNCTION STATS shows it, SCRIPT KILL is refused, FUNCTION KILL stops it', async () => {
  for (const start of SERVERS) {
    const proc = await start();
    const admin = await RespClient.connect(proc.port);
    try {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
      const library = "#!lua name=spin\nredis.register_function('spin', function() local a = 1 while true do a = a + 1 end end)";
      assert.deepEqual(await admin.call('FUNCTION', 'LOAD', library), { t: 'bulk', v: 'spin' });
      const runner = await runAside(proc.port, 'FCALL', 'spin', '0');
      await untilBusy(proc.port);
      assert.deepEqual(await admin.call('PING'), { t: 'error', v: BUSY_FUNCTION }, proc.name);
      const stats = (await admin.call('FUNCTION', 'STATS')) as { v: Wire[] };
      assert.equal(text(stats.v[0]!), 'running_script', proc.name);
      const running = (stats.v[1] as { v: Wire[] }).v;
      assert.deepEqual(running.slice(0, 4), [
        { t: 'bulk', v: 'name' },
        { t: 'bulk', v: 'spin' },
        { t: 'bulk', v: 'command' },
        { t: 'array', v: [{ t: 'bulk', v: 'FCALL' }, { t: 'bulk', v: 'spin' }, { t: 'bulk', v: '0' }] },
      ], proc.name);
      assert.deepEqual(running[4], { t: 'bulk', v: 'duration_ms' }, proc.name);
      assert.equal(running[5]!.t, 'int', proc.name);
      assert.deepEqual(await admin.call('SCRIPT', 'KILL'), { t: 'error', v: BUSY_FUNCTION }, proc.name);
      assert.deepEqual(await admin.call('FUNCTION', 'KILL'), { t: 'simple', v: 'OK' }, proc.name);
      assert.match(text(await within(runner.read(), 'the killed function reply')), /^ERR Script killed by user with SCRIPT KILL\.\.\./, proc.name);
      await waitFor(async () => (await admin.call('PING')).t === 'simple', 'PONG after the kill');
      runner.close();
    } finally {
      admin.close();
      await proc.kill();
    }
  }
});

test('a script that has written cannot be killed; SHUTDOWN NOSAVE ends the server, without the script in its AOF', async () => {
  for (const start of SERVERS) {
    const proc = await start();
    const admin = await RespClient.connect(proc.port);
    try {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
      const runner = await runAside(proc.port, 'EVAL', "redis.call('SET', KEYS[1], 'y') while true do end", '1', 'x');
      await untilBusy(proc.port);
      const unkillable = await admin.call('SCRIPT', 'KILL');
      assert.equal(unkillable.t, 'error');
      assert.match(text(unkillable), /^UNKILLABLE Sorry the script already executed write commands against the dataset\./, proc.name);
      assert.deepEqual(await admin.call('PING'), { t: 'error', v: BUSY_EVAL }, proc.name);
      admin.send(['SHUTDOWN', 'NOSAVE']);
      await within(new Promise((resolve) => proc.child.once('exit', resolve)), `${proc.name} to exit`);
      runner.close();
    } finally {
      admin.close();
      await proc.kill();
    }
  }
});

test('a script that yielded stays one command: a blocked client is served after it, keys do not expire under it, its writes reach the AOF whole', async () => {
  for (const start of [
    () => startSluiceProcess('--appendonly', 'yes', '--dir', mkdtempSync(join(tmpdir(), 'sluice-busy-')), '--enable-debug-command', 'yes'),
    () => startRedisProcess('--appendonly', 'yes', '--enable-debug-command', 'yes'),
  ]) {
    const proc = await start();
    const admin = await RespClient.connect(proc.port);
    try {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
      await admin.call('SET', 'short', 'lived', 'PX', '50');
      const waiter = await runAside(proc.port, 'BLPOP', 'list', '0');
      await waitFor(async () => text(await admin.call('INFO', 'clients')).includes('blocked_clients:1'), 'BLPOP to block');
      // The script pushes, then spins until another client names itself "go", then pushes
      // again: BLPOP must get the second element (served once the script is over), and the
      // short-lived key must still exist all along (the script sees the time it started at).
      await admin.call('DEBUG', 'set-disable-deny-scripts', '1');
      const body = `
        redis.call('LPUSH', KEYS[1], 'first')
        local seen = 0
        while true do
          if redis.call('EXISTS', KEYS[2]) == 1 then seen = seen + 1 else return 'expired under the script' end
          if string.find(redis.call('CLIENT', 'LIST'), 'name=go') ~= nil then break end
        end
        redis.call('LPUSH', KEYS[1], 'second')
        return 'done'`;
      const runner = await runAside(proc.port, 'EVAL', body, '2', 'list', 'short');
      await untilBusy(proc.port);
      // Past the key's 50 ms, with the script still running.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const go = await RespClient.connect(proc.port);
      assert.deepEqual(await go.call('CLIENT', 'SETNAME', 'go'), { t: 'error', v: BUSY_EVAL }, proc.name);
      assert.deepEqual((await go.call('HELLO', '2', 'SETNAME', 'go')).t, 'array', proc.name);
      assert.deepEqual(await within(runner.read(), 'the script reply'), { t: 'bulk', v: 'done' }, proc.name);
      assert.deepEqual(await within(waiter.read(), 'the BLPOP reply'), { t: 'array', v: [{ t: 'bulk', v: 'list' }, { t: 'bulk', v: 'second' }] }, proc.name);
      await admin.call('DEBUG', 'set-disable-deny-scripts', '0');
      await waitFor(async () => text(await admin.call('EXISTS', 'short')) === '0', 'the key to expire after the script');
      // Reloaded from the AOF, the list is as the script left it once BLPOP took its element.
      assert.deepEqual(await admin.call('DEBUG', 'LOADAOF'), { t: 'simple', v: 'OK' }, proc.name);
      assert.deepEqual(await admin.call('LRANGE', 'list', '0', '-1'), { t: 'array', v: [{ t: 'bulk', v: 'first' }] }, proc.name);
      go.close();
      runner.close();
      waiter.close();
    } finally {
      admin.close();
      await proc.kill();
    }
  }
});

test('the embedded engine has nobody to serve while a script runs: one that has not written is stopped at the threshold', async () => {
  const { open } = await import('../../src/index.js');
  const db = await open();
  try {
    await db.call('CONFIG', 'SET', 'busy-reply-threshold', '20');
    await assert.rejects(db.call('EVAL', 'while true do end', 0), /Script killed by user with SCRIPT KILL/);
    assert.equal(await db.call('PING'), 'PONG');
  } finally {
    await db.close();
  }
});
