// Protected mode, side by side with redis-server 7.0.15: with no password, a client from another
// host gets the DENIED text and a closed socket, loopback clients are served, and
// `CONFIG SET protected-mode no`, `--protected-mode no` or a password let the foreign client in.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DENIED_REPLY } from '../../src/server/protected-mode.js';
import { foreignHost, type ForeignHost } from './foreign-host.js';
import { startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient, error, simple } from './resp-client.js';

let host: ForeignHost;

before(() => {
  host = foreignHost();
});

after(async () => {
  await stopAll();
  host.destroy();
});

// Both listen on every interface, so the foreign host can reach them.
const sluice = async (...flags: string[]) => (await startSluiceProcess('--bind', '0.0.0.0', ...flags)).port;
const redis = async (...flags: string[]) => (await startRedisProcess('--bind', '0.0.0.0', ...flags)).port;

const PING = 'PING\r\n';

test('a foreign client is DENIED with Redis\'s exact bytes and disconnected; loopback is served', async () => {
  console.error(`# foreign client via ${host.method}`);
  for (const port of [await sluice(), await redis()]) {
    const foreign = await host.probe(port, PING);
    assert.equal(foreign.data.toString('latin1'), DENIED_REPLY);
    assert.equal(foreign.closed, true, 'the connection is closed after the DENIED error');
    const local = await RespClient.connect(port);
    assert.deepEqual(await local.call('PING'), simple('PONG'));
    assert.deepEqual(await local.call('CONFIG', 'GET', 'protected-mode'), { t: 'array', v: [{ t: 'bulk', v: 'protected-mode' }, { t: 'bulk', v: 'yes' }] });
    local.close();
  }
});

test('the sluice and redis replies are the same bytes', async () => {
  const [a, b] = await Promise.all([host.probe(await sluice(), PING), host.probe(await redis(), PING)]);
  assert.ok(a.data.equals(b.data));
  assert.equal(a.closed, b.closed);
});

test('CONFIG SET protected-mode no (from loopback) lets the foreign client in', async () => {
  for (const port of [await sluice(), await redis()]) {
    const local = await RespClient.connect(port);
    assert.deepEqual(await local.call('CONFIG', 'SET', 'protected-mode', 'maybe'), error("ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'"));
    assert.deepEqual(await local.call('CONFIG', 'SET', 'protected-mode', 'no'), simple('OK'));
    const foreign = await host.probe(port, PING, 300);
    assert.equal(foreign.data.toString(), '+PONG\r\n');
    assert.equal(foreign.closed, false);
    assert.deepEqual(await local.call('CONFIG', 'SET', 'protected-mode', 'yes'), simple('OK'));
    assert.equal((await host.probe(port, PING)).data.toString('latin1'), DENIED_REPLY);
    local.close();
  }
});

test('--protected-mode no and a password each let the foreign client in', async () => {
  for (const port of [await sluice('--protected-mode', 'no'), await redis('--protected-mode', 'no')]) {
    assert.equal((await host.probe(port, PING, 300)).data.toString(), '+PONG\r\n');
  }
  for (const port of [await sluice('--requirepass', 'pw'), await redis('--requirepass', 'pw')]) {
    const r = await host.probe(port, 'PING\r\nAUTH pw\r\nPING\r\n', 300);
    assert.equal(r.data.toString(), '-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n');
  }
});

test("a password given to the default user by ACL SETUSER counts as one (Redis checks the user's nopass)", async () => {
  for (const port of [await sluice(), await redis()]) {
    const local = await RespClient.connect(port);
    assert.equal((await host.probe(port, PING)).data.toString('latin1'), DENIED_REPLY);
    assert.deepEqual(await local.call('ACL', 'SETUSER', 'default', '>pw'), simple('OK'));
    const r = await host.probe(port, 'PING\r\nAUTH pw\r\nPING\r\n', 300);
    assert.equal(r.data.toString(), '-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n');
    local.close();
  }
});

test('a bad --protected-mode value is refused at start', async () => {
  await assert.rejects(sluice('--protected-mode', 'sometimes'), /argument must be 'yes' or 'no'/);
});
