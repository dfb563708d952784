// The Worker's sandboxes for a processor given as a module path: at most `size` of them, made
// as jobs need them and kept for the next job. A job runs on an idle sandbox (or waits for one);
// when its run is aborted (the Worker's timeoutMs, a lost lease, close() giving up) its sandbox
// is ended, since a function stuck in a loop cannot be stopped any other way, and a fresh one is
// started in its place. A sandbox that ended under its job (process.exit, out of memory, a
// crash, an uncaught error) fails only that job and is replaced the same way.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Job } from '../worker/job.js';
import type { SandboxOptions } from '../worker/options.js';
import { TimeoutError } from '../worker/events.js';
import type { AbortHook } from '../worker/job-abort.js';
import { SandboxExitError } from './errors.js';
import type { JobData } from './protocol.js';
import { Sandbox, type SandboxSpec } from './sandbox.js';

export class SandboxPool {
  private readonly sandboxes = new Set<Sandbox>();
  private readonly idle: Sandbox[] = [];
  /** Jobs waiting for a sandbox (only when size < the worker's concurrency). */
  private readonly queue: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly spec: SandboxSpec,
    private readonly size: number,
    /** The Worker's timeoutMs (0: none), counted from when the job reaches a started sandbox. */
    private readonly timeoutMs: number,
  ) {}

  /** Starts one sandbox and waits for the module to load: a module that cannot load fails here, at the Worker's start. */
  async start(): Promise<void> {
    if (this.sandboxes.size > 0) return;
    const sandbox = this.spawn();
    await sandbox.start();
    this.release(sandbox);
  }

  /** Sandboxes alive now (busy or idle). */
  get count(): number {
    return this.sandboxes.size;
  }

  /**
   * Runs the job in a sandbox: its result, or its error. Past timeoutMs (from when the sandbox
   * had started, so a fresh sandbox's start-up is not counted) the sandbox is ended and the run
   * rejects with a TimeoutError; on abort (a lost lease, close() giving up) likewise, with the
   * abort's reason.
   */
  async run(job: Job, abort: AbortHook): Promise<unknown> {
    const sandbox = await this.acquire(abort);
    // The run's own abort hook, not an AbortSignal: a controller and its listener per job cost the worker more than the rest of this.
    const unsubscribe = abort.onAbort((reason) => sandbox.kill(reason instanceof Error ? reason : new SandboxExitError(String(reason))));
    let timer: NodeJS.Timeout | undefined;
    try {
      await sandbox.start();
      if (this.timeoutMs > 0) timer = setTimeout(() => sandbox.kill(new TimeoutError(this.timeoutMs)), this.timeoutMs);
      return await sandbox.run(jobData(job), (op, arg) => (op === 'progress' ? job.updateProgress(arg as number | object) : job.log(String(arg))));
    } finally {
      clearTimeout(timer);
      unsubscribe();
      this.release(sandbox);
    }
  }

  /** Ends every sandbox (the Worker's jobs are done, or it gave up on them); resolves when all are gone. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.sandboxes];
    for (const s of all) s.kill(new SandboxExitError('the worker closed'));
    await Promise.all(all.map((s) => s.exited));
    for (const wake of this.queue.splice(0)) wake();
  }

  private async acquire(abort: AbortHook): Promise<Sandbox> {
    for (;;) {
      if (abort.aborted) throw abort.reason;
      if (this.closed) throw new SandboxExitError('the worker closed');
      const sandbox = this.idle.pop() ?? (this.sandboxes.size < this.size ? this.spawn() : null);
      if (sandbox !== null) {
        if (sandbox.alive) return sandbox;
        continue;
      }
      await new Promise<void>((resolve) => {
        let unsubscribe = (): void => {};
        const wake = (): void => {
          unsubscribe();
          const i = this.queue.indexOf(wake);
          if (i >= 0) this.queue.splice(i, 1);
          resolve();
        };
        this.queue.push(wake);
        unsubscribe = abort.onAbort(wake);
      });
    }
  }

  /** Back to the idle list after a job; an ended sandbox is forgotten and replaced (unless closing). */
  private release(sandbox: Sandbox): void {
    if (sandbox.alive) this.idle.push(sandbox);
    else {
      this.sandboxes.delete(sandbox); // still exiting, perhaps: it no longer counts
      if (!this.closed && this.sandboxes.size < this.size) this.idle.push(this.spawn());
    }
    this.queue.shift()?.();
  }

  private spawn(): Sandbox {
    const sandbox = new Sandbox(this.spec);
    this.sandboxes.add(sandbox);
    void sandbox.exited.then(() => {
      this.sandboxes.delete(sandbox);
      const i = this.idle.indexOf(sandbox);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return sandbox;
  }
}

function jobData(job: Job): JobData {
  return {
    id: job.id,
    entryId: job.entryId,
    stream: job.stream,
    payload: job.payload,
    deliveries: job.deliveries,
    fields: job.fields,
    key: job.key,
    opts: job.opts as Record<string, unknown>,
  };
}

/** The module's file: URL: a URL as given, a `file:` string as a URL, a path resolved against the working directory. */
export function moduleUrl(processor: string | URL): string {
  if (processor instanceof URL) return processor.href;
  if (processor.startsWith('file:')) return new URL(processor).href;
  return pathToFileURL(resolve(processor)).href;
}

/** A pool for a Worker's processor module, with its options' defaults. */
export function sandboxPool(processor: string | URL, options: SandboxOptions, concurrency: number, timeoutMs: number): SandboxPool {
  if (!(timeoutMs >= 0)) throw new RangeError('timeoutMs must not be negative');
  const size = options.size ?? concurrency;
  if (!(Number.isInteger(size) && size >= 1)) throw new RangeError('sandbox.size must be an integer >= 1');
  if (options.maxMemoryMb !== undefined && !(options.maxMemoryMb > 0)) throw new RangeError('sandbox.maxMemoryMb must be positive');
  const kind = options.kind ?? 'thread';
  if (kind !== 'thread' && kind !== 'process') throw new RangeError("sandbox.kind must be 'thread' or 'process'");
  const execArgv = options.execArgv ?? process.execArgv.filter((a) => !/^--(test|inspect|experimental-test)/.test(a));
  return new SandboxPool({ module: moduleUrl(processor), kind, maxMemoryMb: options.maxMemoryMb, execArgv }, size, timeoutMs);
}
