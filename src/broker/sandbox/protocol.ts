// The messages between a Worker and one of its sandboxes (sandbox.ts on the Worker's side,
// runner.ts inside the thread or child process). Plain objects, so one protocol serves both
// kinds: a thread's go by structured clone (postMessage); a child process's as JSON lines (fork's
// 'json' serialization), the job's payload and options, its result and its calls' arguments and
// answers each wrapped by `processValues`: as JSON when JSON gives back the same value, else
// (a Date, a Map, undefined, NaN...) v8.serialize's bytes in base64, so the job sees what structured
// clone would have given it. Node's 'advanced' serialization (structured clone for every message)
// cost the Worker about a third more per message than JSON lines for a job's small messages.
import { deserialize, serialize } from 'node:v8';

/** A job as it crosses into a sandbox: the Job's data, without its methods. */
export interface JobData {
  id: string;
  entryId: string;
  stream: string;
  payload: unknown;
  deliveries: number;
  fields: Record<string, string>;
  key: string | undefined;
  opts: Record<string, unknown>;
}

/** An error as it crosses back: what an Error carries that a job's failure records. */
export interface ErrorData {
  name: string;
  message: string;
  stack: string | undefined;
}

export type ToSandbox =
  /** Run this job (a sandbox runs one at a time). */
  | { t: 'run'; job: JobData }
  /** The answer to a `call` (job.updateProgress, job.log). */
  | { t: 'reply'; seq: number; ok: true; value: unknown }
  | { t: 'reply'; seq: number; ok: false; error: ErrorData };

export type FromSandbox =
  /** The module loaded and exports a function: ready for jobs. */
  | { t: 'ready' }
  /** The module did not load, or exports no function: the sandbox exits after this. */
  | { t: 'load-error'; error: ErrorData }
  /** The running job's function returned (or resolved to) `result`. */
  | { t: 'done'; result: unknown }
  /** The running job's function threw (or rejected). */
  | { t: 'failed'; error: ErrorData }
  /** The job asks the Worker to do something for it: store progress, append a log line. */
  | { t: 'call'; seq: number; op: 'progress' | 'log'; arg: unknown }
  /** An error nothing caught (a timer's throw, an unhandled rejection): the sandbox exits after this. */
  | { t: 'fatal'; error: ErrorData };

/** How a sandbox's channel carries the values it does not know the shape of (payload, result...). */
export interface ValueCodec {
  wrap(value: unknown): unknown;
  unwrap(wrapped: unknown): unknown;
}

/** Structured clone carries any value as it is (threads). */
export const cloneValues: ValueCodec = { wrap: (v) => v, unwrap: (v) => v };

/** A value on a JSON channel: `{ j }` as JSON, `{ u: 1 }` undefined, `{ v }` v8.serialize in base64. */
type Wrapped = { j: unknown } | { u: 1 } | { v: string };

/** JSON lines (child processes): JSON when it round-trips the value exactly, else v8's bytes. */
export const processValues: ValueCodec = {
  wrap(value) {
    if (value === undefined) return { u: 1 } satisfies Wrapped;
    if (jsonExact(value, 0)) return { j: value } satisfies Wrapped;
    return { v: serialize(value).toString('base64') } satisfies Wrapped; // throws as structured clone would (a function...)
  },
  unwrap(wrapped) {
    const w = wrapped as Wrapped;
    if ('j' in w) return w.j;
    if ('v' in w) return deserialize(Buffer.from(w.v, 'base64'));
    return undefined;
  },
};

/** True when JSON.parse(JSON.stringify(v)) equals v as structured clone would copy it. */
function jsonExact(v: unknown, depth: number): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || depth > 32) return false; // undefined, bigint, function, symbol; deep (or circular) values
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonExact(v[i], depth + 1)) return false; // a hole reads back as null
    return true;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false; // Date, Map, Set, typed arrays, Error, class instances
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const k in v) if (!jsonExact((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

export function errorData(err: unknown): ErrorData {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: 'Error', message: String(err), stack: undefined };
}

/** An Error made from what crossed back, with the sandbox's name, message and stack. */
export function toError(data: ErrorData): Error {
  const err = new Error(data.message);
  err.name = data.name;
  if (data.stack !== undefined) err.stack = data.stack;
  return err;
}
