// Redis's LFU counter (evict.c): a key's access frequency in 8 bits, incremented with a
// probability that falls as the counter grows (lfu-log-factor) and decremented by one per
// lfu-decay-time minutes without access, next to the minute of its last access in 16 bits.
// Kept per key while an LFU maxmemory-policy is set, as Redis keeps it in the LRU field.

/** The counter a new key starts with, so it is not evicted before it had a chance to be used. */
export const LFU_INIT_VAL = 5;
const LFU_MAX = 255;

/** Minutes since the epoch, in 16 bits (the field wraps, as Redis's does). */
export function lfuMinutes(nowMs: number): number {
  return Math.floor(nowMs / 60_000) & 0xffff;
}

function minutesElapsed(since: number, nowMinutes: number): number {
  return nowMinutes >= since ? nowMinutes - since : 0xffff - since + nowMinutes;
}

/** A packed LFU field: the minute of the last decrement, then the counter. */
export function packLfu(counter: number, minutes: number): number {
  return minutes * 256 + counter;
}

/** The counter after the decay due since its last decrement (LFUDecrAndReturn). */
export function decayedCounter(packed: number, nowMinutes: number, decayTimeMinutes: number): number {
  const counter = packed & 0xff;
  if (decayTimeMinutes <= 0) return counter;
  const periods = Math.floor(minutesElapsed(Math.floor(packed / 256), nowMinutes) / decayTimeMinutes);
  return periods > counter ? 0 : counter - periods;
}

/** One access: the counter grows by one with probability 1 / ((counter - 5) * logFactor + 1) (LFULogIncr). */
export function incrementedCounter(counter: number, logFactor: number, random: () => number = Math.random): number {
  if (counter === LFU_MAX) return LFU_MAX;
  const base = Math.max(0, counter - LFU_INIT_VAL);
  return random() < 1 / (base * logFactor + 1) ? counter + 1 : counter;
}

/** The packed field after one access at `nowMinutes` (updateLFU). */
export function accessedLfu(packed: number, nowMinutes: number, decayTimeMinutes: number, logFactor: number): number {
  const counter = incrementedCounter(decayedCounter(packed, nowMinutes, decayTimeMinutes), logFactor);
  return packLfu(counter, nowMinutes);
}
