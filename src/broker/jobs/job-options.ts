// Options a job carries itself (Producer.add's `attempts`, `backoff`, `removeOnComplete`, …),
// written into its entry as the `opts` field (JSON) so the worker sees them with the entry,
// and into its record. They override the worker's options for that job.

/**
 * How long finished jobs' records are kept: true (removed at once), false (kept), a count (the
 * newest n), or `{ age, count }`: `age` in seconds, as BullMQ's KeepJobs, so options carry over.
 */
export type KeepJobs = boolean | number | { age?: number; count?: number };

/** A job's own retry delay: fixed, or doubling from `delay` (BullMQ's shapes). */
export type BackoffOption = number | { type: 'fixed' | 'exponential'; delay: number };

export interface PerJobOptions {
  /** Deliveries before the job is dead-lettered (the worker's maxDeliveries otherwise). */
  attempts?: number;
  /** Delay before each retry (the worker's backoff otherwise). */
  backoff?: BackoffOption;
  /** Completed: keep its record this long / this many (the worker's removeOnComplete otherwise). */
  removeOnComplete?: KeepJobs;
  /** Dead-lettered: keep its record this long / this many (the worker's removeOnFail otherwise). */
  removeOnFail?: KeepJobs;
  /**
   * Deduplication (BullMQ's): while the job added with this id exists (until it finishes, or
   * for ttl ms), another add with it adds nothing and returns that job's id (unique-adds.ts).
   */
  deduplication?: DeduplicationOptions;
}

/** BullMQ's `deduplication` add option. */
export interface DeduplicationOptions {
  /** While a job added with this id exists (or for ttl ms), adds with it return that job's id. */
  id: string;
  /** Hold the id this many ms (whatever the job's state) instead of until the job finishes. */
  ttl?: number;
  /** Each deduplicated add sets the ttl again (needs ttl). */
  extend?: boolean;
  /** Debounce: a deduplicated add replaces the data and due time of the holding job while it is delayed. */
  replace?: boolean;
}

/** The `opts` JSON of an entry, or undefined when the job has none. */
export function encodeJobOptions(o: PerJobOptions): string | undefined {
  const out: PerJobOptions = {};
  if (o.attempts !== undefined) {
    if (!Number.isInteger(o.attempts) || o.attempts < 1) throw new RangeError('attempts must be an integer >= 1');
    out.attempts = o.attempts;
  }
  if (o.backoff !== undefined) {
    backoffFunction(o.backoff); // validates
    out.backoff = o.backoff;
  }
  if (o.removeOnComplete !== undefined) out.removeOnComplete = checkKeep(o.removeOnComplete, 'removeOnComplete');
  if (o.removeOnFail !== undefined) out.removeOnFail = checkKeep(o.removeOnFail, 'removeOnFail');
  if (o.deduplication !== undefined) {
    const d = o.deduplication;
    if (d === null || typeof d !== 'object' || typeof d.id !== 'string' || d.id.length === 0) throw new RangeError('deduplication.id: a non-empty string');
    if (d.ttl !== undefined && !(Number.isInteger(d.ttl) && d.ttl > 0)) throw new RangeError('deduplication.ttl: an integer > 0 (ms)');
    if (d.extend && d.ttl === undefined) throw new RangeError('deduplication.extend needs a ttl');
    out.deduplication = { id: d.id, ...(d.ttl === undefined ? {} : { ttl: d.ttl }), ...(d.extend ? { extend: true } : {}), ...(d.replace ? { replace: true } : {}) };
  }
  return Object.keys(out).length === 0 ? undefined : JSON.stringify(out);
}

/** An entry's `opts` field; {} when absent or not ours (another producer's field). */
export function decodeJobOptions(text: string | undefined): PerJobOptions {
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as PerJobOptions) : {};
  } catch {
    return {};
  }
}

export function backoffFunction(b: BackoffOption): (deliveries: number) => number {
  if (typeof b === 'number') {
    if (!(b >= 0)) throw new RangeError('backoff must be >= 0 ms');
    return () => b;
  }
  if (b === null || typeof b !== 'object' || !(b.delay >= 0) || (b.type !== 'fixed' && b.type !== 'exponential')) {
    throw new RangeError("backoff: a number of ms, or { type: 'fixed' | 'exponential', delay }");
  }
  return b.type === 'fixed' ? () => b.delay : (n) => b.delay * 2 ** Math.max(0, n - 1);
}

/** A retention policy, normalised: what to keep, at most. */
export interface Keep {
  /** Records kept at most (Infinity: no bound by count). */
  count: number;
  /** Records older than this (ms after finishing) removed (Infinity: no bound by age). */
  ageMs: number;
}

export function resolveKeep(k: KeepJobs): Keep {
  if (k === true) return { count: 0, ageMs: Infinity };
  if (k === false) return { count: Infinity, ageMs: Infinity };
  if (typeof k === 'number') return { count: k, ageMs: Infinity };
  return { count: k.count ?? Infinity, ageMs: k.age === undefined ? Infinity : k.age * 1000 };
}

function checkKeep(k: KeepJobs, name: string): KeepJobs {
  if (typeof k === 'boolean') return k;
  if (typeof k === 'number') {
    if (!(Number.isInteger(k) && k >= 0)) throw new RangeError(`${name}: a count must be an integer >= 0`);
    return k;
  }
  if (k === null || typeof k !== 'object') throw new RangeError(`${name}: true, false, a count, or { age, count }`);
  if (k.count !== undefined && !(Number.isInteger(k.count) && k.count >= 0)) throw new RangeError(`${name}.count must be an integer >= 0`);
  if (k.age !== undefined && !(k.age >= 0)) throw new RangeError(`${name}.age must be >= 0 (seconds)`);
  return k;
}
