// The errors a sandboxed processor's jobs fail with when the sandbox itself fails (rather than
// the job's function throwing, which fails the job with the function's own error).

/** The processor module did not load, or exports no function. */
export class SandboxLoadError extends Error {
  constructor(
    /** The module's URL. */
    readonly module: string,
    reason: string,
  ) {
    super(`sandboxed processor ${module} did not load: ${reason}`);
    this.name = 'SandboxLoadError';
  }
}

/**
 * The sandbox running the job ended before the job did: the processor called process.exit, ran
 * out of memory, the child process was killed or crashed, or an error nothing caught (a timer's
 * throw, an unhandled rejection) ended it. Only that job fails; another sandbox takes its place.
 */
export class SandboxExitError extends Error {
  constructor(
    message: string,
    /** The exit code, when it exited with one. */
    readonly exitCode: number | null = null,
    /** The signal that ended a child process, when one did. */
    readonly signal: string | null = null,
  ) {
    super(message);
    this.name = 'SandboxExitError';
  }
}
