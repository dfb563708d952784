// RateLimiter on the embedded engine: starts asked for together go in one round trip (counted
// here by wrapping the connection), a window grants at most `max` of them, first come first
// served, the rest start in the next window ahead of newer ones; an abort while waiting gives
// false; a failing server rejects the waiting acquires.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { Arg, Connection, Value } from '../../src/client/connection.js';
import { open } from '../../src/client/embedded.js';
import { RateLimiter } from '../../src/broker/rate-limiter.js';

/** The connection, with its MULTIs counted. */
async function counted(): Promise<{ conn: Connection; multis: () => number; close: () => Promise<void> }> {
  const db = await open();
  const real = await connect(db);
  let multis = 0;
  const conn = Object.create(real) as Connection;
  conn.multi = (commands: Arg[][]): Promise<Value[]> => {
    multis++;
    return real.multi(commands);
  };
  return { conn, multis: () => multis, close: async () => (await real.close(), await db.close()) };
}

test('starts asked for together take one round trip; a window grants max, the rest go first in the next', async () => {
  const { conn, multis, close } = await counted();
  try {
    const limiter = new RateLimiter(conn, 'lim', { max: 30, durationMs: 400 });
    const order: number[] = [];
    const started = performance.now();
    const all = Array.from({ length: 70 }, (_, i) => limiter.acquire().then((ok) => (assert.equal(ok, true), order.push(i), performance.now() - started)));
    const times = await Promise.all(all);
    assert.deepEqual(order, Array.from({ length: 70 }, (_, i) => i), 'first come, first served');
    // Three windows (30 + 30 + 10), one MULTI each.
    assert.equal(multis(), 3);
    // Per window: the 30 of a window start together, the next 30 a window later.
    const spread = (from: number, to: number): number => Math.max(...times.slice(from, to)) - Math.min(...times.slice(from, to));
    assert.ok(spread(0, 30) < 200 && spread(30, 60) < 200, JSON.stringify(times.map(Math.round)));
    assert.ok(Math.min(...times.slice(30)) > Math.max(...times.slice(0, 30)));
    assert.equal(limiter.throttled, true, 'starts were held back in the last window');
  } finally {
    await close();
  }
});

test('a limiter that held nothing back is not throttled', async () => {
  const { conn, close } = await counted();
  try {
    const limiter = new RateLimiter(conn, 'lim4', { max: 100, durationMs: 400 });
    await Promise.all(Array.from({ length: 50 }, () => limiter.acquire()));
    assert.equal(limiter.throttled, false);
  } finally {
    await close();
  }
});

test('an abort while waiting for the next window resolves false; others still start', async () => {
  const { conn, close } = await counted();
  try {
    const limiter = new RateLimiter(conn, 'lim2', { max: 1, durationMs: 300 });
    assert.equal(await limiter.acquire(), true);
    const abort = new AbortController();
    const waiting = limiter.acquire(abort.signal);
    const next = limiter.acquire();
    abort.abort();
    assert.equal(await waiting, false);
    assert.equal(await next, true);
    // Aborting the only waiter ends the wait for the window at once (a worker's close).
    const alone = new AbortController();
    const waits = limiter.acquire(alone.signal);
    await new Promise((r) => setTimeout(r, 20));
    const t = performance.now();
    alone.abort();
    assert.equal(await waits, false);
    assert.ok(performance.now() - t < 100);
  } finally {
    await close();
  }
});

test('a server error rejects the acquires of that round trip', async () => {
  const { conn, close } = await counted();
  try {
    // The window's counter key holds a string: INCRBY fails there.
    const limiter = new RateLimiter(conn, 'lim3', { max: 5, durationMs: 1_000_000_000_000 });
    const [seconds] = (await conn.call('TIME')) as Value[];
    await conn.call('SET', `lim3:${Math.floor((Number(seconds) * 1000) / 1_000_000_000_000)}`, 'not a number');
    await assert.rejects(limiter.acquire(), /not an integer/);
  } finally {
    await close();
  }
});
