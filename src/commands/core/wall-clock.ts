// The wall clock in microseconds, for TIME and MONITOR. Its millisecond part is Date.now(), the
// clock the keyspace stamps stream ids and expiries with, so an entry added before a TIME call
// never looks newer than it (performance.timeOrigin + now() drifts from Date.now() over a
// process's life; the broker's clean() compared one with the other and missed fresh jobs).
export function wallClockMicros(): number {
  const subMillisecond = Math.floor((performance.now() % 1) * 1000);
  return Date.now() * 1000 + subMillisecond;
}
