// The messages between a Worker and one of its sandboxes (sandbox.ts on the Worker's side,
// runner.ts inside the thread or child process). Plain objects, sent by structured clone
// (postMessage, or fork's 'advanced' serialization), so one protocol serves both kinds.

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
