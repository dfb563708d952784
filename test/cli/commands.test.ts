// `sluice stats` and `sluice dlq` end to end: real child processes against a `sluice server`
// child and against a real redis-server, tables and --json checked, plus the one-line errors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { Connection, Value } from '../../src/client/connection.js';
import { deadLetterFields } from '../../src/broker/dead-letters.js';
import { Producer } from '../../src/broker/producer.js';
import { uniqueName } from '../support/names.js';
import { freePort, runCli, startRedis, startSluice, type Target } from './helpers.js';

const targets = await Promise.all([startSluice(), startRedis()]);
after(async () => {
  for (const t of targets) await t.stop();
});


/** A stream of 3 entries, group g (2 read by c1, 1 acked), group h (nothing read), 2 dead letters. */
async function seed(conn: Connection, stream: string): Promise<string[]> {
  for (let i = 1; i <= 3; i++) await conn.call('XADD', stream, `${i}-0`, 'n', String(i));
  await conn.call('XGROUP', 'CREATE', stream, 'g', '0');
  await conn.call('XGROUP', 'CREATE', stream, 'h', '$');
  await conn.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '2', 'STREAMS', stream, '>');
  await conn.call('XACK', stream, 'g', '1-0');
  const dead: string[] = [];
  for (const [id, err] of [['7-0', 'boom'], ['8-0', 'bad payload']] as const) {
    const fields = deadLetterFields({ entry: { id, pairs: ['payload', `{"order":"${id}"}`], fields: { payload: `{"order":"${id}"}` } } as never, stream, group: 'g', consumer: 'c1', deliveries: 5, error: err });
    dead.push(String(await conn.call('XADD', `${stream}:dead`, '*', ...fields)));
  }
  return dead;
}

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
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

for (const target of targets) {
  describe(`sluice stats and dlq against ${target.name}`, () => {
    let conn: Connection;
    before(async () => {
      conn = await connect(target.url);
    });
    after(async () => {
      await conn.close();
    });
    const cli = (...args: string[]) => runCli([...args, '--url', target.url]);

    test('stats --json reports length, ids, groups, consumers and dead letters', async () => {
      const stream = uniqueName('orders');
      await seed(conn, stream);
      const s = json<Record<string, unknown>>(await cli('stats', stream, '--json'));
      assert.deepEqual(s, {
        stream,
        length: 3,
        firstId: '1-0',
        lastId: '3-0',
        lastGeneratedId: '3-0',
        entriesAdded: 3,
        groups: [
          { name: 'g', paused: false, pending: 1, lastDeliveredId: '2-0', entriesRead: 2, lag: 1, consumers: [{ name: 'c1', pending: 1, idleMs: (s['groups'] as Array<{ consumers: Array<{ idleMs: number }> }>)[0]!.consumers[0]!.idleMs }] },
          { name: 'h', paused: false, pending: 0, lastDeliveredId: '3-0', entriesRead: null, lag: 0, consumers: [] },
        ],
        deadLetters: { stream: `${stream}:dead`, length: 2 },
        delayed: { count: 0, nextDue: null },
        schedules: [],
        fair: { keys: 0, waiting: 0, top: [] },
      });
      const idle = (s['groups'] as Array<{ consumers: Array<{ idleMs: number }> }>)[0]!.consumers[0]!.idleMs;
      assert.ok(Number.isInteger(idle) && idle >= 0);
    });

    test('stats prints readable tables', async () => {
      const stream = uniqueName('orders');
      await seed(conn, stream);
      const r = await cli('stats', stream);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split('\n');
      // Keys are padded to the longest one, the dead-letter line.
      const pad = `dead letters (${stream}:dead)`.length;
      assert.ok(lines.includes(`${'stream'.padEnd(pad)}  ${stream}`), r.stdout);
      assert.ok(lines.includes(`${'length'.padEnd(pad)}  3`));
      assert.ok(lines.includes(`${'first id'.padEnd(pad)}  1-0`));
      assert.ok(lines.includes(`dead letters (${stream}:dead)  2`));
      const header = lines.findIndex((l) => l.startsWith('group  state'));
      assert.deepEqual(lines[header]!.split(/\s+/), ['group', 'state', 'consumers', 'pending', 'last-delivered-id', 'entries-read', 'lag']);
      assert.deepEqual(lines[header + 2]!.split(/\s+/), ['g', 'running', '1', '1', '2-0', '2', '1']);
      assert.deepEqual(lines[header + 3]!.split(/\s+/), ['h', 'running', '0', '0', '3-0', '-', '0']);
      const consumers = lines.findIndex((l) => l.startsWith('group  consumer  pending'));
      assert.deepEqual(lines[consumers + 2]!.split(/\s+/).slice(0, 3), ['g', 'c1', '1']);
    });

    test('pause and resume a group: stats shows it, the flag is what workers read', async () => {
      const stream = uniqueName('orders');
      await seed(conn, stream);
      const paused = await cli('pause', stream, '--group', 'g');
      assert.equal(paused.code, 0, paused.stderr);
      assert.equal(paused.stdout, `paused group g on ${stream}\n`);
      const s = json<{ groups: Array<{ name: string; paused: boolean }> }>(await cli('stats', stream, '--json'));
      assert.deepEqual(s.groups.map((g) => [g.name, g.paused]), [['g', true], ['h', false]]);
      assert.match((await cli('stats', stream)).stdout, /^g\s+paused\s/m);
      assert.equal(Number(await conn.call('HEXISTS', `${stream}:paused`, 'g')), 1);
      const resumed = await cli('resume', stream, '--group', 'g');
      assert.equal(resumed.stdout, `resumed group g on ${stream}\n`);
      assert.equal(Number(await conn.call('EXISTS', `${stream}:paused`)), 0);
      assertOneLineError(await cli('pause', stream), /required option '--group <group>' not specified/);
      // Schedules show with their next tick.
      const info = await new Producer(conn, { stream }).schedule('nightly', { cron: '0 0 3 * * *', tz: 'UTC' }, { job: 'backup' });
      const withSchedule = json<{ schedules: unknown[] }>(await cli('stats', stream, '--json'));
      assert.deepEqual(withSchedule.schedules, [{ id: 'nightly', every: 'cron 0 0 3 * * * (UTC)', next: info.next }]);
      // Delayed jobs show with the soonest due time.
      const due = Date.now() + 3_600_000;
      await new Producer(conn, { stream }).add({ later: true }, { at: due });
      await new Producer(conn, { stream }).add({ later: true }, { at: due + 1000 });
      assert.deepEqual(json<{ delayed: unknown }>(await cli('stats', stream, '--json')).delayed, { count: 2, nextDue: due });
      assert.match((await cli('stats', stream)).stdout, new RegExp(`^delayed\\s+2, next due ${new Date(due).toISOString()}$`, 'm'));
      assert.match((await cli('stats', stream)).stdout, new RegExp(`nightly\\s+cron 0 0 3 \\* \\* \\* \\(UTC\\)\\s+${new Date(info.next).toISOString()}`));
    });

    test('stats --watch renders a frame per refresh (plain frames when not a TTY)', async () => {
      const stream = uniqueName('orders');
      await seed(conn, stream);
      const r = await cli('stats', stream, '--json', '--watch', '--interval', '20', '--count', '3');
      assert.equal(r.code, 0, r.stderr);
      const frames = r.stdout.trim().split('\n\n');
      assert.equal(frames.length, 3);
      for (const f of frames) assert.equal((JSON.parse(f) as { length: number }).length, 3);
      assert.doesNotMatch(r.stdout, /\x1b\[/, 'no escape codes outside a terminal');
    });

    test('dlq list and show give original id, group, deliveries and last error', async () => {
      const stream = uniqueName('orders');
      const dead = await seed(conn, stream);
      const list = json<Array<Record<string, unknown>>>(await cli('dlq', 'list', stream, '--json'));
      assert.deepEqual(list.map((d) => [d['id'], d['sourceId'], d['group'], d['consumer'], d['deliveries'], d['error']]), [
        [dead[0], '7-0', 'g', 'c1', 5, 'boom'],
        [dead[1], '8-0', 'g', 'c1', 5, 'bad payload'],
      ]);
      const table = await cli('dlq', 'list', stream);
      const rows = table.stdout.trim().split('\n');
      assert.deepEqual(rows[0]!.split(/\s+/), ['id', 'original-id', 'group', 'consumer', 'deliveries', 'failed-at', 'last-error']);
      assert.equal(rows.length, 4);
      assert.ok(rows[3]!.startsWith(dead[1]!) && rows[3]!.endsWith('bad payload'), rows[3]);

      const one = json<Record<string, unknown>>(await cli('dlq', 'show', stream, dead[0]!, '--json'));
      assert.equal(one['sourceStream'], stream);
      assert.deepEqual(one['fields'], { payload: '{"order":"7-0"}' });
      const shown = await cli('dlq', 'show', stream, dead[0]!);
      assert.match(shown.stdout, /^original id +7-0$/m);
      assert.match(shown.stdout, /^ {2}payload +\{"order":"7-0"\}$/m);
      assertOneLineError(await cli('dlq', 'show', stream, '1-1'), new RegExp(`^sluice: no dead letter 1-1 in ${stream}:dead$`));
    });

    test('dlq retry re-adds to the source stream, then removes from the dead-letter stream', async () => {
      const stream = uniqueName('orders');
      const dead = await seed(conn, stream);
      const r = json<{ retried: number; entries: Array<{ id: string; newId: string }> }>(await cli('dlq', 'retry', stream, dead[1]!, '--json'));
      assert.equal(r.retried, 1);
      assert.equal(r.entries[0]!.id, dead[1]);
      const readded = (await conn.call('XRANGE', stream, r.entries[0]!.newId, r.entries[0]!.newId)) as Value[][];
      assert.deepEqual(readded[0]![1], ['payload', '{"order":"8-0"}']);
      assert.equal(await conn.call('XLEN', stream), 4);
      assert.deepEqual(((await conn.call('XRANGE', `${stream}:dead`, '-', '+')) as Value[][]).map((e) => e[0]), [dead[0]]);

      assertOneLineError(await cli('dlq', 'retry', stream), /^sluice: retry: give the dead-letter ids to retry, or --all$/);
      assertOneLineError(await cli('dlq', 'retry', stream, dead[1]!), /^sluice: no dead letter .* in /);
      assert.equal(await conn.call('XLEN', stream), 4, 'a failed retry adds nothing');

      const all = await cli('dlq', 'retry', stream, '--all');
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /retried 1\n$/);
      assert.equal(await conn.call('XLEN', stream), 5);
      assert.equal(await conn.call('XLEN', `${stream}:dead`), 0);
    });

    test('dlq retry keeps the dead letter when the re-add fails', async () => {
      const stream = uniqueName('orders');
      const dead = await seed(conn, stream);
      // The source key now holds a string: XADD fails with WRONGTYPE, so nothing may be deleted.
      await conn.call('DEL', stream);
      await conn.call('SET', stream, 'not a stream');
      const r = await cli('dlq', 'retry', stream, dead[0]!);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^sluice: retried 0 of 1; ${dead[0]} kept in ${stream}:dead: re-adding it to '${stream}' failed: WRONGTYPE `));
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1);
      assert.equal(await conn.call('XLEN', `${stream}:dead`), 2);
    });

    test('dlq purge deletes the given ids or all', async () => {
      const stream = uniqueName('orders');
      const dead = await seed(conn, stream);
      assert.deepEqual(json(await cli('dlq', 'purge', stream, dead[0]!, '--json')), { purged: 1 });
      assert.equal(await conn.call('XLEN', `${stream}:dead`), 1);
      const r = await cli('dlq', 'purge', stream, '--all');
      assert.equal(r.stdout, 'purged 1\n');
      assert.equal(await conn.call('EXISTS', `${stream}:dead`), 0);
      assert.equal((await cli('dlq', 'list', stream)).stdout, `no dead letters in ${stream}:dead\n`);
    });

    test('unknown stream and wrong type are one-line errors', async () => {
      assertOneLineError(await cli('stats', uniqueName('missing')), /^sluice: stream 'missing-\d+-\d+' does not exist$/);
      const key = uniqueName('str');
      await conn.call('SET', key, 'x');
      assertOneLineError(await cli('stats', key), new RegExp(`^sluice: key '${key}' is not a stream$`));
      await conn.call('SET', `${key}:dead`, 'x');
      assertOneLineError(await cli('dlq', 'list', key), new RegExp(`^sluice: key '${key}:dead' is not a stream$`));
    });
  });
}

describe('connection errors', () => {
  test('a bad URL is one line and exit 1', async () => {
    assertOneLineError(await runCli(['stats', 's', '--url', 'not a url']), /^sluice: invalid --url 'not a url'/);
    assertOneLineError(await runCli(['dlq', 'list', 's', '--url', 'http://127.0.0.1:1']), /^sluice: invalid --url .*scheme must be redis/);
  });

  test('a refused connection is one line and exit 1', async () => {
    const port = await freePort();
    assertOneLineError(await runCli(['stats', 's', '--url', `redis://127.0.0.1:${port}`]), new RegExp(`^sluice: connection refused \\(127\\.0\\.0\\.1:${port}\\)$`));
    assertOneLineError(await runCli(['dlq', 'retry', 's', '--all', '--url', `redis://127.0.0.1:${port}`]), /^sluice: connection refused/);
  });

  test('--debug adds the stack trace', async () => {
    const port = await freePort();
    const r = await runCli(['stats', 's', '--debug', '--url', `redis://127.0.0.1:${port}`]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^sluice: connection refused/);
    assert.match(r.stderr, /\n\s+at /);
  });
});
