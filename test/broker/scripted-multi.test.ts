// A MULTI's commands as one script call (scripted-multi.ts) must answer and leave the keyspace as
// the MULTI of the same commands, fail as it fails, link records to their XADDs without bringing
// back a deleted one, and, under WATCH, apply nothing when the watched key changed. Run on every
// backend's Lua (the broker scripts them on Redis and Valkey only).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Arg, Value } from '../../src/client/connection.js';
import { TransactionError } from '../../src/client/connection.js';
import { MULTI_SHA1, scriptedExecWatched, scriptedMulti } from '../../src/broker/scripted-multi.js';
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

  test('under WATCH: a move applies with its links (a deleted record stays deleted), nothing when the watched key changed, and loads itself after NOSCRIPT', async () => {
    const conn = await b.connect();
    const link = await conn.duplicate();
    try {
      const p = unique('sm-w') + ':';
      await conn.call('HSET', `${p}rec1`, 'data', 'x');
      await link.call('WATCH', `${p}guard`);
      const { replies, unsent } = await scriptedExecWatched(link, `${p}stream`, [['XADD', `${p}stream`, '*', 'n', '1'], ['XADD', `${p}stream`, '*', 'n', '2'], ['SET', `${p}guard`, '1']], [`${p}rec1`, `${p}rec2`, '']);
      assert.equal(unsent, false);
      const ids = (await conn.call('XRANGE', `${p}stream`, '-', '+')) as Value[];
      assert.deepEqual(replies, [(ids[0] as Value[])[0], (ids[1] as Value[])[0], 'OK']);
      assert.equal(await conn.call('HGET', `${p}rec1`, 'entry'), (ids[0] as Value[])[0], 'the record learns its entry');
      assert.equal(Number(await conn.call('EXISTS', `${p}rec2`)), 0, 'a record deleted meanwhile is not brought back');

      await link.call('WATCH', `${p}guard`);
      await conn.call('SET', `${p}guard`, 'another mover');
      const aborted = await scriptedExecWatched(link, `${p}stream`, [['XADD', `${p}stream`, '*', 'n', '3']], ['']);
      assert.deepEqual(aborted, { replies: null, unsent: false });
      assert.equal(Number(await conn.call('XLEN', `${p}stream`)), 2, 'nothing applied');

      await conn.call('SCRIPT', 'FLUSH');
      assert.deepEqual(await conn.call('SCRIPT', 'EXISTS', MULTI_SHA1), [0]);
      await link.call('WATCH', `${p}guard`);
      assert.deepEqual(await scriptedExecWatched(link, `${p}stream`, [['XADD', `${p}stream`, '*', 'n', '3']], ['']), { replies: null, unsent: false }, 'NOSCRIPT: nothing ran');
      assert.deepEqual(await conn.call('SCRIPT', 'EXISTS', MULTI_SHA1), [1], 'loaded for the next attempt');
      await link.call('WATCH', `${p}guard`);
      assert.equal((await scriptedExecWatched(link, `${p}stream`, [['XADD', `${p}stream`, '*', 'n', '3']], [''])).replies?.length, 1);
      assert.equal(Number(await conn.call('XLEN', `${p}stream`)), 3);

      await link.call('WATCH', `${p}guard`);
      assert.deepEqual(await scriptedExecWatched(link, `${p}stream`, [['SET', `${p}k`, Buffer.from([0xff])]], ['']), { replies: null, unsent: true }, 'bytes JSON cannot carry: left to a MULTI');
      await link.call('UNWATCH');
    } finally {
      await link.close();
      await conn.close();
    }
  });
});
