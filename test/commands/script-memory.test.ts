// INFO memory's scripting fields (commands/lua/script-memory.ts): Redis 7.0's field list, the
// caches' sizes counted as Redis counts them (equal to redis-server's for the same scripts and
// libraries), the interpreters' memory from the wasm side (none until one is made, then Lua's
// collector count in whole KB, growing with what is compiled and given back by SCRIPT FLUSH).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { open } from '../../src/client/embedded.js';
import { startRedisServer, startSluiceServer } from '../support/processes.js';

/** INFO memory as field -> value. */
function fields(text: string): Map<string, string> {
  return new Map(
    text
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)] as [string, string]),
  );
}

const LIBRARY = `#!lua name=liba
redis.register_function('fa', function(keys, args) return 'a' end)
redis.register_function{function_name='fb', description='described', callback=function() return 'b' end, flags={'no-writes'}}
`;
// Short (an embstr in Redis) and long bodies; no more than 4 of each so that Redis's dicts are
// not in the middle of a rehash (which counts both tables' buckets) when INFO reads them.
const SCRIPTS = ['return 1', `return '${'x'.repeat(60)}'`, `return {${'1,'.repeat(200)}}`];

const CACHE_FIELDS = [
  'used_memory_scripts_eval',
  'number_of_cached_scripts',
  'number_of_functions',
  'number_of_libraries',
  'used_memory_functions',
  'used_memory_scripts',
  'used_memory_scripts_human',
];

test("INFO memory has redis-server's fields in its order, and the caches' figures are redis-server's", async () => {
  const redis = await startRedisServer();
  const sluice = await startSluiceServer();
  const r = new Redis({ port: redis.port, lazyConnect: true, maxRetriesPerRequest: 0 });
  const s = new Redis({ port: sluice.port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await r.connect();
    await s.connect();
    const both = async (...argv: string[]): Promise<void> => {
      await r.call(argv[0]!, ...argv.slice(1));
      await s.call(argv[0]!, ...argv.slice(1));
    };
    const figures = async (c: Redis): Promise<string[]> => {
      const info = fields(await c.info('memory'));
      const stats = (await c.call('MEMORY', 'STATS')) as unknown[];
      const stat = (name: string): unknown => stats[stats.indexOf(name) + 1];
      return [...CACHE_FIELDS.map((f) => `${f}:${info.get(f)}`), `lua.caches:${stat('lua.caches')}`, `functions.caches:${stat('functions.caches')}`];
    };
    // sluice adds V8's own figures at the end.
    const names = [...fields(await s.info('memory')).keys()].filter((f) => !f.startsWith('v8_'));
    assert.deepEqual(names, [...fields(await r.info('memory')).keys()]);
    assert.deepEqual(await figures(s), await figures(r));
    for (const body of SCRIPTS.slice(0, 2)) await both('EVAL', body, '0');
    await both('SCRIPT', 'LOAD', SCRIPTS[2]!);
    await both('FUNCTION', 'LOAD', LIBRARY);
    const loaded = await figures(s);
    assert.deepEqual(loaded, await figures(r));
    assert.ok(loaded.includes('number_of_cached_scripts:3') && loaded.includes('number_of_functions:2'), loaded.join());
    await both('SCRIPT', 'FLUSH');
    await both('FUNCTION', 'FLUSH');
    assert.deepEqual(await figures(s), await figures(r));
  } finally {
    r.disconnect();
    s.disconnect();
    await redis.stop();
    await sluice.stop();
  }
});

test('the interpreters\' memory: none before the first script, whole KB after, given back by SCRIPT FLUSH', async () => {
  const db = await open();
  try {
    const lua = async (): Promise<Map<string, string>> => fields(String(await db.call('INFO', 'memory')));
    let info = await lua();
    assert.equal(info.get('used_memory_vm_eval'), '0');
    assert.equal(info.get('used_memory_vm_functions'), '0');
    await db.call('EVAL', 'return 1', 0);
    info = await lua();
    const fresh = Number(info.get('used_memory_vm_eval'));
    assert.ok(fresh > 0 && fresh % 1024 === 0, `used_memory_vm_eval ${fresh}`);
    assert.equal(info.get('used_memory_lua'), String(fresh));
    assert.equal(info.get('used_memory_vm_functions'), '0');
    // Each cached script is a compiled function kept in the interpreter.
    for (let i = 0; i < 100; i++) await db.call('SCRIPT', 'LOAD', `return {${'1,'.repeat(50)}${i}}`);
    info = await lua();
    const grown = Number(info.get('used_memory_vm_eval'));
    assert.ok(grown > fresh + 50 * 1024, `${grown} after 100 scripts, ${fresh} fresh`);
    assert.equal(info.get('number_of_cached_scripts'), '101');
    await db.call('SCRIPT', 'FLUSH');
    info = await lua();
    assert.ok(Number(info.get('used_memory_vm_eval')) < grown);
    assert.equal(info.get('number_of_cached_scripts'), '0');
    assert.equal(info.get('used_memory_scripts_eval'), '0');
    await db.call('FUNCTION', 'LOAD', LIBRARY);
    info = await lua();
    const functions = Number(info.get('used_memory_vm_functions'));
    assert.ok(functions > 0 && functions % 1024 === 0);
    assert.equal(info.get('used_memory_vm_total'), String(Number(info.get('used_memory_vm_eval')) + functions));
    assert.equal(info.get('number_of_libraries'), '1');
  } finally {
    await db.close();
  }
});
