// A password given on the command line is not left in the process's arguments, where `ps`
// shows it to every user: as redis-server, sluice server replaces them with a title.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { startRedisProcess, startSluiceProcess, stopAll } from '../server/processes.js';

after(stopAll);

/** What `ps -o args` shows: /proc/PID/cmdline, NULs as spaces, trailing padding dropped. */
const commandLine = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trimEnd();

test('--requirepass and --metrics-token are not in the process arguments, as with redis-server', async () => {
  const redis = await startRedisProcess('--requirepass', 'redis-hunter2');
  assert.doesNotMatch(commandLine(redis.child.pid!), /hunter2/);
  const sluice = await startSluiceProcess('--requirepass', 'sluice-hunter2', '--metrics-port', '0', '--metrics-token', 'scrape-secret');
  const shown = commandLine(sluice.child.pid!);
  assert.doesNotMatch(shown, /hunter2|scrape-secret/);
  assert.equal(shown, `sluice server 127.0.0.1:${sluice.port}`);
});
