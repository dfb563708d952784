// used_memory follows the data: the dataset's bytes, kept as keys change, always equal a count
// made afresh from the keys present, whatever the commands did (in-place changes of typed
// values, stored results of the STORE forms, multi-pops, deletes, expiry, RENAME/MOVE/SWAPDB,
// flushes, reloads); FLUSHALL gives every byte back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allCommands } from '../../src/commands/index.js';
import { Instance } from '../../src/commands/core/instance.js';
import { redisMemoryModel, STARTUP_BYTES } from '../../src/commands/used-memory.js';
import type { ClientState } from '../../src/commands/client-state.js';
import { ErrorReply, MapReply, OK, VerbatimReply } from '../../src/resp/reply.js';

/** The dataset's bytes counted from scratch: every key and value present, under the same model. */
function recount(instance: Instance): number {
  let bytes = 0;
  for (const db of instance.keyspace.dbs) {
    for (const [key, value] of db.values) bytes += redisMemoryModel.keyBytes(key.length) + redisMemoryModel.valueBytes(value);
  }
  return bytes;
}

function run(instance: Instance, client: ClientState, argv: string[]): unknown {
  return instance.execute(client, argv.map((a) => Buffer.from(a, 'latin1')));
}

const key = fc.constantFrom('a', 'b', 'c', 'long-key-name-'.repeat(3));
const member = fc.oneof(fc.constantFrom('1', '2', '-70000', 'm', 'x'.repeat(70)), fc.string({ maxLength: 8 }));
const command: fc.Arbitrary<string[]> = fc.oneof(
  fc.tuple(key, member).map(([k, v]) => ['SET', k, v]),
  fc.tuple(key, member).map(([k, v]) => ['APPEND', k, v]),
  fc.tuple(key, member, member).map(([k, f, v]) => ['HSET', k, f, v]),
  fc.tuple(key, member).map(([k, f]) => ['HDEL', k, f]),
  fc.tuple(key, fc.array(member, { minLength: 1, maxLength: 6 })).map(([k, ms]) => ['SADD', k, ...ms]),
  fc.tuple(key, member).map(([k, m]) => ['SREM', k, m]),
  fc.tuple(key, fc.integer({ min: -5, max: 5 }), member).map(([k, s, m]) => ['ZADD', k, String(s), m]),
  fc.tuple(key, member).map(([k, m]) => ['ZREM', k, m]),
  fc.tuple(fc.constantFrom('ZUNIONSTORE', 'ZINTERSTORE', 'ZDIFFSTORE'), key, key, key).map(([c, d, a, b]) => [c, d, '2', a, b]),
  fc.tuple(key, key).map(([d, s]) => ['ZRANGESTORE', d, s, '0', '-2']),
  fc.tuple(key, fc.constantFrom('MIN', 'MAX')).map(([k, where]) => ['ZMPOP', '1', k, where, 'COUNT', '2']),
  fc.tuple(key, fc.array(member, { minLength: 1, maxLength: 6 })).map(([k, ms]) => ['RPUSH', k, ...ms]),
  key.map((k) => ['LPOP', k]),
  fc.tuple(key, member).map(([k, v]) => ['XADD', k, '*', 'f', v]),
  fc.tuple(key, fc.integer({ min: 0, max: 3 })).map(([k, n]) => ['XTRIM', k, 'MAXLEN', String(n)]),
  key.map((k) => ['XGROUP', 'CREATE', k, 'g', '0', 'MKSTREAM']),
  fc.tuple(key, fc.constantFrom('c1', 'c2', 'consumer-with-a-long-name')).map(([k, c]) => ['XREADGROUP', 'GROUP', 'g', c, 'COUNT', '2', 'STREAMS', k, '>']),
  key.map((k) => ['XAUTOCLAIM', k, 'g', 'c3', '0', '0']),
  key.map((k) => ['DEL', k]),
  key.map((k) => ['PEXPIRE', k, '1']),
  fc.tuple(key, key).map(([a, b]) => ['RENAME', a, b]),
  fc.tuple(key, key).map(([a, b]) => ['COPY', a, b, 'REPLACE']),
  key.map((k) => ['MOVE', k, '1']),
  fc.constant<string[]>(['SWAPDB', '0', '1']),
  fc.constant<string[]>(['FLUSHDB']),
  fc.constant<string[]>(['DEBUG', 'RELOAD']),
);

test('the dataset bytes always equal a fresh count of the keys present', () => {
  fc.assert(
    fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
      const instance = new Instance(allCommands, { config: { 'enable-debug-command': 'yes' } });
      const client = instance.newClient('embedded');
      for (const argv of commands) {
        const reply = run(instance, client, argv);
        assert.ok(!(reply instanceof Promise), argv.join(' '));
        // Keys set to expire in 1 ms go, by access or by the active cycle.
        for (const db of instance.keyspace.dbs) db.activeExpireCycle();
        assert.equal(instance.keyspace.datasetBytes(), recount(instance), `after ${argv.join(' ')}`);
      }
      instance.stop();
    }),
    { numRuns: 300 },
  );
});

test('INFO used_memory: grows with the data, back to the startup bytes after FLUSHALL; MEMORY USAGE in the same terms', () => {
  const instance = new Instance(allCommands);
  const client = instance.newClient('embedded');
  const used = (): Map<string, number> => {
    const text = (run(instance, client, ['INFO', 'memory']) as VerbatimReply).text;
    return new Map(text.split('\r\n').filter((l) => /^[a-z_]+:\d+$/.test(l)).map((l) => [l.split(':')[0]!, Number(l.split(':')[1])]));
  };
  const empty = used();
  assert.equal(empty.get('used_memory'), STARTUP_BYTES);
  assert.equal(empty.get('used_memory_dataset'), 0);
  for (let i = 0; i < 2000; i++) run(instance, client, ['XADD', 's', '*', 'field', 'v'.repeat(100)]);
  for (let i = 0; i < 500; i++) run(instance, client, ['SET', `k${i}`, 'x'.repeat(50)]);
  const full = used();
  // 2000 entries of ~110 bytes and 500 strings of ~100 bytes with their keys.
  assert.ok(full.get('used_memory_dataset')! > 250_000 && full.get('used_memory_dataset')! < 400_000, String(full.get('used_memory_dataset')));
  assert.equal(full.get('used_memory'), STARTUP_BYTES + full.get('used_memory_dataset')!);
  const stream = Number(run(instance, client, ['MEMORY', 'USAGE', 's', 'SAMPLES', '0']));
  assert.ok(Math.abs(stream - (redisMemoryModel.keyBytes(1) + redisMemoryModel.valueBytes(instance.keyspace.db(0).values.get('s')!))) < stream * 0.05);
  run(instance, client, ['DEL', 's']);
  assert.ok(used().get('used_memory_dataset')! < full.get('used_memory_dataset')! - 200_000);
  assert.ok(!(run(instance, client, ['FLUSHALL']) instanceof ErrorReply));
  assert.equal(used().get('used_memory'), STARTUP_BYTES);
  assert.equal(used().get('used_memory_peak'), full.get('used_memory'));
  instance.stop();
});

test('MEMORY STATS agrees with INFO memory: totals, keys per database, dataset and overhead summing to the total; MALLOC-STATS and PURGE', () => {
  const instance = new Instance(allCommands);
  const client = instance.newClient('embedded');
  for (let i = 0; i < 100; i++) run(instance, client, ['SET', `k${i}`, 'x'.repeat(30)]);
  run(instance, client, ['SET', 'ttl', 'v', 'EX', '100']);
  run(instance, client, ['SELECT', '2']);
  run(instance, client, ['RPUSH', 'l', 'a', 'b']);
  const reply = run(instance, client, ['MEMORY', 'STATS']) as MapReply;
  const stats = new Map(reply.entries.map(([k, v]) => [String(k), v]));
  const info = (run(instance, client, ['INFO', 'memory']) as VerbatimReply).text;
  const infoField = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)![1]);
  assert.equal(stats.get('total.allocated'), infoField('used_memory'));
  assert.equal(stats.get('startup.allocated'), STARTUP_BYTES);
  assert.equal(stats.get('keys.count'), 102);
  assert.deepEqual([...stats.keys()].filter((k) => k.startsWith('db.')), ['db.0', 'db.2']);
  const db0 = new Map((stats.get('db.0') as MapReply).entries.map(([k, v]) => [String(k), v as number]));
  assert.ok(db0.get('overhead.hashtable.main')! >= 101 * 24);
  assert.ok(db0.get('overhead.hashtable.expires')! > 0);
  assert.equal((stats.get('overhead.total') as number) + (stats.get('dataset.bytes') as number), stats.get('total.allocated'));
  assert.equal(String(run(instance, client, ['MEMORY', 'MALLOC-STATS'])), 'Stats not supported for the current allocator');
  assert.equal(run(instance, client, ['MEMORY', 'PURGE']), OK);
  instance.stop();
});
