// Aborting one run of a handler (a timeout, a lost lease, close() giving up), and the
// AbortSignal the handler sees. Node's AbortController and its listeners cost about a fifth of
// the Worker's CPU per job (bench/broker.js), and most handlers never look at their signal:
// the controller is made only when the handler (or the rate limiter) asks for the signal.
import type { JobContext } from './options.js';

export class JobAbort {
  private controller: AbortController | null = null;
  private done = false;
  private why: unknown = undefined;
  private listener: ((reason: unknown) => void) | null = null;
  /** Called once on abort (a sandbox pool's, without an AbortController: see abortHook). */
  private hooks: Array<(reason: unknown) => void> | null = null;

  /** The signal, aborted already when the run was aborted before anyone asked for it. */
  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.done;
  }

  /** Why it was aborted (undefined before). */
  get reason(): unknown {
    return this.why;
  }

  /** Aborts once; later calls keep the first reason, as AbortController does. */
  abort(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.why = reason;
    this.controller?.abort(reason);
    const listener = this.listener;
    this.listener = null;
    listener?.(reason);
    const hooks = this.hooks;
    this.hooks = null;
    for (const h of hooks ?? []) h(reason);
  }

  /** Calls `fn` with the reason once aborted (at once if it was); the returned function unsubscribes. */
  onAbort(fn: (reason: unknown) => void): () => void {
    if (this.done) {
      fn(this.why);
      return () => {};
    }
    (this.hooks ??= []).push(fn);
    return () => {
      const i = this.hooks?.indexOf(fn) ?? -1;
      if (i >= 0) this.hooks!.splice(i, 1);
    };
  }

  /** Calls `fn` with the reason once aborted (at once if it was). One listener per run: the Worker's. */
  listen(fn: (reason: unknown) => void): void {
    if (this.done) fn(this.why);
    else this.listener = fn;
  }
}

/** The run behind a context, for the Worker's own handlers (a sandbox pool): no AbortController needed. */
const ABORT_HOOK = Symbol('sluice.jobAbort');

/** The context's `signal`: one accessor shared by every context (it reads the context's run). */
const SIGNAL: PropertyDescriptor = {
  get(this: Record<symbol, JobAbort>): AbortSignal {
    return this[ABORT_HOOK]!.signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * The handler's context: its signal is the run's, made on first read. An own, enumerable
 * getter, so the context still spreads and lists as the plain `{ signal }` it always was. Made
 * by defining one shared accessor (about 0.16 us) rather than by an object literal with a getter
 * (0.6 us: a closure and an accessor pair per job), and against 3.3 us for an AbortController
 * with its abort listener.
 */
export function runContext(run: JobAbort): JobContext {
  const context: Record<symbol, JobAbort> = {};
  context[ABORT_HOOK] = run; // a symbol: Object.keys and JSON still see only `signal`
  Object.defineProperty(context, 'signal', SIGNAL);
  return context as unknown as JobContext;
}

/** What a sandbox pool needs of a run's abort: whether, why, and a call when it happens. */
export interface AbortHook {
  readonly aborted: boolean;
  readonly reason: unknown;
  onAbort(fn: (reason: unknown) => void): () => void;
}

/** The context's run (cheap), or for a context made elsewhere its signal as an AbortHook. */
export function abortHook(context: JobContext): AbortHook {
  const run = (context as unknown as Record<symbol, JobAbort | undefined>)[ABORT_HOOK];
  if (run !== undefined) return run;
  const signal = context.signal;
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason(): unknown {
      return signal.reason;
    },
    onAbort(fn) {
      if (signal.aborted) {
        fn(signal.reason);
        return () => {};
      }
      const listener = (): void => fn(signal.reason);
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}
