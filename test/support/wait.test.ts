// The bounded waits every test polls through: a condition that never comes fails with what was
// awaited, it does not hang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollFor, waitFor, within } from './wait.js';

test('waitFor resolves once the condition holds, and fails with what it waited for after its limit', async () => {
  let n = 0;
  await waitFor(() => ++n === 3, 'the third poll', 1000, 0);
  assert.equal(n, 3);
  const started = Date.now();
  await assert.rejects(waitFor(async () => false, 'a condition that never holds', 50, 5), { message: 'timed out waiting for a condition that never holds (50 ms)' });
  assert.ok(Date.now() - started >= 50);
});

test('pollFor resolves to the first defined value; within bounds a promise that never settles', async () => {
  let n = 0;
  assert.equal(await pollFor(() => (++n === 2 ? 'found' : undefined), 'a value', 1000, 0), 'found');
  assert.equal(await within(Promise.resolve(7), 'seven'), 7);
  await assert.rejects(within(new Promise(() => {}), 'a promise that never settles', 20), { message: 'timed out waiting for a promise that never settles (20 ms)' });
});
