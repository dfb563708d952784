// INFO commandstats charges a script's whole run to its EVAL (whose time includes the commands it
// called, as Redis counts it), and the commands it called their own time, on sluice server as on
// redis-server: a request batch's time is shared by its requests, not by a script's commands.
// SLOWLOG logs both, newest first: the EVAL after the commands it called.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient, type Wire } from './resp-client.js';

after(async () => {
  await stopAll();
});

function usecOf(info: Wire, name: string): number {
  const line = (info as { v: string }).v.split('\r\n').find((l) => l.startsWith(`cmdstat_${name}:`)) ?? '';
  return Number(/usec=(\d+)/.exec(line)?.[1] ?? NaN);
}

test("a script's time is its EVAL's, which covers the commands it called", async () => {
  for (const proc of [await startSluiceProcess(), await startRedisProcess()]) {
    const c = await RespClient.connect(proc.port);
    try {
      await c.call('CONFIG', 'RESETSTAT');
      await c.call('EVAL', "for i = 1, 20000 do redis.call('INCR', KEYS[1]) end return 1", '1', 'counter');
      const info = await c.call('INFO', 'commandstats');
      const evalUsec = usecOf(info, 'eval');
      const incrUsec = usecOf(info, 'incr');
      assert.ok(incrUsec > 0, `${proc.name}: incr ${incrUsec}`);
      assert.ok(evalUsec >= incrUsec, `${proc.name}: eval ${evalUsec} us, its 20000 INCRs ${incrUsec} us`);
      await c.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0');
      await c.call('SLOWLOG', 'RESET');
      await c.call('EVAL', "redis.call('INCR', KEYS[1]) return 1", '1', 'counter');
      const log = (await c.call('SLOWLOG', 'GET', '10')) as { v: Array<{ v: Array<{ v: unknown }> }> };
      const names = log.v.map((e) => String((e.v[3] as unknown as { v: Array<{ v: unknown }> }).v[0]!.v).toLowerCase());
      assert.deepEqual(names, ['eval', 'incr', 'slowlog'], proc.name);
    } finally {
      c.close();
      await proc.kill();
    }
  }
});
