// ACL users from files with `sluice server redis.conf`: `user` lines (checked while the file
// is read, applied at start), an aclfile read at start, ACL SAVE and ACL LOAD (all or nothing,
// with Redis's messages), and CONFIG REWRITE writing the users back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CLI_MAIN, freePort, spawnUntil } from '../support/processes.js';
import { RespClient, bulk, error, simple } from './resp-client.js';

const work = mkdtempSync(join(tmpdir(), 'sluice-aclfile-'));
after(() => rmSync(work, { recursive: true, force: true }));

async function startFile(conf: string) {
  const proc = await spawnUntil(process.execPath, [CLI_MAIN, 'server', conf], /ready on [^\s:]+:(\d+)\n/);
  return { proc, port: Number(proc.match[1]) };
}

function refused(conf: string): { code: number | null; output: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, 'server', conf], { encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, output: r.stdout + r.stderr };
}

test('user lines: loaded at start, checked while read, written back by CONFIG REWRITE', async () => {
  const dir = mkdtempSync(join(work, 'lines-'));
  const conf = join(dir, 'redis.conf');
  writeFileSync(conf, `port ${await freePort()}\ndir ${dir}\nuser default on nopass ~* &* +@all -flushdb\nuser alice on >pw ~a:* +get\n`);
  const { proc, port } = await startFile(conf);
  try {
    const c = await RespClient.connect(port);
    assert.deepEqual(await c.call('FLUSHDB'), error("NOPERM this user has no permissions to run the 'flushdb' command"));
    assert.deepEqual(await c.call('AUTH', 'alice', 'pw'), simple('OK'));
    assert.deepEqual(await c.call('GET', 'b:1'), error('NOPERM this user has no permissions to access one of the keys used as arguments'));
    assert.deepEqual(await c.call('AUTH', 'default', 'x'), simple('OK'));
    assert.deepEqual(await c.call('CONFIG', 'REWRITE'), simple('OK'));
    c.close();
  } finally {
    await proc.stop();
  }
  const text = readFileSync(conf, 'utf8');
  assert.match(text, /^user alice on #[0-9a-f]{64} ~a:\* resetchannels -@all \+get$/m);
  assert.match(text, /^user default on nopass sanitize-payload ~\* &\* \+@all -flushdb$/m);

  writeFileSync(conf, 'port 0\nuser bob on bogus\n');
  const bad = refused(conf);
  assert.equal(bad.code, 1);
  assert.match(bad.output, /Error in user declaration 'bob': Syntax error/);
  writeFileSync(conf, 'port 0\nuser foo\nuser foo\n');
  assert.match(refused(conf).output, /Error in user declaration 'foo': Duplicate user found\. A user can only be defined once in config files/);
});

test('aclfile: read at start, ACL SAVE writes ACL LIST, ACL LOAD is all or nothing', async () => {
  const dir = mkdtempSync(join(work, 'file-'));
  const conf = join(dir, 'redis.conf');
  writeFileSync(join(dir, 'users.acl'), 'user alice on allcommands allkeys &* >alice\nuser bob on -@all +@set +acl ~set* &* >bob\n');
  writeFileSync(conf, `port ${await freePort()}\ndir ${dir}\naclfile users.acl\n`);
  const { proc, port } = await startFile(conf);
  try {
    const c = await RespClient.connect(port);
    assert.deepEqual(await c.call('ACL', 'USERS'), { t: 'array', v: [bulk('alice'), bulk('bob'), bulk('default')] });
    assert.deepEqual(await c.call('ACL', 'SETUSER', 'eve', 'on', '>eve', '+get', 'allkeys'), simple('OK'));
    assert.deepEqual(await c.call('ACL', 'SAVE'), simple('OK'));
    const saved = readFileSync(join(dir, 'users.acl'), 'latin1');
    const list = (await c.call('ACL', 'LIST')) as { v: Array<{ v: Buffer | string }> };
    assert.equal(saved, list.v.map((l) => `${l.v.toString()}\n`).join(''));

    // A duplicate user: nothing changes, Redis's message.
    writeFileSync(join(dir, 'users.acl'), `${saved}user alice on nopass ~* -@all\n`);
    assert.deepEqual(
      await c.call('ACL', 'LOAD'),
      error("ERR WARNING: Duplicate user 'alice' found on line 5. WARNING: ACL errors detected, no change to the previously active ACL rules was performed"),
    );
    writeFileSync(join(dir, 'users.acl'), 'user zed on +nosuch\n');
    assert.deepEqual(
      await c.call('ACL', 'LOAD'),
      error("ERR users.acl:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. WARNING: ACL errors detected, no change to the previously active ACL rules was performed"),
    );
    assert.deepEqual(await c.call('ACL', 'USERS'), { t: 'array', v: [bulk('alice'), bulk('bob'), bulk('default'), bulk('eve')] });

    // A good file replaces every user; the clients of the former users are disconnected.
    const other = await RespClient.connect(port);
    assert.deepEqual(await other.call('AUTH', 'eve', 'eve'), simple('OK'));
    writeFileSync(join(dir, 'users.acl'), 'user zed on nopass +ping\n');
    assert.deepEqual(await c.call('ACL', 'LOAD'), simple('OK'));
    assert.deepEqual(await c.call('ACL', 'USERS'), { t: 'array', v: [bulk('default'), bulk('zed')] });
    await assert.rejects(other.call('PING'));
    c.close();
  } finally {
    await proc.stop();
  }
});

test('CONFIG REWRITE right after CONFIG SET requirepass writes the default user with that password', async () => {
  const dir = mkdtempSync(join(work, 'pass-'));
  const conf = join(dir, 'redis.conf');
  writeFileSync(conf, `port ${await freePort()}\ndir ${dir}\n`);
  const { proc } = await startFile(conf);
  try {
    const c = await RespClient.connect(Number(proc.match[1]));
    assert.deepEqual(await c.call('CONFIG', 'SET', 'requirepass', 'pw'), simple('OK'));
    assert.deepEqual(await c.call('CONFIG', 'REWRITE'), simple('OK'));
    c.close();
  } finally {
    await proc.stop();
  }
  // sha256("pw"): the restarted server asks for it.
  assert.match(readFileSync(conf, 'utf8'), /^user default on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~\* &\* \+@all$/m);
});
