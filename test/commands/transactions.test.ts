// MULTI/EXEC/DISCARD/WATCH through Instance.execute, with a tiny write command of the test's
// own so the test does not depend on the strings family.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commands as connection } from '../../src/commands/connection-commands.js';
import { Instance } from '../../src/commands/core/instance.js';
import { commands as transactions } from '../../src/commands/transactions.js';
import { command } from '../../src/commands/types.js';
import { keyOf } from '../../src/engine/keyspace.js';
import { ErrorReply, NULL_ARRAY, OK, QUEUED, type Reply } from '../../src/resp/reply.js';

const tset = command('tset', 3, ['write'], { first: 1, last: 1, step: 1 }, (ctx, argv) => {
  ctx.db.set(keyOf(argv[1]!), argv[2]!);
  ctx.modified(keyOf(argv[1]!));
  return OK;
});
const tget = command('tget', 2, ['readonly'], { first: 1, last: 1, step: 1 }, (ctx, argv) => {
  const v = ctx.db.get(keyOf(argv[1]!));
  return v === undefined ? null : (v as Buffer).toString();
});

function setup() {
  const instance = new Instance([...connection, ...transactions, tset, tget]);
  const a = instance.newClient('embedded');
  const b = instance.newClient('embedded');
  const run = (client: typeof a, ...args: string[]): Reply => {
    const r = instance.execute(client, args.map((x) => Buffer.from(x)));
    assert.ok(!(r instanceof Promise));
    return r;
  };
  return { instance, a, b, run };
}

const err = (message: string) => new ErrorReply(message);

test('MULTI queues and EXEC runs in order', () => {
  const { a, run } = setup();
  assert.equal(run(a, 'MULTI'), OK);
  assert.equal(run(a, 'tset', 'k', '1'), QUEUED);
  assert.equal(run(a, 'tget', 'k'), QUEUED);
  assert.deepEqual(run(a, 'EXEC'), [OK, '1']);
  assert.equal(a.multi, null);
});

test('transaction errors as Redis words them', () => {
  const { a, run } = setup();
  assert.deepEqual(run(a, 'EXEC'), err('ERR EXEC without MULTI'));
  assert.deepEqual(run(a, 'DISCARD'), err('ERR DISCARD without MULTI'));
  run(a, 'MULTI');
  assert.deepEqual(run(a, 'MULTI'), err('ERR MULTI calls can not be nested'));
  assert.deepEqual(run(a, 'WATCH', 'k'), err('ERR WATCH inside MULTI is not allowed'));
  // Neither error aborts the transaction.
  run(a, 'tset', 'k', 'v');
  assert.deepEqual(run(a, 'EXEC'), [OK]);
});

test('a rejected queued command makes EXEC fail with EXECABORT', () => {
  const { a, run } = setup();
  run(a, 'MULTI');
  assert.deepEqual(run(a, 'tset', 'k'), err("ERR wrong number of arguments for 'tset' command"));
  assert.ok(run(a, 'nosuch') instanceof ErrorReply);
  assert.equal(run(a, 'tset', 'k', 'v'), QUEUED);
  assert.deepEqual(run(a, 'EXEC'), err('EXECABORT Transaction discarded because of previous errors.'));
  assert.equal(a.multi, null);
  assert.equal(run(a, 'tget', 'k'), null, 'nothing ran');
  // The next transaction starts clean.
  run(a, 'MULTI');
  run(a, 'tset', 'k', 'v');
  assert.deepEqual(run(a, 'EXEC'), [OK]);
});

test('DISCARD drops the queue and the WATCHes', () => {
  const { a, b, run } = setup();
  run(a, 'WATCH', 'k');
  run(a, 'MULTI');
  run(a, 'tset', 'k', '1');
  assert.equal(run(a, 'DISCARD'), OK);
  assert.equal(run(a, 'tget', 'k'), null);
  run(b, 'tset', 'k', 'other');
  run(a, 'MULTI');
  run(a, 'tset', 'k', 'mine');
  assert.deepEqual(run(a, 'EXEC'), [OK], 'the discarded WATCH no longer applies');
});

test('WATCH: a change by another client makes EXEC return a null array', () => {
  const { a, b, run } = setup();
  assert.equal(run(a, 'WATCH', 'k', 'j'), OK);
  run(b, 'tset', 'k', 'theirs');
  run(a, 'MULTI');
  run(a, 'tset', 'k', 'mine');
  assert.equal(run(a, 'EXEC'), NULL_ARRAY);
  assert.equal(run(a, 'tget', 'k'), 'theirs');
  // EXEC unwatches: the next transaction succeeds.
  run(a, 'MULTI');
  run(a, 'tset', 'k', 'mine');
  assert.deepEqual(run(a, 'EXEC'), [OK]);
});

test('WATCH: own changes before MULTI also count, UNWATCH forgets', () => {
  const { a, run } = setup();
  run(a, 'WATCH', 'k');
  run(a, 'tset', 'k', '1');
  run(a, 'MULTI');
  run(a, 'tget', 'k');
  assert.equal(run(a, 'EXEC'), NULL_ARRAY);
  run(a, 'WATCH', 'k');
  run(a, 'tset', 'k', '2');
  assert.equal(run(a, 'UNWATCH'), OK);
  run(a, 'MULTI');
  run(a, 'tget', 'k');
  assert.deepEqual(run(a, 'EXEC'), ['2']);
});

test('WATCH in another database is a different key', () => {
  const { a, b, run } = setup();
  run(a, 'WATCH', 'k');
  run(b, 'SELECT', '1');
  run(b, 'tset', 'k', 'x');
  run(a, 'MULTI');
  run(a, 'tget', 'k');
  assert.deepEqual(run(a, 'EXEC'), [null]);
});

test('WATCH arity', () => {
  const { a, run } = setup();
  assert.deepEqual(run(a, 'WATCH'), err("ERR wrong number of arguments for 'watch' command"));
});

test('a rejected EXEC discards the transaction (execCommandAbort)', () => {
  const { a, run } = setup();
  assert.deepEqual(
    run(a, 'EXEC', 'x'),
    err("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command"),
  );
  run(a, 'MULTI');
  run(a, 'tset', 'k', 'v');
  run(a, 'EXEC', 'extra');
  assert.equal(a.multi, null);
  assert.equal(run(a, 'tget', 'k'), null, 'nothing ran');
  assert.deepEqual(run(a, 'EXEC'), err('ERR EXEC without MULTI'));
});

test('EXEC before AUTH is an EXECABORT carrying the NOAUTH text', () => {
  const instance = new Instance([...connection, ...transactions], { config: { requirepass: 'pw' } });
  const c = instance.newClient('embedded');
  assert.deepEqual(
    instance.execute(c, [Buffer.from('EXEC')]),
    err('EXECABORT Transaction discarded because of: NOAUTH Authentication required.'),
  );
});
