// Key names for tests that share one server: unique within the run (the pid keeps two test
// processes on one server apart, the counter two tests of one file).

let seq = 0;

/** `base-pid-n`, never returned twice. */
export function uniqueName(base: string): string {
  return `${base}-${process.pid}-${++seq}`;
}

/**
 * `{base-pid-n}`: a unique name that is also a hash tag, so the keys the broker derives from a
 * stream (`${stream}:dead`, `:delayed`, `:schedules`) share its Redis Cluster slot and its
 * MULTIs work there too.
 */
export function unique(base: string): string {
  return `{${uniqueName(base)}}`;
}
