// A job's record: the hash PREFIX:job:ID (keys.ts), written by the producer at add and by the
// worker at each step, so any process can look the job up (Queue.getJob) after its entry was
// acknowledged and trimmed. Fields (all strings; absent when not known yet):
//
//   data      the encoded payload (the codec's text)      opts      per-job options (JSON)
//   key       the partition key                            state     see JobState
//   added     when it was added (unix ms)                  due       a delayed job's due time
//   entry     its stream entry's id (once in the stream)   attempts  deliveries started so far
//   started   when its last delivery started (unix ms)     finished  when it completed or died
//   consumer  who ran it last                              result    the handler's return value (codec)
//   error     the last failure's message                   stack     its stack
//   progress  the last job.updateProgress value (JSON)
//   priority  the job's priority (1 highest), when it was added with one (priority.ts)
//   parent    a flow child's parent, JSON [stream, id]   onFailure  its failure policy (flows/)
//   children  a flow parent's children, JSON [[stream, id], …]
//   flowEntry a flow parent's entry fields, JSON: XADDed by its last child's report
//   delay     a flow parent's delayMs, applied from its last child's report on
//
// `state` is written at each transition (waiting/delayed/prioritized by the producer,
// waiting-children by a FlowProducer, waiting by the last child's report, waiting by a mover, active,
// retrying, completed, failed by the worker). A worker that died mid-job leaves `active`
// until another worker claims the entry and writes it again.
import type { Value } from '../../client/connection.js';

export type JobState = 'delayed' | 'prioritized' | 'waiting-children' | 'waiting' | 'active' | 'retrying' | 'completed' | 'failed';

export const JOB_STATES: readonly JobState[] = ['delayed', 'prioritized', 'waiting-children', 'waiting', 'active', 'retrying', 'completed', 'failed'];

export const RecordField = {
  data: 'data',
  opts: 'opts',
  key: 'key',
  state: 'state',
  added: 'added',
  due: 'due',
  entry: 'entry',
  attempts: 'attempts',
  started: 'started',
  finished: 'finished',
  consumer: 'consumer',
  result: 'result',
  error: 'error',
  stack: 'stack',
  progress: 'progress',
  priority: 'priority',
  parent: 'parent',
  onFailure: 'onFailure',
  children: 'children',
  flowEntry: 'flowEntry',
  delay: 'delay',
} as const;

/** HGETALL's reply (a flat list) as an object; null when the record does not exist. */
export function recordFromReply(reply: Value): Record<string, string> | null {
  const list = reply as Value[] | null;
  if (list === null || list.length === 0) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[String(list[i])] = String(list[i + 1]);
  return out;
}

/** Stacks are cut to this many characters in records and events. */
export const MAX_STACK = 4000;

export function stackOf(error: Error): string {
  return (error.stack ?? '').slice(0, MAX_STACK);
}
