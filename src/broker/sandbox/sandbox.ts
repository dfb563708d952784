// One sandbox: a worker thread or a child process running runner.ts, which runs one job at a
// time. Both kinds behind one face: start() resolves once the module loaded (rejects with a
// SandboxLoadError otherwise), run() resolves to the job's result or rejects with its error or
// with a SandboxExitError when the sandbox ended under it, kill() ends it at once.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker as Thread } from 'node:worker_threads';
import { SandboxExitError, SandboxLoadError } from './errors.js';
import { cloneValues, type ErrorData, errorData, type FromSandbox, type JobData, processValues, type ToSandbox, toError, type ValueCodec } from './protocol.js';

export type SandboxKind = 'thread' | 'process';

export interface SandboxSpec {
  /** The processor module's URL (file:). */
  module: string;
  kind: SandboxKind;
  /** Heap limit: a thread's resourceLimits.maxOldGenerationSizeMb, a process's --max-old-space-size. */
  maxMemoryMb: number | undefined;
  /** A child process's node flags. */
  execArgv: string[];
}

/** What a running job asks of the Worker (job.updateProgress, job.log). */
export type CallHandler = (op: 'progress' | 'log', arg: unknown) => Promise<unknown>;

const RUNNER = new URL('./runner.js', import.meta.url);

interface Running {
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  onCall: CallHandler;
}

export class Sandbox {
  private readonly thread: Thread | null = null;
  private readonly child: ChildProcess | null = null;
  private readonly ready: Promise<void>;
  private running: Running | null = null;
  /** Set once the sandbox ended (or was told to): why, for whatever runs on it. */
  private ended: Error | null = null;
  private readyWaiter: { resolve: () => void; reject: (err: Error) => void } | null = null;
  /** Why the sandbox is being ended on purpose (a fatal error it reported, a load failure). */
  private ending: Error | null = null;
  /** Resolves when the thread or process is gone. */
  readonly exited: Promise<void>;
  /** How the channel carries payloads, results and calls' values (protocol.ts). */
  private readonly values: ValueCodec;

  constructor(private readonly spec: SandboxSpec) {
    this.ready = new Promise<void>((resolve, reject) => (this.readyWaiter = { resolve, reject }));
    this.ready.catch(() => {});
    let exited!: () => void;
    this.exited = new Promise<void>((r) => (exited = r));
    this.values = spec.kind === 'thread' ? cloneValues : processValues;
    if (spec.kind === 'thread') {
      const thread = new Thread(RUNNER, {
        workerData: { module: spec.module },
        resourceLimits: spec.maxMemoryMb === undefined ? undefined : { maxOldGenerationSizeMb: spec.maxMemoryMb },
      });
      this.thread = thread;
      thread.on('message', (m: FromSandbox) => this.onMessage(m));
      // An error the runner could not report: out of memory, mostly.
      thread.on('error', (err: Error & { code?: string }) => {
        const why =
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new SandboxExitError(`sandbox ran out of memory${spec.maxMemoryMb === undefined ? '' : ` (maxMemoryMb ${spec.maxMemoryMb})`}: ${err.message}`)
            : new SandboxExitError(`sandbox failed: ${err.message}`);
        this.ending ??= why;
      });
      thread.on('exit', (code) => {
        this.onExit(this.ending ?? new SandboxExitError(`sandbox exited with code ${code}`, code));
        exited();
      });
    } else {
      const memory = spec.maxMemoryMb === undefined ? [] : [`--max-old-space-size=${spec.maxMemoryMb}`];
      const child = fork(fileURLToPath(RUNNER), [spec.module], { serialization: 'json', execArgv: [...spec.execArgv, ...memory], stdio: 'inherit' });
      this.child = child;
      child.on('message', (m) => this.onMessage(m as FromSandbox));
      child.on('error', (err) => (this.ending ??= new SandboxExitError(`sandbox process failed: ${err.message}`)));
      child.on('exit', (code, signal) => {
        const why = signal !== null ? new SandboxExitError(`sandbox process was killed by ${signal}`, null, signal) : new SandboxExitError(`sandbox process exited with code ${code}`, code);
        this.onExit(this.ending ?? why);
        exited();
      });
    }
  }

  /** Resolves once the module loaded; rejects with a SandboxLoadError, or a SandboxExitError if it ended first. */
  start(): Promise<void> {
    return this.ready;
  }

  /** Whether the sandbox can take a job: started, not ended, not running one. */
  get idle(): boolean {
    return this.ended === null && this.ending === null && this.running === null;
  }

  get alive(): boolean {
    return this.ended === null && this.ending === null;
  }

  /** Runs one job: its result, or its error (the function's, or a SandboxExitError). */
  async run(job: JobData, onCall: CallHandler): Promise<unknown> {
    await this.ready;
    if (this.ended !== null) throw this.ended;
    if (this.running !== null) throw new Error('a sandbox runs one job at a time');
    return new Promise<unknown>((resolve, reject) => {
      this.running = { resolve, reject, onCall };
      try {
        this.send({ t: 'run', job: { ...job, payload: this.values.wrap(job.payload), opts: this.values.wrap(job.opts) as Record<string, unknown> } });
      } catch (err) {
        this.running = null;
        reject(err as Error); // a payload structured clone could not copy either: this job fails, the sandbox stays
      }
    });
  }

  /** Ends the sandbox now (a timeout, close()); a job running on it fails with `why`. */
  kill(why: Error = new SandboxExitError('sandbox was ended')): void {
    if (this.ended !== null) return;
    this.ending ??= why;
    if (this.thread !== null) void this.thread.terminate();
    else this.child!.kill('SIGKILL');
  }

  private send(m: ToSandbox): void {
    try {
      if (this.thread !== null) this.thread.postMessage(m);
      else this.child!.send(m);
    } catch (err) {
      this.kill(new SandboxExitError(`could not send to the sandbox: ${(err as Error).message}`));
    }
  }

  private onMessage(m: FromSandbox): void {
    switch (m.t) {
      case 'ready':
        this.readyWaiter?.resolve();
        this.readyWaiter = null;
        return;
      case 'load-error':
        this.kill(new SandboxLoadError(this.spec.module, m.error.message));
        return;
      case 'fatal':
        this.kill(new SandboxExitError(`sandbox failed with an uncaught ${m.error.name}: ${m.error.message}`));
        return;
      case 'done':
      case 'failed': {
        const r = this.running;
        this.running = null;
        if (m.t === 'done') {
          let result: unknown;
          try {
            result = this.values.unwrap(m.result);
          } catch (err) {
            r?.reject(err as Error);
            return;
          }
          r?.resolve(result);
        }
        else r?.reject(toError(m.error));
        return;
      }
      case 'call': {
        const r = this.running;
        if (r === null) return;
        Promise.resolve()
          .then(() => r.onCall(m.op, this.values.unwrap(m.arg)))
          .then((value) => this.send({ t: 'reply', seq: m.seq, ok: true, value: this.values.wrap(value) }))
          .then(undefined, (err: unknown) => this.send({ t: 'reply', seq: m.seq, ok: false, error: errorData(err) as ErrorData }));
        return;
      }
    }
  }

  private onExit(why: Error): void {
    this.ended = why;
    this.readyWaiter?.reject(why);
    this.readyWaiter = null;
    const r = this.running;
    this.running = null;
    r?.reject(why);
  }
}
