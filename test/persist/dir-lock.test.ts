// The data directory's exclusive lock: an embedded open({dir}) and `sluice server --dir` on the
// same directory cannot both run; the second is refused with an error naming the holder (pid,
// host, what it is). The lock is given back on close, and a holder killed with -9 leaves a stale
// lock that the next opener takes over.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { runCli } from '../cli/helpers.js';
import { startSluiceProcess, stopAll } from '../server/processes.js';
import { RespClient, simple } from '../server/resp-client.js';
import { removeDir, tempDir } from './helpers.js';

after(stopAll);

test('embedded first: sluice server --dir on the same directory is refused, naming the holder', async () => {
  const dir = tempDir('lock-embedded-first');
  try {
    const db = await open({ dir });
    await db.call('SET', 'k', 'embedded');
    const cli = await runCli(['server', '--port', '0', '--dir', dir]);
    assert.notEqual(cli.code, 0);
    assert.equal(cli.stdout, '');
    assert.match(cli.stderr, new RegExp(`in use by pid ${process.pid} on host ${hostname()} \\(embedded open\\(\\)`));
    // A second open in this same process is refused as well.
    await assert.rejects(open({ dir }), /in use by pid \d+ .*embedded open\(\)/);
    await db.close();
    assert.equal(existsSync(join(dir, 'sluice.lock')), false, 'released on close');
    const server = await startSluiceProcess('--dir', dir);
    const c = await RespClient.connect(server.port);
    assert.deepEqual(await c.call('GET', 'k'), { t: 'bulk', v: 'embedded' });
    c.close();
    await server.kill();
  } finally {
    removeDir(dir);
  }
});

test('server first: embedded open is refused naming the server\'s pid; after kill -9 the stale lock is taken over', async () => {
  const dir = tempDir('lock-server-first');
  try {
    const server = await startSluiceProcess('--dir', dir, '--appendfsync', 'always');
    const c = await RespClient.connect(server.port);
    assert.deepEqual(await c.call('SET', 'k', 'server'), simple('OK'));
    c.close();
    await assert.rejects(open({ dir }), (err: Error) => {
      assert.equal(err.name, 'DirLockedError');
      assert.match(err.message, new RegExp(`in use by pid ${server.child.pid} on host ${hostname()} \\(sluice server, since `));
      return true;
    });
    await server.kill(); // SIGKILL: the lock file stays, its pid is gone
    assert.equal(existsSync(join(dir, 'sluice.lock')), true);
    const db = await open({ dir });
    assert.equal(await db.call('GET', 'k'), 'server');
    await db.close();
  } finally {
    removeDir(dir);
  }
});
