// A file read through one reusable buffer, so loading a large AOF holds a few megabytes of it
// at a time instead of the whole file (which stayed in RSS until the next full GC). Views into
// `data` are valid until the next advance(): whatever outlives a record must be copied.
import type { AofFs } from './fs-layer.js';

const WINDOW_BYTES = 4 << 20;

export class FileWindow {
  /** The bytes read; data[0] is the file's byte `base`. */
  data: Buffer;
  base = 0;
  readonly size: number;
  private buf: Buffer;

  constructor(
    private readonly fs: AofFs,
    private readonly path: string,
  ) {
    if (fs.readAt === undefined) {
      // A layer that can only read whole files (test doubles): one window, the whole file.
      this.buf = this.data = fs.readFile(path);
      this.size = this.data.length;
      return;
    }
    this.size = fs.size(path);
    this.buf = Buffer.allocUnsafeSlow(Math.max(1, Math.min(this.size, WINDOW_BYTES)));
    this.data = this.buf.subarray(0, 0);
    this.fill(0);
  }

  /** True when the window holds the file's last byte. */
  get atEnd(): boolean {
    return this.base + this.data.length >= this.size;
  }

  /**
   * Moves the window to start at file offset `from` (inside the window or just past it) and
   * reads on; the buffer doubles when the bytes kept already fill it (a record larger than it).
   */
  advance(from: number): void {
    const start = from - this.base;
    const keep = this.data.length - start;
    if (keep >= this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(this.buf.length * 2);
      this.data.copy(bigger, 0, start);
      this.buf = bigger;
    } else {
      this.buf.copyWithin(0, start, this.data.length);
    }
    this.base = from;
    this.fill(keep);
  }

  /** Moves the window to any file offset, dropping what it holds (past an RDB preamble). */
  seek(from: number): void {
    this.base = from;
    if (this.fs.readAt === undefined) {
      this.data = this.buf.subarray(from);
      return;
    }
    this.fill(0);
  }

  /** Reads from the file into buf[filled..] until it is full or the file ends. */
  private fill(filled: number): void {
    const readAt = this.fs.readAt!;
    while (filled < this.buf.length && this.base + filled < this.size) {
      const n = readAt(this.path, this.buf, filled, this.buf.length - filled, this.base + filled);
      if (n === 0) break; // the file shrank under us: what was read is what there is
      filled += n;
    }
    this.data = this.buf.subarray(0, filled);
  }
}
