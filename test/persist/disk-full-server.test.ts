// Disk full under appendfsync always, through the socket: the writes whose bytes hit ENOSPC are
// answered at once with MISCONF (they are not acknowledged), reads in the same pipeline get
// their replies, later writes are refused before they run, and once the disk has room again the
// refused bytes are written (so the log holds what memory holds) and writes are accepted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { allCommands } from '../../src/commands/index.js';
import { Instance } from '../../src/commands/core/instance.js';
import { attachPersistence } from '../../src/persist/attach.js';
import { encodeCommand } from '../../src/resp/encoder.js';
import { startServer } from '../../src/server/server.js';
import { RespClient, bulk, error, int, simple } from '../server/resp-client.js';
import { FlakyFs } from './flaky-fs.js';
import { persistenceInfo, removeDir, tempDir } from './helpers.js';

const ENOSPC = error('MISCONF Errors writing to the AOF file: No space left on device');

test('appendfsync always, disk full: prompt MISCONF for the writes that hit it, reads answered, recovery', async () => {
  const dir = tempDir('disk-full-server');
  try {
    const fs = new FlakyFs();
    const instance = new Instance(allCommands);
    const closers: Array<() => Promise<void>> = [];
    await attachPersistence(instance, { dir, appendfsync: 'always', fs }, (fn) => closers.push(fn));
    const server = await startServer({ port: 0, instance });
    for (const fn of closers) server.onShutdown(fn);
    const c = await RespClient.connect(server.port);
    try {
      assert.deepEqual(await c.call('SET', 'a', '1'), simple('OK'));

      fs.writeError = 'ENOSPC';
      const started = Date.now();
      // One write, so the three run as one batch before the disk is asked.
      c.send(Buffer.concat([['SET', 'b', '2'], ['GET', 'a'], ['INCR', 'n']].map((argv) => encodeCommand(argv))));
      assert.deepEqual([await c.read(), await c.read(), await c.read()], [ENOSPC, bulk('1'), ENOSPC]);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 500, `answered in ${elapsed} ms`);

      // Later writes are refused before they run; what ran is visible to reads.
      assert.deepEqual(await c.call('SET', 'c', '3'), ENOSPC);
      assert.deepEqual(await c.call('MGET', 'b', 'c', 'n'), { t: 'array', v: [bulk('2'), bulk(null), bulk('1')] });
      const info = persistenceInfo(String((await c.call('INFO', 'persistence') as { v: string }).v));
      assert.equal(info.aof_last_write_status, 'err');

      fs.writeError = null;
      for (let i = 0; i < 100; i++) {
        const r = await c.call('SET', 'd', '4');
        if (r.t === 'simple') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(await c.call('GET', 'd'), bulk('4'));
      assert.deepEqual(await c.call('INCR', 'n'), int(2));
    } finally {
      c.close();
      fs.writeError = null;
      await server.close();
    }

    // The refused writes were retried into the log: the file holds what memory held.
    const reopened = await open({ dir, appendfsync: 'always' });
    assert.deepEqual(await reopened.call('MGET', 'a', 'b', 'c', 'd', 'n'), ['1', '2', null, '4', '2']);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});
