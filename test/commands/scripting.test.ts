// Lua scripts through the embedded engine: EVAL and friends, propagation of a script's effects,
// the checks on the commands scripts call, the sandbox; and the FUNCTION commands where sluice
// answers in its own documented way. Replies are compared byte for byte with redis-server in
// test/differential/eval.cases.ts and scripting.cases.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { type EmbeddedDatabase, open, ReplyError } from '../../src/client/embedded.js';
import { DirectReply, ErrorReply, MapReply } from '../../src/resp/reply.js';
import { recordPropagation } from './keys-helpers.js';
import { callRaw } from '../../src/client/embedded-internals.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';
import { commandLine, recordingPersistence } from '../support/recording-persistence.js';
import type { Propagated } from '../../src/commands/core/effects.js';

/** Records each propagated batch as its lines: a script's effects are one batch. */
function recordBatches(db: EmbeddedDatabase): string[][] {
  const batches: string[][] = [];
  instanceBehind(db).persistence = recordingPersistence((batch) => batches.push(batch.map(commandLine)));
  return batches;
}

test('the embedded engine runs scripts: db.call(EVAL), EVALSHA, SCRIPT LOAD/EXISTS/FLUSH', async () => {
  const db = await open();
  assert.equal(await db.call('EVAL', 'return 1', 0), 1);
  assert.deepEqual(await db.call('EVAL', "return {1, 'two', {3}}", 0), [1, 'two', [3]]);
  assert.equal(await db.call('EVAL', "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])", 1, 'k', 'v'), 'v');
  assert.equal(await db.call('GET', 'k'), 'v');
  const sha = await db.call('SCRIPT', 'LOAD', 'return ARGV[1] .. KEYS[1]');
  assert.equal(sha, createHash('sha1').update('return ARGV[1] .. KEYS[1]').digest('hex'));
  assert.equal(await db.call('EVALSHA', sha, 1, 'b', 'a'), 'ab');
  assert.equal(await db.call('EVALSHA_RO', String(sha).toUpperCase(), 1, 'd', 'c'), 'cd');
  assert.deepEqual(await db.call('SCRIPT', 'EXISTS', sha, 'ffffffffffffffffffffffffffffffffffffffff'), [1, 0]);
  assert.equal(await db.call('SCRIPT', 'FLUSH'), 'OK');
  assert.deepEqual(await db.call('SCRIPT', 'EXISTS', sha), [0]);
  await assert.rejects(db.call('EVALSHA', sha, 0), new ReplyError('NOSCRIPT No matching script. Please use EVAL.'));
  await assert.rejects(db.call('EVAL', 'return +', 0), /ERR Error compiling script \(new function\): user_script:1:/);
  await db.close();
});

test("a script's writes propagate as the commands it ran, in one MULTI/EXEC batch, never as the EVAL", async () => {
  const db = await open();
  const batches = recordBatches(db);
  await db.call('EVAL', "redis.call('SET', 'a', 1); redis.call('INCR', 'a'); redis.call('GET', 'a'); return 1", 0);
  await db.call('EVAL', "return redis.call('GET', 'a')", 0);
  await db.call('EVAL', "redis.call('SELECT', 3); redis.call('SET', 'b', 'x')", 0);
  // A script that fails after a write keeps the write, and logs it, as Redis does.
  await assert.rejects(db.call('EVAL', "redis.call('SET', 'c', 1); error('boom')", 0), /boom/);
  await db.call('EVAL', "redis.set_repl(redis.REPL_NONE); redis.call('SET', 'hidden', 1)", 0);
  assert.deepEqual(batches, [['SET a 1', 'INCR a'], ['SET b x'], ['SET c 1']]);
  // SELECT inside a script changed only the script's database.
  assert.equal(await db.call('GET', 'b'), null);
  assert.equal(await db.call('GET', 'hidden'), '1');
  await db.close();
});

test("redis.call's arguments reach the command byte for byte, whatever their length, and are logged as given", async () => {
  const db = await open();
  const batches: Propagated[][] = [];
  instanceBehind(db).persistence = recordingPersistence((batch) => batches.push(batch));
  // Short ones are copied byte by byte, long ones natively; 100 KB outgrows the 64 KB arena
  // the arguments are laid out in (commands/lua/call-args.ts), and the ones after it follow.
  const lengths = [0, 1, 31, 32, 33, 1000, 70_000, 100_000, 5];
  const values = lengths.map((n, i) => Buffer.from(Array.from({ length: n }, (_, j) => (i * 7 + j * 13) % 256)));
  const script = "for i = 1, #ARGV do redis.call('SET', 'k' .. i, ARGV[i]) end return #ARGV";
  assert.equal(await db.call('EVAL', script, 0, ...values), values.length);
  for (let i = 0; i < values.length; i++) {
    const stored = await callRaw(db, 'GET', `k${i + 1}`);
    assert.ok(Buffer.isBuffer(stored) && stored.equals(values[i]!), `value of length ${lengths[i]}`);
  }
  assert.equal(batches.length, 1);
  const logged = batches[0]!.map((c) => c.argv.map((a) => (Buffer.isBuffer(a) ? Buffer.from(a) : Buffer.from(String(a), 'latin1'))));
  assert.deepEqual(
    logged,
    values.map((v, i) => [Buffer.from('SET'), Buffer.from(`k${i + 1}`), v]),
  );
  // Commands the table finds by name and those it resolves through a subcommand or a wrong arity.
  assert.equal(await db.call('EVAL', "return redis.call('object', 'encoding', 'k9')", 0), 'embstr');
  await assert.rejects(db.call('EVAL', "return redis.call('get')", 0), /Wrong number of args calling Redis command from script/);
  await assert.rejects(db.call('EVAL', "return redis.call('nosuch', 'x')", 0), /Unknown Redis command called from script/);
  await db.close();
});

test('redis.set_repl(REPL_REPLICA): the commands after it go to the replicas and not to the log', async () => {
  const db = await open();
  const logged: string[][] = [];
  const replicaOnly: string[][] = [];
  instanceBehind(db).persistence = recordingPersistence((batch) => {
    logged.push(batch.filter((c) => !c.replicationOnly).map(commandLine));
    replicaOnly.push(batch.filter((c) => c.replicationOnly).map(commandLine));
  });
  await db.call('EVAL', "redis.call('SET', 'a', 1); redis.set_repl(redis.REPL_REPLICA); redis.call('SET', 'b', 2); redis.call('INCR', 'b')", 0);
  assert.deepEqual(logged, [['SET a 1']]);
  assert.deepEqual(replicaOnly, [['SET b 2', 'INCR b']]);
  await db.close();
});

test('EVAL inside MULTI: its commands join the transaction\'s batch', async () => {
  const db = await open();
  const batches = recordBatches(db);
  const s = db.session();
  await s.call('MULTI');
  await s.call('EVAL', "return redis.call('INCR', 'n')", 0);
  await s.call('SET', 'm', 1);
  assert.deepEqual(await s.call('EXEC'), [1, 'OK']);
  assert.deepEqual(batches, [['INCR n', 'SET m 1']]);
  await db.close();
});

test('scripts cannot call noscript or blocking forms, nor write when read-only', async () => {
  const db = await open();
  await assert.rejects(db.call('EVAL', "return redis.call('MULTI')", 0), /ERR This Redis command is not allowed from script script: /);
  await assert.rejects(db.call('EVAL_RO', "return redis.call('SET', 'x', 1)", 0), /ERR Write commands are not allowed from read-only scripts\. script: /);
  await assert.rejects(db.call('EVAL', "#!lua flags=no-writes\nreturn redis.call('DEL', 'x')", 0), /read-only scripts/);
  await assert.rejects(db.call('EVAL', "return redis.call('XREAD', 'BLOCK', 0, 'STREAMS', 's', '$')", 0), /XREAD command is not allowed with BLOCK option from scripts/);
  // BLPOP is a noscript command in Redis 7.0.
  await assert.rejects(db.call('EVAL', "return redis.call('BLPOP', 'nolist', 0)", 0), /not allowed from script/);
  assert.equal(await db.call('EXISTS', 'x'), 0);
  await db.close();
});

test('the sandbox: no os or io, no new globals, protected libraries', async () => {
  const db = await open();
  await assert.rejects(db.call('EVAL', 'return os.time()', 0), /Script attempted to access nonexistent global variable 'os'/);
  await assert.rejects(db.call('EVAL', 'return io', 0), /nonexistent global variable 'io'/);
  await assert.rejects(db.call('EVAL', 'x = 1', 0), /Attempt to modify a readonly table/);
  await assert.rejects(db.call('EVAL', 'string.len = nil', 0), /Attempt to modify a readonly table/);
  assert.equal(await db.call('EVAL', 'return cjson.encode({a = 1})', 0), '{"a":1}');
  assert.equal(await db.call('EVAL', 'return bit.bxor(5, 1)', 0), 4);
  await db.close();
});

test('a table nested past the conversion depth ends in an error reply, and the server keeps serving', async () => {
  const db = await open();
  const raw = await callRaw(db, 'EVAL', 'local a = {}; local b = {a}; a[1] = b; return a', 0);
  assert.ok(raw instanceof DirectReply);
  let depth = 0;
  let node: unknown = raw.toReply();
  while (Array.isArray(node)) {
    assert.equal(node.length, 1);
    node = node[0];
    depth++;
  }
  assert.ok(depth > 100);
  assert.ok(node instanceof ErrorReply);
  assert.equal(node.message, 'ERR reached lua stack limit');
  assert.equal(await db.call('PING'), 'PONG');
  await db.close();
});

test('FUNCTION LOAD / LIST / STATS / DELETE and FCALL: libraries registered by their code', async () => {
  const db = await open();
  const code = "#!lua name=mylib\nredis.register_function{function_name='get', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads'}\nredis.register_function('echo', function(keys, args) return args[1] end)";
  assert.equal(await db.call('FUNCTION', 'LOAD', code), 'mylib');
  await assert.rejects(db.call('FUNCTION', 'LOAD', code), new ReplyError("ERR Library 'mylib' already exists"));
  await assert.rejects(db.call('FUNCTION', 'LOAD', "#!nosuch name=x\n"), new ReplyError("ERR Engine 'nosuch' not found"));
  await assert.rejects(db.call('FUNCTION', 'LOAD', '#!lua name=x\nlocal n = string.len("x")'), /Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'string'/);
  await assert.rejects(db.call('FUNCTION', 'LOAD', '#!lua name=x\nwhile true do end'), /FUNCTION LOAD timeout/);
  await db.call('SET', 'k', 'v');
  assert.equal(await db.call('FCALL', 'get', 1, 'k'), 'v');
  assert.equal(await db.call('FCALL_RO', 'GET', 1, 'k'), 'v');
  assert.equal(await db.call('FCALL', 'echo', 0, 'hi'), 'hi');
  await assert.rejects(db.call('FCALL_RO', 'echo', 0, 'hi'), new ReplyError('ERR Can not execute a script with write flag using *_ro command.'));
  await assert.rejects(db.call('FCALL', 'echo', 'x'), new ReplyError('ERR Bad number of keys provided'));
  assert.deepEqual(await db.call('FUNCTION', 'LIST'), [
    ['library_name', 'mylib', 'engine', 'LUA', 'functions', [
      ['name', 'get', 'description', 'reads', 'flags', ['no-writes']],
      ['name', 'echo', 'description', null, 'flags', []],
    ]],
  ]);
  const stats = await callRaw(db, 'FUNCTION', 'STATS');
  assert.ok(stats instanceof MapReply);
  assert.deepEqual(stats.entries[0], ['running_script', null]);
  assert.deepEqual(stats.entries[1], ['engines', new MapReply([['LUA', new MapReply([['libraries_count', 1], ['functions_count', 2]])]])]);
  assert.equal(await db.call('FUNCTION', 'DELETE', 'mylib'), 'OK');
  await assert.rejects(db.call('FCALL', 'get', 1, 'k'), new ReplyError('ERR Function not found'));
  await db.close();
});

test('FUNCTION DUMP of no libraries is the empty payload redis-server produces, and RESTORE takes it back', async () => {
  const db = await open();
  const payload = (await callRaw(db, 'FUNCTION', 'DUMP')) as Buffer;
  assert.equal(payload.toString('hex'), '0a005d9b5c400f7fa2da');
  for (const policy of [[], ['FLUSH'], ['append'], ['REPLACE']]) {
    assert.equal(await db.call('FUNCTION', 'RESTORE', payload, ...policy), 'OK');
  }
  const corrupt = Buffer.from(payload);
  corrupt[9] ^= 1;
  await assert.rejects(db.call('FUNCTION', 'RESTORE', corrupt), new ReplyError('ERR DUMP payload version or checksum are wrong'));
  await db.close();
});

test('the embedded engine restores a library dumped by redis-server 7.0.15, and dumps it back byte for byte', async () => {
  const db = await open();
  const redisDump = Buffer.from(
    "\xf5@F#!lua name=mylib\nredis.register_function('f', function() return 1 end)\n\x00\xc51\xde\xfcO\xf4E\x99",
    'latin1',
  );
  assert.equal(await db.call('FUNCTION', 'RESTORE', redisDump), 'OK');
  assert.equal(await db.call('FCALL', 'f', 0), 1);
  assert.deepEqual(await callRaw(db, 'FUNCTION', 'DUMP'), redisDump);
  await assert.rejects(db.call('FUNCTION', 'RESTORE', redisDump), new ReplyError('ERR Library mylib already exists'));
  await db.close();
});

test('FUNCTION LOAD/DELETE/FLUSH/RESTORE propagate as themselves (FLUSH and RESTORE even when they change nothing, as Redis); SCRIPT FLUSH logs nothing', async () => {
  const db = await open();
  const log = recordPropagation(db);
  const code = "#!lua name=l\nredis.register_function('f', function() return 1 end)";
  await db.call('FUNCTION', 'FLUSH');
  await db.call('SCRIPT', 'FLUSH', 'SYNC');
  await db.call('FUNCTION', 'LOAD', code);
  await assert.rejects(db.call('FUNCTION', 'LOAD', code), /already exists/);
  await db.call('FUNCTION', 'DELETE', 'l');
  await db.call('FUNCTION', 'RESTORE', (await callRaw(db, 'FUNCTION', 'DUMP')) as Buffer);
  await db.call('SET', 'k', 'v');
  assert.deepEqual(log.map((line) => line.split(' ').slice(0, 2).join(' ')), [
    'FUNCTION FLUSH',
    'FUNCTION LOAD',
    'FUNCTION DELETE',
    'FUNCTION RESTORE',
    'SET k',
  ]);
  await db.close();
});

test('a script that has not written is stopped after busy-reply-threshold, and the server serves on', async () => {
  const db = await open({ config: { 'busy-reply-threshold': '200' } });
  await assert.rejects(db.call('EVAL', 'while true do end', 0), /Script killed by user with SCRIPT KILL/);
  // pcall cannot catch the stop and go on.
  await assert.rejects(db.call('EVAL', "while true do pcall(function() while true do end end) end", 0), /Script killed/);
  await db.call('FUNCTION', 'LOAD', "#!lua name=spin\nredis.register_function('spin', function() while true do end end)");
  await assert.rejects(db.call('FCALL', 'spin', 0), /Script killed/);
  assert.equal(await db.call('PING'), 'PONG');
  assert.equal(await db.call('EVAL', 'return 7', 0), 7);
  await db.close();
});

test('FUNCTION LOAD: a function name with a NUL is invalid, a quoted library name is unquoted (sdssplitargs)', async () => {
  const db = await open();
  await assert.rejects(
    db.call('FUNCTION', 'LOAD', "#!lua name=lib2\nredis.register_function('test\\0test', function() return 1 end)"),
    // redis-server 7.0.15's text, the register error wrapped as it is.
    new ReplyError('ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long'),
  );
  assert.equal(await db.call('FUNCTION', 'LOAD', '#!lua name="foo"\nredis.register_function(\'foo\', function() return 1 end)'), 'foo');
  await assert.rejects(db.call('FUNCTION', 'LOAD', '#!lua name="foo\nreturn 1'), new ReplyError('ERR Invalid library metadata'));
  await assert.rejects(db.call('FUNCTION', 'LOAD', '#!lua name="foo"x\nreturn 1'), new ReplyError('ERR Invalid library metadata'));
  await db.close();
});
