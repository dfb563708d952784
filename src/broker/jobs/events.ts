// A queue's events: one capped stream per stream (PREFIX:events, keys.ts) that producers,
// workers and queue operations append to, read by QueueEvents (queue-events.ts) and
// waitUntilFinished with XREAD BLOCK. An entry's fields:
//
//   event   its name (QueueEventName)           jobId   the job it is about (absent for drained)
//   plus, by event: completed `returnvalue` (codec text); failed `failedReason`, `attemptsMade`;
//   retrying `delay`, `attemptsMade`; deadLettered `failedReason`; delayed `delay` (ms) and
//   `due`; active and claimed `consumer`, `attemptsMade`; progress `data` (JSON); removed `prev`
//   (the state it was removed from); promoted nothing more.
//
// The stream is capped with MAXLEN ~ maxLen on every append (10,000 by default): a listener
// that restarts resumes from its last id and misses nothing unless it was away for more than
// maxLen events.
import type { Arg } from '../../client/connection.js';

export const QUEUE_EVENT_NAMES = [
  'added',
  'delayed',
  'waiting',
  'active',
  'progress',
  'completed',
  'failed',
  'retrying',
  'deadLettered',
  'claimed',
  'removed',
  'promoted',
  'drained',
] as const;

export type QueueEventName = (typeof QUEUE_EVENT_NAMES)[number];

/** Events stream options: `false` writes none; a number caps the stream at about that many. */
export type EventsOption = boolean | { maxLen?: number };

export const DEFAULT_EVENTS_MAX_LEN = 10_000;

/** The cap of an events stream, or null when events are off. */
export function eventsMaxLen(option: EventsOption | undefined): number | null {
  if (option === false) return null;
  if (option === undefined || option === true) return DEFAULT_EVENTS_MAX_LEN;
  const n = option.maxLen ?? DEFAULT_EVENTS_MAX_LEN;
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError('events.maxLen must be an integer >= 1');
  return n;
}

/** The XADD of one event. */
export function eventCommand(eventsKey: string, maxLen: number, event: QueueEventName, jobId: string | null, fields: Arg[] = []): Arg[] {
  const argv: Arg[] = ['XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'event', event];
  if (jobId !== null) argv.push('jobId', jobId);
  for (const f of fields) argv.push(f);
  return argv;
}
