// Tick arithmetic of schedules: fixed intervals aligned to the epoch, cron with seconds and time
// zones (croner), and refusal of bad definitions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextTick } from '../../src/broker/schedules.js';
import { open } from '../../src/client/embedded.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { Producer } from '../../src/broker/producer.js';

test('everyMs ticks are multiples of the interval, strictly after the given time', () => {
  assert.equal(nextTick({ everyMs: 1000 }, 5_000), 6_000);
  assert.equal(nextTick({ everyMs: 1000 }, 5_001), 6_000);
  assert.equal(nextTick({ everyMs: 300 }, 0), 300);
});

test('cron ticks honour seconds and the time zone', () => {
  const at = Date.UTC(2026, 0, 1, 12, 2, 30); // 12:02:30 UTC
  assert.equal(nextTick({ cron: '0 */5 * * * *' }, at), Date.UTC(2026, 0, 1, 12, 5, 0));
  // 09:00 in Paris (UTC+1 in January) is 08:00 UTC.
  assert.equal(nextTick({ cron: '0 0 9 * * *', tz: 'Europe/Paris' }, at), Date.UTC(2026, 0, 2, 8, 0, 0));
});

test('bad schedules are refused before anything is stored', async () => {
  const db = await open();
  const producer = new Producer(new EmbeddedConnection(db), { stream: 's' });
  await assert.rejects(producer.schedule('a', { everyMs: 0 }, 1), RangeError);
  await assert.rejects(producer.schedule('b', { cron: 'not a cron' }, 1));
  await assert.rejects(producer.schedule('c', { cron: '0 0 9 * * *', tz: 'Not/AZone' }, 1));
  assert.deepEqual(await producer.schedules(), []);
  await db.close();
});
