// maxmemory 10mb with noeviction, sluice server and redis-server side by side: XADD until the
// OOM error, then FLUSHALL (or DEL) must give the memory back at once and writes must be
// accepted again (sluice used to keep its V8 heap figure, refusing writes for good). Around the
// limit each XADD is accepted exactly when INFO's used_memory, read just before it, is within
// the limit: the check and INFO count the same thing.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { encodeCommand } from '../../src/resp/encoder.js';
import { type ServerProcess, startRedisProcess, startSluiceProcess, stopAll } from '../server/processes.js';
import { RespClient, type Wire } from '../server/resp-client.js';

after(stopAll);

const LIMIT = 10 * 1024 * 1024;
const OOM = "OOM command not allowed when used memory > 'maxmemory'.";
const PAYLOAD = 'x'.repeat(100);

async function memory(c: RespClient): Promise<{ used: number; notCounted: number; dataset: number }> {
  const text = String(((await c.call('INFO', 'memory')) as Wire & { v: string }).v);
  const field = (name: string) => Number(new RegExp(`\\r\\n${name}:(\\d+)`).exec(text)?.[1] ?? 0);
  return { used: field('used_memory'), notCounted: field('mem_not_counted_for_evict'), dataset: field('used_memory_dataset') };
}

/** Pipelines `n` XADDs; returns how many were accepted (the others must be Redis's OOM error). */
async function xadds(c: RespClient, n: number): Promise<number> {
  c.send(Buffer.concat(Array.from({ length: n }, () => encodeCommand(['XADD', 's', '*', 'f', PAYLOAD]))));
  let accepted = 0;
  for (let i = 0; i < n; i++) {
    const r = await c.read();
    if (r.t === 'error') assert.equal(r.v, OOM);
    else accepted++;
  }
  return accepted;
}

/**
 * XADDs until the first refusal, the last stretch one at a time with INFO read before each.
 * redis-server checks memory with the XADD's own query buffer allocated, which INFO (read a
 * moment before) did not see: within `slack` bytes of the limit either answer is Redis's.
 */
async function fill(c: RespClient, name: string, slack: number): Promise<number> {
  let total = 0;
  while ((await memory(c)).used < LIMIT - 256 * 1024) {
    const accepted = await xadds(c, 1000);
    total += accepted;
    assert.equal(accepted, 1000, `${name}: refused below the limit`);
  }
  let refused = 0;
  for (let i = 0; refused < 20; i++) {
    assert.ok(i < 20_000, `${name}: never refused`);
    const { used, notCounted } = await memory(c);
    const reply = await c.call('XADD', 's', '*', 'f', PAYLOAD);
    const over = used - notCounted > LIMIT;
    if (Math.abs(used - notCounted - LIMIT) <= slack) {
      if (reply.t === 'error') refused++;
      else total++;
      continue;
    }
    assert.equal(reply.t === 'error', over, `${name}: XADD ${reply.t === 'error' ? 'refused' : 'accepted'} with used_memory ${used} against maxmemory ${LIMIT}`);
    if (over) refused++;
    else total++;
  }
  return total;
}

async function scenario(server: ServerProcess, slack: number): Promise<{ filled: number; refilled: number }> {
  const c = await RespClient.connect(server.port);
  try {
    const filled = await fill(c, server.name, slack);
    assert.equal(await xadds(c, 100), 0, `${server.name}: still full`);

    assert.deepEqual(await c.call('FLUSHALL'), { t: 'simple', v: 'OK' });
    const flushed = await memory(c);
    assert.equal(flushed.dataset < 256 * 1024, true, `${server.name}: used_memory_dataset ${flushed.dataset} after FLUSHALL`);
    assert.ok(flushed.used < 2 * 1024 * 1024, `${server.name}: used_memory ${flushed.used} after FLUSHALL`);
    for (let i = 0; i < 20; i++) assert.equal(await xadds(c, 1000), 1000, `${server.name}: writes refused after FLUSHALL`);

    const refilled = await fill(c, server.name, slack);
    assert.deepEqual(await c.call('DEL', 's'), { t: 'int', v: 1n });
    assert.ok((await memory(c)).used < 2 * 1024 * 1024, `${server.name}: used_memory after DEL`);
    assert.equal(await xadds(c, 1000), 1000, `${server.name}: writes refused after DEL`);
    return { filled, refilled };
  } finally {
    c.close();
  }
}

test('maxmemory: writes refused exactly while used_memory is over the limit, accepted again after FLUSHALL or DEL, as on redis-server', async () => {
  const redis = await scenario(await startRedisProcess('--maxmemory', '10mb'), 4096);
  const sluice = await scenario(await startSluiceProcess('--maxmemory', '10mb'), 0);
  // The same data fits: sluice counts keys and values in Redis's layouts.
  for (const k of ['filled', 'refilled'] as const) {
    const ratio = sluice[k] / redis[k];
    assert.ok(ratio > 0.8 && ratio < 1.25, `${k}: sluice took ${sluice[k]} entries, redis-server ${redis[k]}`);
  }
});
