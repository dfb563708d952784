// SET with an expiry is propagated (AOF, replicas) as Redis 7.0's setGenericCommand rewrites it:
// `SET key value PXAT <ms>` whatever the expiry option and its case, NX/XX/GET dropped. Redis's
// unit/expire.tcl reads this from the replication stream ("set foo1 bar PXAT *").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCommands } from '../../src/commands/index.js';
import { Instance } from '../../src/commands/core/instance.js';
import type { Propagated } from '../../src/commands/core/effects.js';
import { commandLine, recordingPersistence } from '../support/recording-persistence.js';

test('SET ... pxat / EXAT / EX with NX or GET propagates as SET key value PXAT ms', async () => {
  const now = 1_700_000_000_000;
  const instance = new Instance(allCommands, { now: () => now });
  const logged: Propagated[][] = [];
  instance.persistence = recordingPersistence((batch) => logged.push([...batch]));
  const client = instance.newClient('tcp');
  const run = async (...argv: string[]): Promise<unknown> => instance.execute(client, argv.map((a) => Buffer.from(a)));
  await run('set', 'a', '1', 'pxat', String(now + 5000));
  await run('SET', 'b', '2', 'NX', 'PXAT', String(now + 6000), 'GET');
  await run('SET', 'c', '3', 'exat', String(now / 1000 + 7));
  await run('SET', 'd', '4', 'EX', '8', 'GET');
  await run('SET', 'e', '5', 'GET');
  assert.deepEqual(logged.map((b) => b.map(commandLine)), [
    [`SET a 1 PXAT ${now + 5000}`],
    [`SET b 2 PXAT ${now + 6000}`],
    [`SET c 3 PXAT ${now + 7000}`],
    [`SET d 4 PXAT ${now + 8000}`],
    ['SET e 5'],
  ]);
});
