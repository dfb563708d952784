// A cursor over a command's arguments, for the option loops Redis writes as
// `for (i = ...; i < c->argc; i++) { moreargs = c->argc - i - 1; ... }`: each read advances,
// and each typed read fails with the error text Redis gives for that kind of argument.
import { type StreamId } from '../engine/stream-id.js';
import { parseStrictId } from './stream/ids.js';
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { blockTimeoutMs, capToSafe, int64Arg, lower } from './args.js';

export class ArgCursor {
  constructor(
    readonly argv: Buffer[],
    /** Index of the next argument to read. */
    public index: number,
  ) {}

  get done(): boolean {
    return this.index >= this.argv.length;
  }

  /** Arguments not read yet (after a keyword(), Redis's `moreargs` for that keyword). */
  get remaining(): number {
    return this.argv.length - this.index;
  }

  /** The next argument without reading it. */
  peek(): Buffer | undefined {
    return this.argv[this.index];
  }

  next(): Buffer {
    return this.argv[this.index++]!;
  }

  /** The next argument lower-cased, for keyword matching. */
  keyword(): string {
    return lower(this.next());
  }

  /** A signed 64-bit integer, else `message` (Redis's "not an integer" by default). */
  int64(message?: string): bigint {
    return int64Arg(this.next(), message);
  }

  /** A COUNT: an integer, negatives read as 0, capped to a safe integer. */
  count(): number {
    const n = this.int64();
    return n < 0n ? 0 : capToSafe(n);
  }

  /** An integer that must be >= 0 (else `negativeError`), capped to a safe integer. */
  nonNegative(negativeError: string, notIntegerError: string = Errors.notInteger): number {
    const n = this.int64(notIntegerError);
    if (n < 0n) fail(negativeError);
    return capToSafe(n);
  }

  /** A strict stream id (no "-" / "+"). */
  streamId(): StreamId {
    return parseStrictId(this.next());
  }

  /** A BLOCK timeout in milliseconds. */
  timeout(): number {
    return blockTimeoutMs(this.next());
  }
}
