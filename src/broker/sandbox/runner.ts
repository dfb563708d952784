// Inside a sandbox (a worker thread, or a child process the Worker forked): loads the
// processor module, then runs the jobs the Worker sends, one at a time, and sends back each
// result or error. A job's updateProgress and log are messages to the Worker, which writes
// them as it would for an in-process handler and answers. An error nothing caught is sent as
// `fatal`: the Worker ends this sandbox, fails the running job and starts another sandbox.
// The module's URL comes as workerData (thread) or the first argument (child process). A child
// process ends itself when its Worker's process is gone (watchParent).
import { parentPort, Worker as Thread, workerData } from 'node:worker_threads';
import type { Job } from '../worker/job.js';
import type { PerJobOptions } from '../jobs/job-options.js';
import { cloneValues, errorData, type FromSandbox, type JobData, processValues, type ToSandbox } from './protocol.js';

type Processor = (job: Job) => unknown;

const port = parentPort;
const send: (m: FromSandbox) => void =
  port !== null
    ? (m) => port.postMessage(m)
    : (m) => {
        process.send!(m);
      };
const onMessage = (fn: (m: ToSandbox) => void): void => {
  if (port !== null) port.on('message', fn);
  else process.on('message', fn as (m: unknown) => void);
};
/** How payloads, results and calls' values cross (protocol.ts): as they are to a thread, wrapped for a process's JSON lines. */
const values = port !== null ? cloneValues : processValues;
const moduleUrl: string = port !== null ? (workerData as { module: string }).module : process.argv[2]!;

let seq = 0;
const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

function call(op: 'progress' | 'log', arg: unknown): Promise<unknown> {
  const wrapped = values.wrap(arg); // throws here, before anything waits for a reply
  const n = ++seq;
  return new Promise((resolve, reject) => {
    waiting.set(n, { resolve, reject });
    send({ t: 'call', seq: n, op, arg: wrapped });
  });
}

class SandboxJob implements Job {
  readonly id: string;
  readonly entryId: string;
  readonly stream: string;
  readonly payload: unknown;
  readonly deliveries: number;
  readonly fields: Record<string, string>;
  readonly key: string | undefined;
  readonly opts: PerJobOptions;
  constructor(d: JobData) {
    this.id = d.id;
    this.entryId = d.entryId;
    this.stream = d.stream;
    this.payload = values.unwrap(d.payload);
    this.deliveries = d.deliveries;
    this.fields = d.fields;
    this.key = d.key;
    this.opts = values.unwrap(d.opts) as PerJobOptions;
  }
  async updateProgress(progress: number | object): Promise<void> {
    await call('progress', progress);
  }
  log(line: string): Promise<number> {
    return call('log', line) as Promise<number>;
  }
  // flows: not carried into sandboxes yet (a 'childrenValues' call would do it)
  getChildrenValues(): Promise<Record<string, unknown>> {
    return Promise.reject(new Error('job.getChildrenValues is not available in a sandboxed processor yet'));
  }
}

/** Reports an error nothing caught; the Worker ends this sandbox when it reads it. */
function fatal(err: unknown): void {
  send({ t: 'fatal', error: errorData(err) });
}

/** The function a module exports: its default export, or (CommonJS) module.exports itself. */
function processorOf(mod: Record<string, unknown>): Processor | null {
  let f: unknown = mod['default'];
  if (f !== null && typeof f === 'object' && typeof (f as Record<string, unknown>)['default'] === 'function') f = (f as Record<string, unknown>)['default'];
  return typeof f === 'function' ? (f as Processor) : null;
}

/**
 * A child process outlives a Worker killed with SIGKILL: its channel closes, but a job stuck in
 * a loop never reads that, and a module holding a socket or a timer keeps it alive when idle.
 * A watchdog thread (its own event loop, so a spinning job does not stop it) ends this process
 * once its parent is gone, seen as the parent pid changing.
 */
function watchParent(): void {
  const code = `const { workerData: w } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== w.ppid) process.kill(w.pid, 'SIGKILL'); }, 500);`;
  new Thread(code, { eval: true, workerData: { ppid: process.ppid, pid: process.pid }, resourceLimits: { maxOldGenerationSizeMb: 8 } }).unref();
  process.on('disconnect', () => process.exit(0));
}

async function main(): Promise<void> {
  if (port === null) watchParent();
  let processor: Processor | null;
  try {
    processor = processorOf((await import(moduleUrl)) as Record<string, unknown>);
    if (processor === null) throw new TypeError(`${moduleUrl} has no default export that is a function`);
  } catch (err) {
    send({ t: 'load-error', error: errorData(err) }); // the Worker ends this sandbox
    return;
  }
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  const run = processor;
  onMessage((m) => {
    if (m.t === 'reply') {
      const w = waiting.get(m.seq);
      waiting.delete(m.seq);
      if (m.ok) w?.resolve(values.unwrap(m.value));
      else w?.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
      return;
    }
    void (async () => {
      let result: unknown;
      try {
        result = await run(new SandboxJob(m.job));
      } catch (err) {
        send({ t: 'failed', error: errorData(err) });
        return;
      }
      try {
        send({ t: 'done', result: values.wrap(result) });
      } catch (err) {
        send({ t: 'failed', error: errorData(new TypeError(`the job's result cannot be sent to the worker: ${(err as Error).message}`)) });
      }
    })();
  });
  send({ t: 'ready' });
}

void main();
