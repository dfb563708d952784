// EntryTable remembers the ids it acknowledged only while a read that may bring entries back
// (PEL history, claims) is in flight: such a read, sent before an XACK was confirmed, may return
// the entry, which must not run again; a read of new entries never returns one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntryTable } from '../../src/broker/worker/entry-table.js';
import type { StreamEntry } from '../../src/broker/replies.js';

const entry = (id: string): StreamEntry => ({ id, fields: { payload: '1' }, pairs: ['payload', '1'] });

test('an entry finished while a guarded read is in flight is recognised when that read brings it back', () => {
  const table = new EntryTable();
  const a = table.add(entry('1-1'), 1)!;
  const b = table.add(entry('1-2'), 1)!;
  table.finish(a); // acknowledged before the read was sent: the server will not return it
  assert.equal(table.isFinished('1-1'), false);
  table.beginGuardedRead();
  table.finish(b);
  assert.equal(table.isFinished('1-2'), true, 'finished while the read was on its way');
  assert.equal(table.add(entry('1-2'), 2) !== undefined, true, 'the table itself no longer holds it');
});

test('overlapping guarded reads: remembered until the last one ends, then forgotten', () => {
  const table = new EntryTable();
  const hs = ['1-1', '1-2', '1-3'].map((id) => table.add(entry(id), 1)!);
  table.beginGuardedRead(); // a history read
  table.finish(hs[0]!);
  table.beginGuardedRead(); // an XAUTOCLAIM beside it
  table.finish(hs[1]!);
  table.endGuardedRead();
  assert.equal(table.isFinished('1-1'), true);
  assert.equal(table.isFinished('1-2'), true, 'the history read is still in flight');
  table.endGuardedRead();
  assert.equal(table.isFinished('1-1'), false);
  assert.equal(table.isFinished('1-2'), false);
  table.finish(hs[2]!);
  assert.equal(table.isFinished('1-3'), false, 'no guarded read in flight: nothing to remember');
});

test('the newest 4,096 finished ids are kept during a long guarded read', () => {
  const table = new EntryTable();
  table.beginGuardedRead();
  for (let i = 1; i <= 5000; i++) table.finish(table.add(entry(`1-${i}`), 1)!);
  assert.equal(table.isFinished('1-904'), false);
  assert.equal(table.isFinished('1-905'), true);
  assert.equal(table.isFinished('1-5000'), true);
});

test('queued entries are taken oldest first, one at a time from a long queue too, skipping those that left it', () => {
  const table = new EntryTable();
  const hs = Array.from({ length: 3000 }, (_, i) => table.add(entry(`1-${i}`), 1)!);
  table.delete(hs[1]!); // left the queue (dead-lettered, say)
  const taken: string[] = [];
  for (let i = 0; i < 2000; i++) taken.push(...table.takeQueued(1).map((h) => h.entry.id));
  assert.deepEqual(taken.slice(0, 3), ['1-0', '1-2', '1-3']);
  assert.equal(taken.length, 2000);
  table.setState(hs[0]!, 'queued'); // a retry comes back: queued again, after the rest
  const rest = table.takeQueued(5000).map((h) => h.entry.id);
  assert.equal(rest.length, 3000 - 1 - 2000 + 1);
  assert.equal(rest[0], '1-2001');
  assert.equal(rest[rest.length - 1], '1-0');
  assert.deepEqual(table.takeQueued(1), []);
  assert.equal(table.count('queued'), 0);
  assert.equal(table.count('running'), 3000 - 1);
});
