// Shared Buffers for the short arguments requests repeat ("XADD", "*", "f", "v", "~", "COUNT",
// small numbers). Creating a Buffer view per argument is the request parser's largest cost
// (about 100 ns each, a third of parsing "XADD s * f v"), while looking a short argument up
// here costs a few multiplications. An argument gets a shared Buffer from its second
// occurrence on, so one-off values (random keys and members) cost one extra comparison.
//
// Shared Buffers are owned by this table: handlers must not write into arguments (none does:
// stored values are copied, and strings are rewritten into new Buffers).
import { Buffer } from 'node:buffer';

/** Arguments up to this many bytes are looked up: length and bytes fit one exact double. */
export const MAX_INTERNED = 6;
const SLOTS = 4096;
const MASK = SLOTS - 1;

export class ArgIntern {
  /** Exact keys of the shared Buffers, one per slot (-1: empty). */
  private readonly keys = new Float64Array(SLOTS).fill(-1);
  private readonly values: Buffer[] = new Array<Buffer>(SLOTS).fill(Buffer.alloc(0));
  /** Keys seen once: a second sighting makes the argument shared. */
  private readonly seen = new Float64Array(SLOTS).fill(-1);

  /** buf[start, start + len) (len <= MAX_INTERNED) as a shared Buffer, or a view of buf. */
  get(buf: Buffer, start: number, len: number): Buffer {
    // key = len, then each byte, in base 256: exact below 2^53 for up to 6 bytes.
    let key = len;
    let hash = len;
    for (let i = start, end = start + len; i < end; i++) {
      const c = buf[i]!;
      key = key * 256 + c;
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    const slot = (hash ^ (hash >>> 12)) & MASK;
    if (this.keys[slot] === key) return this.values[slot]!;
    const view = buf.subarray(start, start + len);
    if (this.seen[slot] !== key) {
      this.seen[slot] = key;
      return view;
    }
    // Copied out of the read buffer: a shared Buffer must not pin a 64 KiB socket read.
    const shared = Buffer.allocUnsafe(len);
    view.copy(shared);
    this.keys[slot] = key;
    this.values[slot] = shared;
    return shared;
  }
}

/** One table for every parser: the arguments clients repeat are mostly the same ones. */
export const sharedArgs = new ArgIntern();
