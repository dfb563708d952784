// A MULTI's commands as one script call (scripted-multi.ts) must answer and leave the keyspace as
// the MULTI of the same commands and fail as it fails; a fairness move's script
// (fairness/move-script.ts) must move the picks in order and link their records without bringing
// back a deleted one. Run on every backend's Lua (the broker scripts them on Redis and Valkey only).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Arg, Value } from '../../src/client/connection.js';
import { TransactionError } from '../../src/client/connection.js';
import { scriptedMulti } from '../../src/broker/scripted-multi.js';
import { FAIR_MOVE_SCRIPT, FAIR_MOVE_SHA1, type Pick } from '../../src/broker/fairness/move-script.js';
import { laneKey } from '../../src/broker/fairness/lanes.js';
import { jobKeys } from '../../src/broker/jobs/keys.js';
import { backends, describeEach } from './backends.js';
import { unique } from '../support/names.js';
import { dumpPrefix } from '../support/keyspace-dump.js';

/** A command on keys under prefix p: lists, hashes, a sorted set, strings (a WRONGTYPE now and then). */
const command = fc.oneof(
  fc.record({ c: fc.constant('RPUSH'), k: fc.constantFrom('l1', 'l2', 's'), v: fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ c: fc.constant('LTRIM'), k: fc.constantFrom('l1', 'l2'), v: fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })).map(([a, b]) => [String(a), String(b)]) }),
  fc.record({ c: fc.constant('HSET'), k: fc.constantFrom('h1', 'h2'), v: fc.tuple(fc.constantFrom('a', 'b'), fc.string({ maxLength: 8 })).map(([f, v]) => [f, v]) }),
  fc.record({ c: fc.constant('HSETNX'), k: fc.constantFrom('h1', 'h2'), v: fc.tuple(fc.constantFrom('a', 'c'), fc.string({ maxLength: 8 })).map(([f, v]) => [f, v]) }),
  fc.record({ c: fc.constant('ZADD'), k: fc.constant('z'), v: fc.tuple(fc.constantFrom([], ['NX'], ['XX']), fc.integer({ min: 0, max: 99 }), fc.constantFrom('m1', 'm2')).map(([o, s, m]) => [...o, String(s), m]) }),
  fc.record({ c: fc.constant('SET'), k: fc.constantFrom('s', 'h1'), v: fc.string({ maxLength: 8 }).map((v) => [v]) }),
  fc.record({ c: fc.constant('GET'), k: fc.constantFrom('s', 'missing'), v: fc.constant([]) }),
);

describeEach(backends, (name) => `a MULTI as one script call on ${name}`, (b) => {
  test('replies and keyspace as the MULTI of the same commands; a failing command rejects as EXEC, the others applied', async () => {
    const conn = await b.connect();
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (cs) => {
          const [p, q] = [unique('sm-a') + ':', unique('sm-b') + ':'];
          const rows = (pre: string): Arg[][] => cs.map((x) => [x.c, pre + x.k, ...x.v]);
          const viaMulti = await conn.multi(rows(p)).then(
            (r) => r,
            (err: Error) => err,
          );
          const viaScript = await scriptedMulti(conn, `${q}s`, rows(q)).then(
            (r) => r,
            (err: Error) => err,
          );
          if (viaMulti instanceof Error) {
            assert.ok(viaScript instanceof TransactionError, `rejects as the MULTI: ${viaMulti.message}`);
            assert.equal(viaScript.message.split(' ')[0], viaMulti.message.split(' ')[0]);
          } else assert.deepEqual(viaScript, viaMulti);
          assert.deepEqual(await dumpPrefix(conn, q), await dumpPrefix(conn, p));
        }),
        { numRuns: 40 },
      );
    } finally {
      await conn.close();
    }
  });

  test("a fairness move's script: picks in order from the lanes' heads, records linked (a deleted one stays deleted), a foreign element verbatim, then the rest", async () => {
    const conn = await b.connect();
    try {
      const p = unique('sm-move');
      const stream = `{${p}}`;
      const lane = (k: string): string => laneKey(stream, k);
      const job = (id: string): string[] => ['payload', `"${id}"`, 'job-id', id];
      await conn.call('RPUSH', lane('a'), JSON.stringify(job('j1')), JSON.stringify(job('j2')), 'not ours', JSON.stringify(job('j4')));
      await conn.call('RPUSH', lane('b'), JSON.stringify(job('j3')));
      for (const id of ['j1', 'j3']) await conn.call('HSET', jobKeys(stream).record(id), 'data', id);
      const picks: Pick[] = [[lane('a'), 0, 'a', ''], [lane('b'), 0, 'b', 'tok'], [lane('a'), 1, 'a', ''], [lane('a'), 2, 'a', '']];
      const rest = [['LTRIM', lane('a'), '3', '-1'], ['LTRIM', lane('b'), '1', '-1'], ['SET', `${stream}:guard`, '1']];
      const ids = (await conn.call('EVAL', FAIR_MOVE_SCRIPT, 1, stream, JSON.stringify({ p: picks, r: rest }), jobKeys(stream).record(''))) as Value[];
      const entries = (await conn.call('XRANGE', stream, '-', '+')) as Array<[string, string[]]>;
      assert.deepEqual(ids, entries.map((e) => e[0]));
      assert.deepEqual(
        entries.map((e) => e[1]),
        [job('j1'), [...job('j3'), 'fair-slot', 'tok'], job('j2'), ['fair-element', 'not ours', 'fair-key', 'a']],
      );
      assert.equal(await conn.call('HGET', jobKeys(stream).record('j1'), 'entry'), ids[0]);
      assert.equal(await conn.call('HGET', jobKeys(stream).record('j3'), 'entry'), ids[1]);
      assert.equal(Number(await conn.call('EXISTS', jobKeys(stream).record('j2'))), 0, 'a record deleted meanwhile is not brought back');
      assert.deepEqual(await conn.call('LRANGE', lane('a'), 0, -1), [JSON.stringify(job('j4'))]);
      assert.equal(Number(await conn.call('LLEN', lane('b'))), 0);
      assert.equal(await conn.call('GET', `${stream}:guard`), '1');
      assert.equal(await conn.call('SCRIPT', 'EXISTS', FAIR_MOVE_SHA1).then((r) => (r as Value[])[0]), 1, 'cached under the SHA1 the taker calls');
    } finally {
      await conn.close();
    }
  });
});
