// The arguments of a script's redis.call, copied out of the interpreter's memory into an
// append-only arena and read in place (a RequestArgs), as a server connection's requests are:
// no Buffer per argument, and the command table finds the command from the bytes. They are laid
// out as RESP (`*n`, then `$len` and the bytes of each), so a write's log entry copies them as
// they are (WireCommand) instead of encoding them again. The arena is never written over (a
// full one is left to the garbage collector), so what a command keeps of its arguments stays
// valid. Copying each argument into a Buffer of its own was a fifth of a redis.call's time.
import { Buffer } from 'node:buffer';
import { Encoder } from '../../resp/encoder.js';
import { RequestArgs } from '../../resp/request-args.js';

const ARENA_SIZE = 64 * 1024;
/** Arguments up to this long are copied byte by byte: a native copy needs a view of the source. */
const LONGEST_LOOPED = 32;

export class CallArgs {
  private arena = Buffer.allocUnsafeSlow(ARENA_SIZE);
  private used = 0;
  /** One for every call: a script's commands run one at a time and none keeps the object. */
  private readonly args = new RequestArgs();

  /**
   * The `argc` arguments whose addresses and lengths are the 32-bit words at byte offsets
   * `ptrsAt` and `lensAt` of the interpreter's memory (`mem`, `words` its two views). Valid
   * until the next read().
   */
  read(mem: Uint8Array, words: Uint32Array, argc: number, ptrsAt: number, lensAt: number): RequestArgs {
    const ptrs = ptrsAt >>> 2;
    const lens = lensAt >>> 2;
    let size = 3 + Encoder.digitCount(argc);
    for (let i = 0; i < argc; i++) {
      const len = words[lens + i]!;
      size += 5 + Encoder.digitCount(len) + len;
    }
    if (this.used + size > this.arena.length) {
      this.arena = Buffer.allocUnsafeSlow(Math.max(ARENA_SIZE, size));
      this.used = 0;
    }
    const a = this.arena;
    let p = this.used;
    a[p++] = 42; // *
    p = Encoder.decimal(a, p, argc, Encoder.digitCount(argc));
    a[p++] = 13;
    a[p++] = 10;
    const args = this.args;
    args.reset();
    for (let i = 0; i < argc; i++) {
      const from = words[ptrs + i]!;
      const len = words[lens + i]!;
      a[p++] = 36; // $
      p = Encoder.decimal(a, p, len, Encoder.digitCount(len));
      a[p++] = 13;
      a[p++] = 10;
      if (len <= LONGEST_LOOPED) for (let j = 0; j < len; j++) a[p + j] = mem[from + j]!;
      else a.set(mem.subarray(from, from + len), p);
      args.push(a, p, p + len);
      p += len;
      a[p++] = 13;
      a[p++] = 10;
    }
    args.fromResp = true;
    this.used = p;
    return args;
  }
}
