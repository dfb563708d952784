// Fault injection with real processes: `sluice server --dir` is SIGKILLed at random moments
// while 20 clients write (SET and XADD), while rewrites run (BGREWRITEAOF in a loop and a low
// auto-rewrite threshold) and while it loads its files at start; after every kill it restarts
// on the same directory (the dead holder's lock is taken over) and must hold every write it
// acknowledged. Every client gets an answer or a closed socket. Seeded: FAULT_SEED replays.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSluiceProcess, stopAll } from '../server/processes.js';
import { RespClient } from '../server/resp-client.js';
import { removeDir, tempDir } from '../persist/helpers.js';
import { Acks, assertAllAcked, random, seedFromEnv, writer } from './workload.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { MAIN } from '../cli/helpers.js';

after(stopAll);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends BGREWRITEAOF every `everyMs` until stopped or disconnected. */
async function rewriter(port: number, everyMs: number, shouldStop: () => boolean): Promise<number> {
  const c = await RespClient.connect(port);
  let n = 0;
  try {
    while (!shouldStop()) {
      await c.call('BGREWRITEAOF');
      n++;
      await sleep(everyMs);
    }
  } catch {
    // killed
  } finally {
    c.close();
  }
  return n;
}

/** Starts `sluice server --dir` and SIGKILLs it after `ms`, whatever it was doing (loading). */
async function killDuringStart(dir: string, ms: number): Promise<void> {
  const child = spawn(process.execPath, [MAIN, 'server', '--port', '0', '--dir', dir], { stdio: 'ignore' });
  await sleep(ms);
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

test('kill -9 during writes, rewrites and loads loses no acknowledged write', async () => {
  const rand = random(seedFromEnv());
  const dir = tempDir('fault-kill9');
  const acks = new Acks();
  try {
    const rounds = 6;
    for (let round = 0; round < rounds; round++) {
      const policy = round % 3 === 2 ? 'everysec' : 'always';
      const server = await startSluiceProcess('--dir', dir, '--appendfsync', policy);
      await assertAllAcked(server.port, acks, `round ${round} start`);
      const admin = await RespClient.connect(server.port);
      await admin.call('CONFIG', 'SET', 'auto-aof-rewrite-min-size', String(64 * 1024));
      await admin.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '50');
      admin.close();
      let killed = false;
      const stop = () => killed;
      const writers = Array.from({ length: 20 }, (_, w) => writer(server.port, `r${round}w${w}`, acks, stop, { valueBytes: 64 }));
      const rewrites = rewriter(server.port, 30 + Math.floor(rand() * 70), stop);
      await sleep(150 + Math.floor(rand() * 600));
      await server.kill();
      killed = true;
      const sent = (await Promise.all(writers)).reduce((a, b) => a + b, 0);
      await rewrites;
      assert.deepEqual(acks.unexpected, [], `round ${round}: unexpected replies`);
      assert.ok(sent > 0, `round ${round}: the writers wrote`);
      // Half the rounds also kill the next start while it loads the files.
      if (round % 2 === 1) await killDuringStart(dir, Math.floor(rand() * 250));
    }
    const server = await startSluiceProcess('--dir', dir);
    await assertAllAcked(server.port, acks, 'final');
    console.error(`# ${acks.total} acknowledged writes checked after ${rounds} kills`);
    assert.ok(acks.total > 200, `enough writes acknowledged (${acks.total})`);
    await server.kill();
  } finally {
    removeDir(dir);
  }
});
