// `sluice jobs …` end to end: real child processes against a `sluice server` child and a real
// redis-server: get, list, counts, remove, promote, retry, clean, drain, obliterate, with
// tables, --json and the one-line errors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { Producer } from '../../src/broker/producer.js';
import { Queue } from '../../src/broker/queue.js';
import { Worker } from '../../src/broker/worker.js';
import { uniqueName } from '../support/names.js';
import { waitFor } from '../support/wait.js';
import { runCli, startRedis, startSluice } from './helpers.js';

const targets = await Promise.all([startSluice(), startRedis()]);
after(async () => {
  for (const t of targets) await t.stop();
});

function json<T>(r: { code: number | null; stdout: string; stderr: string }): T {
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout) as T;
}

function assertOneLineError(r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  assert.equal(r.stdout, '');
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `one line, got ${JSON.stringify(r.stderr)}`);
  assert.match(lines[0]!, pattern);
}

for (const target of targets) {
  describe(`sluice jobs against ${target.name}`, () => {
    let conn: Connection;
    before(async () => (conn = await connect(target.url)));
    after(() => conn.close());
    const cli = (...args: string[]) => runCli([...args, '--url', target.url]);

    test('get, list, counts; remove, promote, retry; clean, drain, obliterate', async () => {
      const stream = uniqueName('jobs');
      const producer = new Producer(conn, { stream });
      const queue = new Queue(conn, { stream });
      const worker = new Worker<{ n: number }>(conn, { stream, group: 'g', blockMs: 50, maxDeliveries: 1 }, async (job) => {
        if (job.payload.n === 2) throw new Error('two is bad');
        return job.payload.n * 10;
      });
      await worker.start();
      const run = worker.run();
      const ok = await producer.add({ n: 1 }, { jobId: 'ok-1' });
      const bad = await producer.add({ n: 2 }, { jobId: 'bad-2' });
      await queue.waitUntilFinished(ok, 20_000);
      await waitFor(async () => (await queue.getJob(bad))?.state === 'failed', 'bad-2 failed');
      await worker.close();
      await run;

      const got = json<Record<string, unknown>>(await cli('jobs', 'get', stream, ok, '--json'));
      assert.equal(got['state'], 'completed');
      assert.equal(got['returnValue'], 10);
      assert.deepEqual(got['data'], { n: 1 });
      const table = await cli('jobs', 'get', stream, bad);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /state\s+failed/);
      assert.match(table.stdout, /error\s+two is bad/);
      assertOneLineError(await cli('jobs', 'get', stream, 'nope'), new RegExp(`^sluice: no job nope in ${stream}$`));

      const later = await producer.add({ n: 3 }, { jobId: 'later-3', delayMs: 3_600_000 });
      await producer.add({ n: 4 }, { jobId: 'wait-4' });
      const listed = json<Array<{ id: string }>>(await cli('jobs', 'list', stream, 'delayed', '--json'));
      assert.deepEqual(listed.map((j) => j.id), [later]);
      assert.match((await cli('jobs', 'list', stream, 'failed')).stdout, /bad-2.*two is bad/);
      assert.deepEqual(json(await cli('jobs', 'counts', stream, '--json')), { delayed: 1, prioritized: 0, 'waiting-children': 0, waiting: 1, active: 0, retrying: 0, completed: 1, failed: 1 });

      // promote: the delayed job is waiting now; a second promote is refused
      assert.deepEqual(json(await cli('jobs', 'promote', stream, later, '--json')), { promoted: [later] });
      assert.equal((await queue.getJob(later))?.state, 'waiting');
      assertOneLineError(await cli('jobs', 'promote', stream, later), /^sluice: promoted 0 of 1; job later-3 is waiting, not delayed/);
      // retry: the failed job is waiting again
      assert.equal((await cli('jobs', 'retry', stream, bad)).stdout, 'retried 1\n');
      assert.equal((await queue.getJob(bad))?.state, 'waiting');
      // remove, clean, drain
      assert.deepEqual(json(await cli('jobs', 'remove', stream, 'wait-4', '--json')), { removed: ['wait-4'] });
      assertOneLineError(await cli('jobs', 'remove', stream, 'wait-4'), /^sluice: removed 0 of 1; no job wait-4 in /);
      assert.deepEqual(json(await cli('jobs', 'clean', stream, 'completed', '--grace', '0', '--json')), { removed: [ok] });
      assert.equal((await cli('jobs', 'drain', stream)).stdout, 'removed 2 jobs\n');
      assert.deepEqual(await queue.getJobCounts(), { delayed: 0, prioritized: 0, 'waiting-children': 0, waiting: 0, active: 0, retrying: 0, completed: 0, failed: 0 });
      assertOneLineError(await cli('jobs', 'clean', stream, 'active'), /^sluice: state: completed, failed, delayed or waiting$/);
      // obliterate
      await producer.add({ n: 5 }, { delayMs: 60_000 });
      assert.equal((await cli('jobs', 'obliterate', stream)).stdout, `obliterated ${stream}\n`);
      assert.equal(Number(await conn.call('EXISTS', stream, `${stream}:delayed`)), 0);
      await queue.close();
      await producer.close();
    });
  });
}
