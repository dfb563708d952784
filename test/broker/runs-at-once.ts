// The kill -9 tests' count of runs open at once, from their worker processes' reports: every
// process's runs as [start, end] on the monotonic clock, the killed process's unfinished ones
// ending at its kill (or at their start, when the report came after it).
import assert from 'node:assert/strict';

export interface RunSpan {
  start: bigint;
  end: bigint | null;
}

/**
 * The most runs open at once, over the whole run and from the kill on, among the runs `include`
 * keeps (a run of a live process that never ended fails the test).
 */
export function mostAtOnce<R extends RunSpan>(runs: Array<Map<string, R>>, victim: number, killedAt: bigint, include: (run: R) => boolean = () => true): { most: number; mostAfterKill: number } {
  const events: Array<[bigint, number]> = [];
  runs.forEach((m, i) => {
    for (const r of m.values()) {
      if (!include(r)) continue;
      const end = r.end ?? (i === victim ? (r.start > killedAt ? r.start : killedAt) : null);
      assert.ok(end !== null, 'a run of a live process never ended');
      events.push([r.start, 1], [end, -1]);
    }
  });
  // Ends before starts at the same instant: a slot given back, then taken.
  events.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1]));
  let depth = 0;
  let most = 0;
  let mostAfterKill = 0;
  for (const [t, d] of events) {
    depth += d;
    most = Math.max(most, depth);
    if (t > killedAt) mostAfterKill = Math.max(mostAfterKill, depth);
  }
  return { most, mostAfterKill };
}
