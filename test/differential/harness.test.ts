// The judge itself: it must notice a difference, see through a mask only where told, fail
// loudly without redis-server, and produce the same random scripts for the same seed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keySpace, Rng } from './case-types.js';
import { frameOf, ReplyParser } from '../support/reply-parser.js';
import { sorted } from './normalize.js';
import { runScript } from './runner.js';
import { startRedis, useTargets } from './targets.js';

const targets = useTargets();

test('a missing redis-server is an error, not a skip', async () => {
  await assert.rejects(startRedis('/nonexistent/redis-server'), /cannot start \/nonexistent\/redis-server/);
});

test('identical servers agree; a differing reply is reported with both byte strings', async () => {
  assert.equal(await runScript(targets.redis, targets.redis, [['SET', 'a', '1'], ['GET', 'a']], 2), null);
  // A command sluice answers otherwise (it has no MODULE command) must show up as a mismatch.
  const m = await runScript(targets.redis, targets.sluice, [['SET', 'a', '1'], ['MODULE', 'LIST']], 3);
  assert.ok(m !== null);
  assert.equal(m.step, 1);
  assert.equal(m.redis, JSON.stringify('*0\r\n'));
  assert.match(m.sluice, /unknown command 'MODULE'/i);
});

test('a mask relaxes only its own step', async () => {
  const steps = [['SADD', 's', 'b', 'a', 'c'], { argv: ['SMEMBERS', 's'], mask: 'sorted' as const }, ['SCARD', 's']];
  assert.equal(await runScript(targets.redis, targets.sluice, steps, 2), null);
  const raw = Buffer.from('*3\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n');
  assert.equal(sorted(frameOf(raw)).toString(), '*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n');
});

test('replies split into frames: nested RESP3, an attribute with its reply, incomplete input awaited', () => {
  const raw = Buffer.from('%1\r\n+k\r\n*2\r\n:1\r\n$4\r\na\r\nb\r\n|1\r\n+ttl\r\n:3\r\n_\r\n');
  const parser = new ReplyParser({ frames: true });
  parser.push(raw.subarray(0, raw.length - 1));
  const first = parser.next()!.frame!;
  assert.equal(first.type, '%');
  assert.equal(first.children!.length, 2);
  assert.equal(first.children![1]!.children![1]!.raw.toString(), '$4\r\na\r\nb\r\n');
  assert.equal(parser.next(), undefined);
  parser.push(raw.subarray(raw.length - 1));
  const second = parser.next()!.frame!;
  assert.equal(second.type, '|');
  assert.equal(second.raw.toString(), '|1\r\n+ttl\r\n:3\r\n_\r\n');
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
