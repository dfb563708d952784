// The keys a queue's jobs live in, beside its stream and in its cluster slot (partition.ts's
// slotPrefix: `orders` → `{orders}:…`, `orders{3}` → `orders{3}:…`), so that the worker's
// MULTI (XACK + the record's update + the event) is legal on a cluster.
//
//   PREFIX:job:ID        hash: the job's record (record.ts)
//   PREFIX:job:ID:logs   list: the job's log lines (job.log), capped
//   PREFIX:completed     sorted set: completed jobs' ids by finish time (retention, getJobs)
//   PREFIX:failed        sorted set: dead-lettered jobs' ids by finish time
//   PREFIX:events        stream: the queue's events (events.ts), capped
//   PREFIX:dedup:ID      string: the job id holding deduplication id ID (unique-adds.ts)
//   PREFIX:job:ID:dependencies  set: a flow parent's children not reported yet (flows/)
//   PREFIX:job:ID:processed     hash: its children's return values (codec text), by child
//   PREFIX:job:ID:ignored       hash: its children's failures ignored (onFailure 'ignore')
//   PREFIX:waiting-children     sorted set: parents waiting for children, by add time
//   PREFIX:archive       stream: completed jobs' records, compacted (archive.ts), by finish time
//   PREFIX:archive:N     hash: archive bucket N, job id → its archive entry (archive.ts)
//   PREFIX:archive:buckets string: how many buckets the archive's index has
import { slotPrefix } from '../partition.js';

export interface JobKeys {
  readonly stream: string;
  record(id: string): string;
  logs(id: string): string;
  readonly completed: string;
  readonly failed: string;
  readonly events: string;
  /** The key of a deduplication id (add's `deduplication.id`). */
  dedup(id: string): string;
  /** A flow parent's children not reported yet (flows/). */
  dependencies(id: string): string;
  /** A flow parent's children's return values. */
  processed(id: string): string;
  /** A flow parent's children's failures that were ignored. */
  ignored(id: string): string;
  readonly waitingChildren: string;
  /** Completed jobs' records, compacted into one stream (archive.ts). */
  readonly archive: string;
  /** Bucket n of the archive's index (job id → entry). */
  archiveIndex(n: number): string;
  /** How many buckets the archive's index has (set once, by the first compaction). */
  readonly archiveBuckets: string;
  /** The prefix every one of these keys starts with (`{orders}`), for obliterate's SCAN. */
  readonly prefix: string;
}

const cache = new Map<string, JobKeys>();

export function jobKeys(stream: string): JobKeys {
  let keys = cache.get(stream);
  if (keys === undefined) {
    const prefix = slotPrefix(stream);
    keys = {
      stream,
      record: (id) => `${prefix}:job:${id}`,
      logs: (id) => `${prefix}:job:${id}:logs`,
      completed: `${prefix}:completed`,
      failed: `${prefix}:failed`,
      events: `${prefix}:events`,
      dedup: (id) => `${prefix}:dedup:${id}`,
      dependencies: (id) => `${prefix}:job:${id}:dependencies`,
      processed: (id) => `${prefix}:job:${id}:processed`,
      ignored: (id) => `${prefix}:job:${id}:ignored`,
      waitingChildren: `${prefix}:waiting-children`,
      archive: `${prefix}:archive`,
      archiveIndex: (n) => `${prefix}:archive:${n}`,
      archiveBuckets: `${prefix}:archive:buckets`,
      prefix,
    };
    if (cache.size > 10_000) cache.clear();
    cache.set(stream, keys);
  }
  return keys;
}
