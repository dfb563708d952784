// engine/lfu.ts: Redis's LFU counter arithmetic (evict.c), with a controlled random source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LFU_INIT_VAL, accessedLfu, decayedCounter, incrementedCounter, lfuMinutes, packLfu } from '../../src/engine/lfu.js';

test('the counter grows surely from the initial value, then with probability 1 / ((c - 5) * factor + 1), and stops at 255', () => {
  assert.equal(incrementedCounter(LFU_INIT_VAL, 10, () => 0.999), LFU_INIT_VAL + 1);
  // At 7 with factor 10, p = 1/21: a draw below it increments, one above does not.
  assert.equal(incrementedCounter(7, 10, () => 1 / 21 - 1e-9), 8);
  assert.equal(incrementedCounter(7, 10, () => 1 / 21 + 1e-9), 7);
  assert.equal(incrementedCounter(255, 0, () => 0), 255);
  // lfu-log-factor 0: every access counts.
  fc.assert(fc.property(fc.integer({ min: 0, max: 254 }), fc.double({ min: 0, max: 0.9999, noNaN: true }), (c, r) => incrementedCounter(c, 0, () => r) === c + 1));
});

test('the counter loses one per lfu-decay-time minutes without access, never below 0; decay time 0 keeps it', () => {
  const at = lfuMinutes(Date.UTC(2026, 11, 6, 12, 0));
  assert.equal(decayedCounter(packLfu(20, at), at + 5, 1), 15);
  assert.equal(decayedCounter(packLfu(20, at), at + 5, 2), 18);
  assert.equal(decayedCounter(packLfu(3, at), at + 50, 1), 0);
  assert.equal(decayedCounter(packLfu(20, at), at + 500, 0), 20);
  // The minute field wraps at 16 bits, as Redis's LFUTimeElapsed.
  assert.equal(decayedCounter(packLfu(20, 0xfffe), 3, 1), 16);
});

test('an access decays first, then counts, and stamps the minute', () => {
  const packed = accessedLfu(packLfu(10, 100), 104, 1, 0);
  assert.equal(packed & 0xff, 7);
  assert.equal(Math.floor(packed / 256), 104);
  assert.equal(lfuMinutes(60_000 * 65_536 + 60_000 * 7), 7);
});
