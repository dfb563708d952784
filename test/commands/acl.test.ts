// ACL through the embedded client: rules as ACL SETUSER parses them and GETUSER shows them,
// the permission check of commands, keys (read and write patterns), channels and selectors,
// AUTH as a user, ACL LOG, deleted users' sessions, and scripts run as the caller's user.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { sessionClient } from '../../src/client/embedded-internals.js';

const rejects = (p: Promise<unknown>, message: string | RegExp) => assert.rejects(p, { message });

/** ACL GETUSER as an object of its fields. */
async function getuser(db: { call(...args: string[]): Promise<unknown> }, name: string): Promise<Record<string, unknown>> {
  const reply = (await db.call('ACL', 'GETUSER', name)) as unknown[];
  const out: Record<string, unknown> = {};
  for (let i = 0; i < reply.length; i += 2) out[String(reply[i])] = reply[i + 1];
  return out;
}

test('new users start off with nothing allowed; rules accumulate', async () => {
  const db = await open();
  assert.equal(await db.call('ACL', 'SETUSER', 'alice'), 'OK');
  let u = await getuser(db, 'alice');
  assert.deepEqual(u['flags'], ['off']);
  assert.equal(u['commands'], '-@all');
  assert.equal(u['keys'], '');
  assert.equal(u['channels'], '');
  await db.call('ACL', 'SETUSER', 'alice', 'on', '>secret', '+@hash', '-hdel', '~h:*', '%R~r:*', '&news');
  u = await getuser(db, 'alice');
  assert.deepEqual(u['flags'], ['on']);
  assert.deepEqual(u['passwords'], ['2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b']);
  assert.equal(u['commands'], '-@all +@hash -hdel');
  assert.equal(u['keys'], '~h:* %R~r:*');
  assert.equal(u['channels'], '&news');
  assert.deepEqual(await db.call('ACL', 'USERS'), ['alice', 'default']);
  await db.close();
});

test('SETUSER is all or nothing, with Redis error texts', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'bob', 'on', '+get');
  await rejects(db.call('ACL', 'SETUSER', 'bob', '+set', '+nosuch'), "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  assert.equal((await getuser(db, 'bob'))['commands'], '-@all +get');
  await rejects(db.call('ACL', 'SETUSER', 'bob', '+config|get|x'), "ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported");
  await rejects(db.call('ACL', 'SETUSER', 'bob', '(+get', '~x'), "ERR Unmatched parenthesis in acl selector starting at '(+get'.");
  await rejects(db.call('ACL', 'SETUSER', 'bob', '!abc'), /The password hash must be exactly 64 characters/);
  await rejects(db.call('ACL', 'SETUSER', 'bob', '<nope'), /The password you are trying to remove from the user does not exist/);
  await rejects(db.call('ACL', 'SETUSER', 'b b'), "ERR Usernames can't contain spaces or null characters");
  await rejects(db.call('ACL', 'DELUSER', 'default'), "ERR The 'default' user cannot be removed");
  await db.close();
});

test('the command check: categories, subcommands, first args', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'c', 'on', 'nopass', 'allkeys', '+@string', '-set', '+client|id', '+select|1');
  const s = db.session();
  await s.call('AUTH', 'c', 'any');
  assert.equal(await s.call('GET', 'k'), null);
  await rejects(s.call('SET', 'k', 'v'), "NOPERM this user has no permissions to run the 'set' command");
  assert.equal(typeof (await s.call('CLIENT', 'ID')), 'number');
  await rejects(s.call('CLIENT', 'LIST'), "NOPERM this user has no permissions to run the 'client|list' command");
  assert.equal(await s.call('SELECT', '1'), 'OK');
  await rejects(s.call('SELECT', '2'), "NOPERM this user has no permissions to run the 'select' command");
  // Single commands come in the command table's order (Redis's: its hash table's), after the categories.
  const rules = String((await getuser(db, 'c'))['commands']).split(' ');
  assert.deepEqual(rules.slice(0, 2), ['-@all', '+@string']);
  assert.deepEqual(rules.slice(2).sort(), ['+client|id', '+select|1', '-set']);
  await db.close();
});

test('key patterns grant reading, writing or both, through the key specs', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'k', 'on', 'nopass', '+@all', '%R~src*', '%W~dst*', '~both');
  const s = db.session();
  await s.call('AUTH', 'k', 'x');
  assert.equal(await s.call('GET', 'src1'), null);
  await rejects(s.call('SET', 'src1', 'v'), 'NOPERM this user has no permissions to access one of the keys used as arguments');
  assert.equal(await s.call('SET', 'dst1', 'v'), 'OK');
  await rejects(s.call('GET', 'dst1'), 'NOPERM this user has no permissions to access one of the keys used as arguments');
  // LMOVE reads and deletes from its source (write needed), inserts into its destination.
  await rejects(s.call('LMOVE', 'src1', 'dst1', 'LEFT', 'LEFT'), /NOPERM/);
  assert.equal(await s.call('SET', 'both', '1'), 'OK');
  assert.equal(await s.call('GET', 'both'), '1');
  assert.equal(await db.call('ACL', 'DRYRUN', 'k', 'COPY', 'src1', 'dst2'), 'OK');
  assert.equal(await db.call('ACL', 'DRYRUN', 'k', 'COPY', 'dst1', 'src2'), "This user has no permissions to access the 'dst1' key");
  await db.close();
});

test('selectors: a command is allowed when any selector allows all of it', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'sel', 'on', 'nopass', '+get', '~a*', '(+set ~b*)');
  assert.equal(await db.call('ACL', 'DRYRUN', 'sel', 'GET', 'a1'), 'OK');
  assert.equal(await db.call('ACL', 'DRYRUN', 'sel', 'SET', 'b1', 'v'), 'OK');
  assert.equal(await db.call('ACL', 'DRYRUN', 'sel', 'GET', 'b1'), "This user has no permissions to access the 'b1' key");
  assert.equal(await db.call('ACL', 'DRYRUN', 'sel', 'SET', 'a1', 'v'), "This user has no permissions to access the 'a1' key");
  assert.equal(await db.call('ACL', 'DRYRUN', 'sel', 'DEL', 'a1'), "This user has no permissions to run the 'del' command");
  const u = await getuser(db, 'sel');
  assert.deepEqual(u['selectors'], [['commands', '-@all +set', 'keys', '~b*', 'channels', '']]);
  await db.call('ACL', 'SETUSER', 'sel', 'clearselectors');
  assert.deepEqual((await getuser(db, 'sel'))['selectors'], []);
  await db.close();
});

test('channels: PUBLISH and SUBSCRIBE match patterns, PSUBSCRIBE needs the pattern itself', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'p', 'on', 'nopass', '+@all', 'resetchannels', '&news.*');
  assert.equal(await db.call('ACL', 'DRYRUN', 'p', 'PUBLISH', 'news.uk', 'm'), 'OK');
  assert.equal(await db.call('ACL', 'DRYRUN', 'p', 'PUBLISH', 'sport', 'm'), "This user has no permissions to access the 'sport' channel");
  assert.equal(await db.call('ACL', 'DRYRUN', 'p', 'PSUBSCRIBE', 'news.*'), 'OK');
  assert.equal(await db.call('ACL', 'DRYRUN', 'p', 'PSUBSCRIBE', 'news.u*'), "This user has no permissions to access the 'news.u*' channel");
  await db.close();
});

test('AUTH as a user, WHOAMI, failed attempts in ACL LOG; deleting the user ends its sessions', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'u', 'on', '>pw', '+acl|whoami', '+ping');
  const s = db.session();
  await rejects(s.call('AUTH', 'u', 'bad'), 'WRONGPASS invalid username-password pair or user is disabled.');
  assert.equal(await s.call('AUTH', 'u', 'pw'), 'OK');
  assert.equal(await s.call('ACL', 'WHOAMI'), 'u');
  await rejects(s.call('GET', 'x'), "NOPERM this user has no permissions to run the 'get' command");
  const log = (await db.call('ACL', 'LOG')) as unknown[][];
  assert.deepEqual(
    log.map((e) => [e[1], e[3], e[5], e[7], e[9]]),
    [
      [1, 'command', 'toplevel', 'get', 'u'],
      [1, 'auth', 'toplevel', 'AUTH', 'u'],
    ],
  );
  assert.equal(await db.call('ACL', 'DELUSER', 'u'), 1);
  assert.equal(sessionClient(s).authenticated, false);
  assert.equal(sessionClient(s).user?.name, 'default');
  await db.close();
});

test('scripts run as the caller: redis.call is refused, redis.acl_check_cmd answers', async () => {
  const db = await open();
  await db.call('ACL', 'SETUSER', 'bob', 'on', '>123', '+@scripting', '+set', '~x*');
  const s = db.session();
  await s.call('AUTH', 'bob', '123');
  assert.equal(await s.call('EVAL', "return redis.acl_check_cmd('set','xx',1)", '1', 'xx'), 1);
  assert.equal(await s.call('EVAL', "return redis.acl_check_cmd('hset','xx','f',1)", '1', 'xx'), null);
  assert.equal(await s.call('EVAL', "return redis.acl_check_cmd('set','yy',1)", '0'), null);
  await rejects(s.call('EVAL', "return redis.acl_check_cmd('invalid-cmd','arg')", '0'), /^ERR Invalid command passed to redis.acl_check_cmd\(\)/);
  assert.equal(await s.call('SET', 'xx', '0'), 'OK');
  await rejects(
    s.call('EVAL', "return redis.call('get','xx')", '0'),
    /^ERR The user executing the script can't run this command or subcommand script: /,
  );
  assert.equal(await s.call('EVAL', "return redis.call('set','xx','1')", '0'), 'OK');
  const entry = ((await db.call('ACL', 'LOG', '1')) as unknown[][])[0]!;
  assert.deepEqual([entry[5], entry[7]], ['lua', 'get']);
  // The client line is the caller's, running EVAL.
  assert.match(String(entry[13]), / cmd=eval user=bob /);
  await db.close();
});

test('the default user follows requirepass', async () => {
  const db = await open();
  await db.call('CONFIG', 'SET', 'requirepass', 'pw');
  assert.deepEqual((await getuser(db, 'default'))['passwords'], ['30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4']);
  const s = db.session();
  await rejects(s.call('PING'), 'NOAUTH Authentication required.');
  assert.equal(await s.call('AUTH', 'pw'), 'OK');
  await db.call('CONFIG', 'SET', 'requirepass', '');
  assert.deepEqual((await getuser(db, 'default'))['flags'], ['on', 'nopass']);
  await db.close();
});
