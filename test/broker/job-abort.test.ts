// JobAbort: the handler's AbortSignal is made on first read and behaves as AbortController's
// would have, whichever came first, the abort or the read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobAbort, runContext } from '../../src/broker/worker/job-abort.js';

test('a signal read before the abort fires its abort event with the first reason', async () => {
  const run = new JobAbort();
  const signal = runContext(run).signal;
  assert.equal(signal.aborted, false);
  const heard: unknown[] = [];
  signal.addEventListener('abort', () => heard.push(signal.reason));
  const listened: unknown[] = [];
  run.listen((reason) => listened.push(reason));
  run.abort('first');
  run.abort('second');
  assert.deepEqual(heard, ['first']);
  assert.equal(signal.reason, 'first');
  assert.deepEqual(listened, ['first'], 'the listener once, with the first reason');
  assert.equal(run.aborted, true);
});

test('a signal first read after the abort is already aborted, with the reason', async () => {
  const run = new JobAbort();
  const reason = new Error('timed out');
  run.abort(reason);
  run.abort(new Error('later'));
  const context = runContext(run);
  assert.deepEqual(Object.keys(context), ['signal'], 'a plain { signal }, as handlers always got');
  assert.equal({ ...context }.signal, context.signal);
  assert.equal(context.signal.aborted, true);
  assert.equal(context.signal.reason, reason);
  assert.equal(context.signal, context.signal, 'one signal per run');
  const listened: unknown[] = [];
  run.listen((r) => listened.push(r));
  assert.deepEqual(listened, [reason], 'a listener after the abort is called at once');
});

test('a run never aborted leaves its signal alone and never calls its listener', async () => {
  const run = new JobAbort();
  let settled = false;
  run.listen(() => (settled = true));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(settled, false);
  assert.equal(run.aborted, false);
  assert.equal(runContext(run).signal.aborted, false);
});
