// Server commands through the embedded client: INFO, CONFIG, COMMAND, TIME, SHUTDOWN, DEBUG.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { MapReply, SetReply, SimpleString } from '../../src/resp/reply.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';
import { callRaw } from '../../src/client/embedded-internals.js';

const rejects = (p: Promise<unknown>, message: string) => assert.rejects(p, { message });

function infoFields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

test('INFO: default sections, Redis field names, CRLF lines', async () => {
  const db = await open();
  const text = (await db.call('INFO')) as string;
  const headers = text.split('\r\n').filter((l) => l.startsWith('# '));
  assert.deepEqual(headers, [
    '# Server', '# Clients', '# Memory', '# Persistence', '# Stats', '# Replication', '# CPU',
    '# Modules', '# Errorstats', '# Cluster', '# Keyspace',
  ]);
  const f = infoFields(text);
  assert.equal(f.get('redis_version'), '7.0.15');
  assert.equal(f.get('redis_mode'), 'standalone');
  assert.equal(f.get('role'), 'master');
  assert.match(f.get('used_memory')!, /^\d+$/);
  assert.match(f.get('total_commands_processed')!, /^\d+$/);
  assert.equal(f.get('aof_enabled'), '0');
  assert.ok(text.endsWith('\r\n'));
  await db.close();
});

test('INFO sections: selected, unknown, commandstats, errorstats, keyspace, providers', async () => {
  const db = await open();
  assert.equal(await db.call('INFO', 'nosuchsection'), '');
  const two = (await db.call('INFO', 'server', 'CLIENTS')) as string;
  assert.deepEqual(two.split('\r\n').filter((l) => l.startsWith('#')), ['# Server', '# Clients']);
  await db.call('PING');
  await db.call('PING');
  await db.call('SELECT', 'x').catch(() => {});
  const cs = (await db.call('INFO', 'commandstats')) as string;
  assert.match(cs, /^# Commandstats\r\n/);
  assert.match(cs, /\r\ncmdstat_ping:calls=2,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=0\r\n/);
  assert.match(cs, /cmdstat_select:calls=1,usec=\d+,usec_per_call=[\d.]+,rejected_calls=0,failed_calls=1\r\n/);
  assert.match((await db.call('INFO', 'errorstats')) as string, /errorstat_ERR:count=1\r\n/);
  instanceBehind(db).keyspace.db(3).set('k', Buffer.from('v'));
  assert.equal(await db.call('INFO', 'keyspace'), '# Keyspace\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n');
  instanceBehind(db).info.register('persistence', () => ['loading:0', 'aof_enabled:1']);
  assert.equal(await db.call('INFO', 'persistence'), '# Persistence\r\nloading:0\r\naof_enabled:1\r\n');
  assert.equal(await db.call('CONFIG', 'RESETSTAT'), 'OK');
  assert.doesNotMatch((await db.call('INFO', 'commandstats')) as string, /cmdstat_ping/);
  assert.equal(await db.call('INFO', 'errorstats'), '# Errorstats\r\n');
  await db.close();
});

test('CONFIG GET and SET', async () => {
  const db = await open();
  assert.deepEqual(await db.call('CONFIG', 'GET', 'maxclients'), ['maxclients', '10000']);
  const raw = await callRaw(db, 'CONFIG', 'GET', 'maxclients', 'time*', 'maxclients');
  assert.ok(raw instanceof MapReply);
  assert.deepEqual(raw.entries, [['maxclients', '10000'], ['timeout', '0']]);
  assert.deepEqual(await db.call('CONFIG', 'GET', 'nosuch'), []);
  assert.equal(await db.call('CONFIG', 'SET', 'maxclients', '10', 'timeout', '5'), 'OK');
  assert.deepEqual(await db.call('CONFIG', 'GET', 'maxclients', 'timeout'), ['maxclients', '10', 'timeout', '5']);
  assert.equal(await db.call('CONFIG', 'SET', 'APPENDFSYNC', 'ALWAYS'), 'OK');
  assert.deepEqual(await db.call('CONFIG', 'GET', 'appendfsync'), ['appendfsync', 'always']);
  await rejects(db.call('CONFIG', 'SET', 'foo', '1'), "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  await rejects(
    db.call('CONFIG', 'SET', 'maxclients', 'x'),
    "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer",
  );
  await rejects(
    db.call('CONFIG', 'SET', 'databases', '3'),
    "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config",
  );
  await rejects(
    db.call('CONFIG', 'SET', 'timeout', '1', 'timeout', '2'),
    "ERR CONFIG SET failed (possibly related to argument 'timeout') - duplicate parameter",
  );
  // All or nothing: a bad second pair leaves the first unchanged.
  await rejects(db.call('CONFIG', 'SET', 'timeout', '9', 'maxclients', 'x'), /maxclients/ as unknown as string);
  assert.deepEqual(await db.call('CONFIG', 'GET', 'timeout'), ['timeout', '5']);
  await rejects(db.call('CONFIG', 'SET', 'timeout', '1', 'maxclients'), "ERR wrong number of arguments for 'config|set' command");
  await rejects(db.call('CONFIG', 'GET'), "ERR wrong number of arguments for 'config|get' command");
  await rejects(db.call('CONFIG', 'REWRITE'), 'ERR The server is running without a config file');
  assert.equal(((await db.call('CONFIG', 'HELP')) as string[])[0], 'CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
  await db.close();
});

test('CONFIG SET appendonly: its current value is OK; an in-memory open() has no directory to turn it on in', async () => {
  const db = await open();
  assert.equal(await db.call('CONFIG', 'SET', 'appendonly', 'no'), 'OK');
  await rejects(
    db.call('CONFIG', 'SET', 'appendonly', 'yes'),
    "ERR CONFIG SET failed (possibly related to argument 'appendonly') - this sluice instance has no data directory to write an append-only file to",
  );
  assert.deepEqual(await db.call('CONFIG', 'GET', 'appendonly'), ['appendonly', 'no']);
  await db.close();
});

test('COMMAND, COUNT, INFO, DOCS, LIST, GETKEYS', async () => {
  const db = await open();
  const all = (await db.call('COMMAND')) as unknown[][];
  assert.equal(all.length, await db.call('COMMAND', 'COUNT'));
  const names = all.map((e) => e[0]);
  for (const n of ['ping', 'multi', 'client', 'config', 'command']) assert.ok(names.includes(n), n);
  const [ping] = (await callRaw(db, 'COMMAND', 'INFO', 'ping')) as unknown[][];
  assert.equal(ping![0], 'ping');
  assert.equal(ping![1], -1);
  assert.ok(ping![2] instanceof SetReply);
  assert.deepEqual((ping![2] as SetReply).items, [new SimpleString('fast')]);
  assert.deepEqual(((await db.call('COMMAND', 'INFO', 'nosuch', 'watch')) as unknown[])[0], null);
  const [watch] = (await db.call('COMMAND', 'INFO', 'watch')) as unknown[][];
  assert.deepEqual(watch!.slice(3, 6), [1, -1, 1]);
  const [client] = (await db.call('COMMAND', 'INFO', 'client')) as unknown[][];
  assert.ok((client![9] as unknown[][]).some((sub) => sub[0] === 'client|kill'));
  const [kill] = (await db.call('COMMAND', 'INFO', 'client|kill')) as unknown[][];
  assert.equal(kill![1], -3);
  const list = (await db.call('COMMAND', 'LIST')) as string[];
  assert.ok(list.includes('client|kill') && list.includes('ping'));
  assert.deepEqual(await db.call('COMMAND', 'LIST', 'FILTERBY', 'PATTERN', 'mul*'), ['multi']);
  const docs = await callRaw(db, 'COMMAND', 'DOCS', 'ping');
  assert.ok(docs instanceof MapReply);
  assert.equal(docs.entries[0]![0], 'ping');
  assert.deepEqual(await db.call('COMMAND', 'GETKEYS', 'WATCH', 'a', 'b'), ['a', 'b']);
  await rejects(db.call('COMMAND', 'GETKEYS', 'nosuch', 'a'), 'ERR Invalid command specified');
  await rejects(db.call('COMMAND', 'GETKEYS', 'ping', 'a'), 'ERR The command has no key arguments');
  await rejects(db.call('COMMAND', 'GETKEYS', 'watch'), "ERR wrong number of arguments for 'command|getkeys' command");
  assert.equal(((await db.call('COMMAND', 'HELP')) as string[])[0], 'COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
  await db.close();
});

test('TIME, DEBUG SLEEP, SHUTDOWN without a server', async () => {
  const db = await open();
  const [secs, micros] = (await db.call('TIME')) as string[];
  assert.ok(Math.abs(Number(secs) - Date.now() / 1000) < 5);
  assert.match(micros!, /^\d{1,6}$/);
  // TIME reads the clock stream ids are stamped with: an entry added first is never newer
  for (let i = 0; i < 200; i++) {
    const id = String(await db.call('XADD', 'clock', '*', 'f', 'v'));
    const [s, us] = (await db.call('TIME')) as string[];
    assert.ok(Number(id.split('-')[0]) <= Number(s) * 1000 + Math.floor(Number(us) / 1000), `${id} after TIME ${s}.${us}`);
  }
  assert.equal(await db.call('DEBUG', 'SLEEP', '0'), 'OK');
  assert.equal(await db.call('DEBUG', 'SLEEP', '0.01'), 'OK');
  assert.equal(await db.call('DEBUG', 'SLEEP', 'x'), 'OK'); // Redis's strtod: 0 seconds
  await rejects(db.call('DEBUG', 'nosuch'), "ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP.");
  await rejects(db.call('SHUTDOWN', 'maybe'), 'ERR syntax error');
  await rejects(db.call('SHUTDOWN', 'NOSAVE', 'SAVE'), 'ERR syntax error');
  await rejects(db.call('SHUTDOWN', 'ABORT', 'NOW'), 'ERR syntax error');
  await rejects(db.call('SHUTDOWN', 'ABORT'), 'ERR No shutdown in progress.');
  await rejects(db.call('SHUTDOWN'), 'ERR SHUTDOWN is not available in this process');
  let called: unknown = undefined;
  instanceBehind(db).shutdownHandler = async (opts) => {
    called = opts;
    return 'ERR Errors trying to SHUTDOWN. Check logs.';
  };
  await rejects(db.call('SHUTDOWN', 'NOSAVE', 'NOW', 'FORCE'), 'ERR Errors trying to SHUTDOWN. Check logs.');
  assert.deepEqual(called, { save: false });
  await db.call('MULTI');
  await rejects(db.call('SHUTDOWN'), 'ERR Command not allowed inside a transaction');
  await db.close();
});
