// Connection commands through the embedded client: exact Redis 7.0 replies and errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { ErrorReply, MapReply, SimpleString, VerbatimReply } from '../../src/resp/reply.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';
import { callRaw, sessionClient } from '../../src/client/embedded-internals.js';

const rejects = (p: Promise<unknown>, message: string) => assert.rejects(p, { message });

test('PING and ECHO', async () => {
  const db = await open();
  assert.equal(await db.call('PING'), 'PONG');
  assert.equal(await db.call('ping', 'hi'), 'hi');
  await rejects(db.call('PING', 'a', 'b'), "ERR wrong number of arguments for 'ping' command");
  assert.equal(await db.call('ECHO', 'x y'), 'x y');
  await rejects(db.call('ECHO'), "ERR wrong number of arguments for 'echo' command");
  await db.close();
});

test('HELLO switches protocol and reports the server', async () => {
  const db = await open();
  const s = db.session();
  const reply = await callRaw(s, 'HELLO', '3');
  assert.ok(reply instanceof MapReply);
  const fields = Object.fromEntries(reply.entries.map(([k, v]) => [k, v]));
  assert.deepEqual(
    { ...fields, id: 0 },
    { server: 'redis', version: '7.0.15', proto: 3, id: 0, mode: 'standalone', role: 'master', modules: [] },
  );
  assert.equal(fields['id'], await s.call('CLIENT', 'ID'));
  assert.equal(sessionClient(s).resp, 3);
  await rejects(s.call('HELLO', '4'), 'NOPROTO unsupported protocol version');
  await rejects(s.call('HELLO', 'abc'), 'ERR Protocol version is not an integer or out of range');
  await rejects(s.call('HELLO', '3', 'foo'), "ERR Syntax error in HELLO option 'foo'");
  await s.call('HELLO', '2', 'SETNAME', 'worker-1');
  assert.equal(sessionClient(s).resp, 2);
  assert.equal(await s.call('CLIENT', 'GETNAME'), 'worker-1');
  await rejects(s.call('HELLO', '2', 'SETNAME', 'a b'), 'ERR Client names cannot contain spaces, newlines or special characters.');
  await db.close();
});

test('AUTH and HELLO AUTH against requirepass', async () => {
  const db = await open({ config: { requirepass: 'pw' } });
  const s = db.session();
  await rejects(s.call('PING'), 'NOAUTH Authentication required.');
  await rejects(
    s.call('HELLO', '3'),
    'NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time',
  );
  await rejects(s.call('AUTH', 'wrong'), 'WRONGPASS invalid username-password pair or user is disabled.');
  await rejects(s.call('AUTH', 'bob', 'pw'), 'WRONGPASS invalid username-password pair or user is disabled.');
  await rejects(s.call('HELLO', '3', 'AUTH', 'default', 'nope'), 'WRONGPASS invalid username-password pair or user is disabled.');
  assert.equal(await s.call('AUTH', 'default', 'pw'), 'OK');
  assert.equal(await s.call('PING'), 'PONG');
  const t = db.session();
  await t.call('HELLO', '3', 'AUTH', 'default', 'pw');
  assert.equal(await t.call('PING'), 'PONG');
  // RESET drops the authentication when a password is required.
  assert.equal(await t.call('RESET'), 'RESET');
  await rejects(t.call('PING'), 'NOAUTH Authentication required.');
  await db.close();
});

test('AUTH without a configured password', async () => {
  const db = await open();
  await rejects(
    db.call('AUTH', 'x'),
    'ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?',
  );
  assert.equal(await db.call('AUTH', 'default', 'anything'), 'OK');
  await rejects(db.call('AUTH', 'a', 'b', 'c'), 'ERR syntax error');
  await db.close();
});

test('SELECT, QUIT and RESET', async () => {
  const db = await open();
  const s = db.session();
  assert.equal(await s.call('SELECT', '15'), 'OK');
  assert.equal(sessionClient(s).db, 15);
  await rejects(s.call('SELECT', '16'), 'ERR DB index is out of range');
  await rejects(s.call('SELECT', '-1'), 'ERR DB index is out of range');
  await rejects(s.call('SELECT', 'x'), 'ERR value is not an integer or out of range');
  await s.call('HELLO', '3', 'SETNAME', 'n');
  await s.call('MULTI');
  assert.deepEqual(await callRaw(s, 'RESET'), new SimpleString('RESET'));
  assert.equal(sessionClient(s).db, 0);
  assert.equal(sessionClient(s).resp, 2);
  assert.equal(sessionClient(s).multi, null);
  assert.equal(await s.call('CLIENT', 'GETNAME'), null);
  assert.equal(await s.call('QUIT'), 'OK');
  assert.equal(sessionClient(s).closeAfterReply, true);
  await db.close();
});

test('CLIENT ID, SETNAME, GETNAME, INFO, LIST', async () => {
  const db = await open();
  const a = db.session();
  const b = db.session();
  const idA = (await a.call('CLIENT', 'ID')) as number;
  assert.equal(typeof idA, 'number');
  assert.equal(await a.call('CLIENT', 'GETNAME'), null);
  assert.equal(await a.call('CLIENT', 'SETNAME', 'alpha'), 'OK');
  await rejects(a.call('CLIENT', 'SETNAME', 'a\nb'), 'ERR Client names cannot contain spaces, newlines or special characters.');
  const info = await callRaw(a, 'CLIENT', 'INFO');
  assert.ok(info instanceof VerbatimReply);
  assert.match(info.text, new RegExp(`^id=${idA} addr= laddr= fd=-1 name=alpha age=\\d+ idle=\\d+ flags=N db=0 `));
  assert.match(info.text, / cmd=client\|info user=default redir=-1 resp=2 lib-name= lib-ver=\n$/);
  await b.call('MULTI');
  const list = (await a.call('CLIENT', 'LIST')) as string;
  const lines = list.trimEnd().split('\n');
  assert.ok(lines.some((l) => l.startsWith(`id=${idA} `) && l.includes(' cmd=client|list ')));
  const idB = sessionClient(b).id;
  assert.ok(lines.some((l) => l.startsWith(`id=${idB} `) && l.includes(' flags=x ') && l.includes(' multi=0 ')));
  const only = (await a.call('CLIENT', 'LIST', 'ID', String(idB))) as string;
  assert.equal(only.trimEnd().split('\n').length, 1);
  assert.equal(await a.call('CLIENT', 'LIST', 'TYPE', 'pubsub'), '');
  await rejects(a.call('CLIENT', 'LIST', 'TYPE', 'foo'), "ERR Unknown client type 'foo'");
  await rejects(a.call('CLIENT', 'LIST', 'ID', 'x'), 'ERR Invalid client ID');
  await rejects(a.call('CLIENT', 'LIST', 'foo'), 'ERR syntax error');
  await rejects(a.call('CLIENT', 'foo'), "ERR unknown subcommand 'foo'. Try CLIENT HELP.");
  await rejects(a.call('CLIENT'), "ERR wrong number of arguments for 'client' command");
  await db.close();
});

test('CLIENT KILL forms and errors', async () => {
  const db = await open();
  const a = db.session();
  const b = db.session();
  await rejects(a.call('CLIENT', 'KILL', '1.2.3.4:5'), 'ERR No such client');
  assert.equal(await a.call('CLIENT', 'KILL', 'ID', '999999'), 0);
  await rejects(a.call('CLIENT', 'KILL', 'ID', 'x'), 'ERR client-id should be greater than 0');
  await rejects(a.call('CLIENT', 'KILL', 'USER', 'nobody'), "ERR No such user 'nobody'");
  await rejects(a.call('CLIENT', 'KILL', 'foo', 'bar'), 'ERR syntax error');
  await rejects(a.call('CLIENT', 'KILL', 'SKIPME', 'maybe'), 'ERR syntax error');
  await rejects(a.call('CLIENT', 'KILL', 'ID'), 'ERR No such client');
  await rejects(a.call('CLIENT', 'KILL', 'ID', '1', 'SKIPME'), 'ERR syntax error');
  assert.equal(await a.call('CLIENT', 'KILL', 'ID', String(sessionClient(b).id)), 1);
  assert.equal(sessionClient(b).closeAfterReply, true, 'embedded kill marks the session closed');
  // SKIPME yes (the default) spares the caller; SKIPME no includes it.
  assert.equal(await a.call('CLIENT', 'KILL', 'ID', String(sessionClient(a).id)), 0);
  assert.equal(await a.call('CLIENT', 'KILL', 'ID', String(sessionClient(a).id), 'SKIPME', 'no'), 1);
  await db.close();
});

test('CLIENT NO-EVICT, SETINFO, GETREDIR, HELP', async () => {
  const db = await open();
  assert.equal(await db.call('CLIENT', 'NO-EVICT', 'on'), 'OK');
  await rejects(db.call('CLIENT', 'NO-EVICT', 'maybe'), 'ERR syntax error');
  assert.match((await db.call('CLIENT', 'INFO')) as string, / flags=e /);
  assert.equal(await db.call('CLIENT', 'SETINFO', 'LIB-NAME', 'node-redis'), 'OK');
  assert.equal(await db.call('CLIENT', 'SETINFO', 'lib-ver', '5.0.0'), 'OK');
  await rejects(db.call('CLIENT', 'SETINFO', 'foo', 'x'), "ERR Unrecognized option 'foo'");
  await rejects(db.call('CLIENT', 'SETINFO', 'lib-name', 'a b'), 'ERR lib-name cannot contain spaces, newlines or special characters.');
  assert.match((await db.call('CLIENT', 'INFO')) as string, / lib-name=node-redis lib-ver=5\.0\.0\n$/);
  assert.equal(await db.call('CLIENT', 'GETREDIR'), -1);
  const help = (await db.call('CLIENT', 'HELP')) as string[];
  assert.equal(help[0], 'CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
  assert.equal(help.at(-1), '    Prints this help.');
  await db.close();
});

test('CLIENT UNBLOCK ends a blocked call with its timeout reply or an error', async () => {
  const db = await open();
  await rejects(db.call('CLIENT', 'UNBLOCK', 'x'), 'ERR value is not an integer or out of range');
  await rejects(db.call('CLIENT', 'UNBLOCK', '1', 'foo'), 'ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR');
  assert.equal(await db.call('CLIENT', 'UNBLOCK', '999999'), 0);
  // A client parked through the blocking machinery: unblocked with TIMEOUT, then with ERROR.
  const waiter = db.session();
  const pending = instanceBehind(db).blocked.block(sessionClient(waiter), 0, ['k'], 0, () => undefined, 'timed-out');
  assert.equal(await db.call('CLIENT', 'UNBLOCK', String(sessionClient(waiter).id)), 1);
  assert.equal(await pending, 'timed-out');
  const again = instanceBehind(db).blocked.block(sessionClient(waiter), 0, ['k'], 0, () => undefined, null);
  assert.equal(await db.call('CLIENT', 'UNBLOCK', String(sessionClient(waiter).id), 'ERROR'), 1);
  assert.deepEqual(await again, new ErrorReply('UNBLOCKED client unblocked via CLIENT UNBLOCK'));
  assert.equal(await db.call('CLIENT', 'UNBLOCK', String(sessionClient(waiter).id)), 0);
  await db.close();
});
