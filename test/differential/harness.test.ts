// The judge itself: it must notice a difference, see through a mask only where told, fail
// loudly without redis-server, and produce the same random scripts for the same seed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keySpace, Rng } from './case-types.js';
import { parseFrame } from './frames.js';
import { sorted } from './normalize.js';
import { runScript } from './runner.js';
import { startRedis, useTargets } from './targets.js';

const targets = useTargets();

test('a missing redis-server is an error, not a skip', async () => {
  await assert.rejects(startRedis('/nonexistent/redis-server'), /cannot start \/nonexistent\/redis-server/);
});

test('identical servers agree; a differing reply is reported with both byte strings', async () => {
  assert.equal(await runScript(targets.redis, targets.redis, [['SET', 'a', '1'], ['GET', 'a']], 2), null);
  // A command sluice deliberately answers otherwise (it runs no Lua) must show up as a mismatch.
  const m = await runScript(targets.redis, targets.sluice, [['SET', 'a', '1'], ['EVAL', 'return 1', '0']], 3);
  assert.ok(m !== null);
  assert.equal(m.step, 1);
  assert.equal(m.redis, JSON.stringify(':1\r\n'));
  assert.match(m.sluice, /sluice does not support Lua scripting/);
});

test('a mask relaxes only its own step', async () => {
  const steps = [['SADD', 's', 'b', 'a', 'c'], { argv: ['SMEMBERS', 's'], mask: 'sorted' as const }, ['SCARD', 's']];
  assert.equal(await runScript(targets.redis, targets.sluice, steps, 2), null);
  const raw = Buffer.from('*3\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n');
  assert.equal(sorted(parseFrame(raw)!.frame).toString(), '*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n');
});

test('the frame reader splits nested RESP3 and waits for incomplete input', () => {
  const raw = Buffer.from('%1\r\n+k\r\n*2\r\n:1\r\n$4\r\na\r\nb\r\n|1\r\n+ttl\r\n:3\r\n_\r\n');
  const first = parseFrame(raw, 0)!;
  assert.equal(first.frame.type, '%');
  assert.equal(first.frame.children!.length, 2);
  assert.equal(first.frame.children![1]!.children![1]!.raw.toString(), "$4\r\na\r\nb\r\n");
  const second = parseFrame(raw, first.end)!;
  assert.equal(second.frame.type, '|');
  assert.equal(second.end, raw.length);
  assert.equal(parseFrame(raw.subarray(0, raw.length - 1), first.end), undefined);
});

test('the same seed gives the same random key space', () => {
  const draw = (seed: number) => {
    const rng = new Rng(seed);
    const space = keySpace(rng);
    return Array.from({ length: 20 }, () => [space.key('hash'), space.field(), space.value()].join('|'));
  };
  assert.deepEqual(draw(42), draw(42));
  assert.notDeepEqual(draw(42), draw(43));
});
