// maxmemory with noeviction, side by side with redis-server 7.0.15: past the limit, denyoom
// writes, anything queued in MULTI and an EXEC of denyoom commands are refused with Redis's OOM
// text (byte for byte, with the same error stats); reads, DEL and EXPIRE go on; nothing is
// evicted. The eviction policies themselves: eviction.test.ts.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { encodeCommand } from '../../src/resp/encoder.js';
import { startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient, error, simple } from './resp-client.js';

after(stopAll);

/** A reply as comparable text (bigints as strings). */
const show = (w: unknown): string => JSON.stringify(w, (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Sends commands one at a time and returns each reply as text. */
async function transcript(port: number, commands: string[][]): Promise<string[]> {
  const c = await RespClient.connect(port);
  const out: string[] = [];
  for (const argv of commands) out.push(show(await c.call(...argv)));
  c.close();
  return out;
}

test('past maxmemory: Redis\'s OOM replies, MULTI/EXEC handling and error stats, keys kept', async () => {
  const servers = [await startSluiceProcess(), await startRedisProcess()];
  const results: string[][] = [];
  for (const server of servers) {
    const c = await RespClient.connect(server.port);
    const admin = await RespClient.connect(server.port);
    await c.call('XADD', 's', '1-1', 'f', 'v');
    await c.call('SET', 'k', 'v');
    await c.call('CONFIG', 'RESETSTAT');
    assert.deepEqual(await c.call('MULTI'), simple('OK'));
    await c.call('SET', 'a', 'b');
    assert.deepEqual(await admin.call('CONFIG', 'SET', 'maxmemory', '1'), simple('OK'));
    results.push(await transcript(server.port, [
      ['GET', 'k'],
      ['XADD', 's', '*', 'a', 'b'],
      ['XGROUP', 'CREATE', 's', 'g', '$'],
      ['XGROUP', 'CREATE', 'new', 'g', '$', 'MKSTREAM'],
      ['XSETID', 's', '5-5'],
      ['INCR', 'n'],
      ['SET', 'x', 'y'],
      ['HSET', 'h', 'f', 'v'],
      ['SADD', 'q', 'm'],
      ['APPEND', 'k', 'x'],
      ['EXPIRE', 'k', '100'],
      ['XLEN', 's'],
      ['XRANGE', 's', '-', '+'],
      ['MULTI'],
      ['GET', 'k'],
      ['EXEC'],
      ['MULTI'],
      ['DISCARD'],
      ['DEL', 'nothing'],
      ['PING'],
    ]));
    // The EXEC of the transaction queued before the limit: discarded with the OOM reason.
    results[results.length - 1]!.push(show(await c.call('EXEC')));
    c.close();
    // A transaction whose command was refused: discarded because of previous errors.
    const t = await RespClient.connect(server.port);
    t.send(Buffer.concat([encodeCommand(['MULTI']), encodeCommand(['SET', 'a', 'b'])]));
    await t.read();
    await t.read();
    results[results.length - 1]!.push(show(await t.call('EXEC')));
    t.close();
    results[results.length - 1]!.push(...(await transcript(server.port, [['INFO', 'errorstats'], ['CONFIG', 'SET', 'maxmemory', '0'], ['SET', 'x', 'y'], ['XLEN', 's']])).map((r) => r.replace(/\\r\\n/g, '\n')));
    admin.close();
  }
  assert.deepEqual(results[0], results[1]);
  assert.ok(results[0]!.includes(show(error("OOM command not allowed when used memory > 'maxmemory'."))));
  assert.ok(results[0]!.includes(show(error("EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'."))));
});

test('maxmemory-policy and the eviction parameters: accepted, refused and answered as Redis', async () => {
  const sluice = await startSluiceProcess();
  const redis = await startRedisProcess();
  const commands = [
    ['CONFIG', 'GET', 'maxmemory-policy'],
    ['CONFIG', 'SET', 'maxmemory-policy', 'bogus'],
    ['CONFIG', 'SET', 'maxmemory-policy', 'NOEVICTION'],
    ['CONFIG', 'SET', 'maxmemory-samples', '0'],
    ['CONFIG', 'SET', 'maxmemory-eviction-tenacity', '101'],
    ['CONFIG', 'SET', 'lfu-log-factor', '-1'],
    ['CONFIG', 'SET', 'lazyfree-lazy-eviction', 'maybe'],
    ['CONFIG', 'GET', 'maxmemory-samples'],
    // maxmemory-clients: checked as Redis checks it (sluice, evicting no clients, then takes only 0).
    ['CONFIG', 'SET', 'maxmemory-clients', '200%'],
    ['CONFIG', 'SET', 'maxmemory-clients', 'lots'],
    ['CONFIG', 'SET', 'maxmemory-clients', '0'],
    ['CONFIG', 'GET', 'maxmemory-clients'],
    // Redis's hidden parameters: by name only, never through a pattern.
    ['CONFIG', 'GET', 'key-load-delay'],
    ['CONFIG', 'GET', '*-load-delay'],
    ['CONFIG', 'GET', 'lfu-decay-time'],
    ['SET', 'k', 'v'],
    ['SET', 'n', '7'],
    ['OBJECT', 'FREQ', 'k'],
    ['OBJECT', 'REFCOUNT', 'n'],
    ['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu'],
    ['OBJECT', 'IDLETIME', 'k'],
    ['DEL', 'k'],
    ['SET', 'k', 'v'],
    ['OBJECT', 'FREQ', 'k'],
    ['CONFIG', 'SET', 'maxmemory', '100mb'],
    ['SET', 'm', '8'],
    ['OBJECT', 'REFCOUNT', 'm'],
    ['CONFIG', 'SET', 'maxmemory-policy', 'volatile-ttl'],
    ['INFO', 'memory'],
  ];
  const [ours, theirs] = await Promise.all([sluice, redis].map((s) => transcript(s.port, commands)));
  const policyLine = (info: string) => /maxmemory_policy:[a-z-]+/.exec(info)?.[0];
  assert.equal(policyLine(ours.pop()!), 'maxmemory_policy:volatile-ttl');
  assert.equal(policyLine(theirs.pop()!), 'maxmemory_policy:volatile-ttl');
  assert.deepEqual(ours, theirs);
  await assert.rejects(startSluiceProcess('--maxmemory-policy', 'sometimes'), /maxmemory-policy/);
  // A flag's limit applies from the start, counted as Redis counts (about 0.9 MB at startup).
  for (const [limit, reply] of [['1mb', simple('OK')], ['512kb', error("OOM command not allowed when used memory > 'maxmemory'.")]] as const) {
    const limited = await Promise.all([startSluiceProcess('--maxmemory', limit), startRedisProcess('--maxmemory', limit)]);
    const [ours, theirs] = await Promise.all(limited.map((s) => transcript(s.port, [['CONFIG', 'GET', 'maxmemory'], ['SET', 'a', 'b']])));
    assert.deepEqual(ours, theirs);
    assert.equal(ours[1], show(reply));
  }
});
