// Command effects fan out to every sink: the AOF (Instance.persistence) and any other (the
// replication backlog) get the same batches, in order, and a sink removed gets no more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCommands } from '../../../src/commands/index.js';
import { Instance } from '../../../src/commands/core/instance.js';
import type { EffectSink, Propagated } from '../../../src/commands/core/effects.js';
import { commandLine, recordingPersistence } from '../../support/recording-persistence.js';

const lines = (batches: Propagated[][]): string[][] => batches.map((b) => b.map(commandLine));

test('every sink receives each batch: a command, an EXEC, an expired key', async () => {
  let now = 1_700_000_000_000;
  const instance = new Instance(allCommands, { now: () => now });
  assert.equal(instance.effects.active, false);
  const aof: Propagated[][] = [];
  const other: Propagated[][] = [];
  instance.persistence = recordingPersistence((batch) => aof.push([...batch]));
  const sink: EffectSink = { append: (batch) => other.push([...batch]) };
  instance.effects.add(sink);
  instance.effects.add(sink); // added once only
  assert.equal(instance.effects.active, true);

  const client = instance.newClient('tcp');
  const run = async (...argv: string[]): Promise<unknown> => instance.execute(client, argv.map((a) => Buffer.from(a)));
  await run('XADD', 's', '5-1', 'f', 'v');
  await run('GET', 'nothing');
  await run('MULTI');
  await run('SET', 'k', 'v', 'PX', '10');
  await run('INCR', 'n');
  await run('EXEC');
  now += 20;
  assert.equal(await run('GET', 'k'), null); // expires on access: a DEL is propagated
  const expected = [['XADD s 5-1 f v'], ['SET k v PXAT 1700000000010', 'INCR n'], ['DEL k']];
  assert.deepEqual(lines(aof), expected);
  assert.deepEqual(lines(other), expected);

  // The AOF turned off (CONFIG SET appendonly no does this): the other sink carries on alone.
  instance.persistence = null;
  assert.equal(instance.effects.active, true);
  await run('SET', 'a', '1');
  assert.equal(aof.length, 3);
  assert.deepEqual(lines(other).at(-1), ['SET a 1']);
  instance.effects.remove(sink);
  assert.equal(instance.effects.active, false);
  await run('SET', 'a', '2');
  assert.equal(other.length, 4);
});
