// A file layer for fault injection: nodeFs, except that writes and fsyncs fail (ENOSPC, EIO,
// EROFS) or fsyncs are slow while told to; it also records what each fsync made durable, so a
// test can simulate a power loss.
import { fstatSync } from 'node:fs';
import { errno, PassThroughFs } from '../support/fault-fs.js';

export class FlakyFs extends PassThroughFs {
  writeError: string | null = null;
  fsyncError: string | null = null;
  /** When set, a failing write first writes this many bytes (a short write). */
  partialBytes = 0;
  writes = 0;
  /** How many writes/fsyncs failed so far. */
  failures = 0;
  /** How many background fsyncs (everysec's, or always's in the pool) succeeded so far. */
  fsyncs = 0;
  /** A slow disk: every fsync takes this long. */
  fsyncDelayMs = 0;
  /** Per file path: how many bytes the last completed fsync made durable (power-loss tests). */
  readonly durable = new Map<string, number>();
  private readonly paths = new Map<number, string>();

  override openAppend(path: string): number {
    const fd = super.openAppend(path);
    this.paths.set(fd, path);
    return fd;
  }

  override fsyncSync(fd: number): void {
    const size = fstatSync(fd).size;
    if (this.fsyncDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.fsyncDelayMs);
    if (this.fsyncError !== null) throw errno(this.fsyncError);
    super.fsyncSync(fd);
    const path = this.paths.get(fd);
    if (path !== undefined) this.durable.set(path, Math.max(size, this.durable.get(path) ?? 0));
  }

  override write(fd: number, buf: Buffer, offset: number, length: number): number {
    this.writes++;
    if (this.writeError !== null) {
      if (this.partialBytes > 0) {
        const n = super.write(fd, buf, offset, Math.min(this.partialBytes, length));
        this.partialBytes = 0;
        return n;
      }
      this.failures++;
      throw errno(this.writeError);
    }
    return super.write(fd, buf, offset, length);
  }

  override async fsync(fd: number): Promise<void> {
    const size = fstatSync(fd).size; // what this fsync covers
    if (this.fsyncDelayMs > 0) await new Promise((r) => setTimeout(r, this.fsyncDelayMs));
    if (this.fsyncError !== null) {
      this.failures++;
      throw errno(this.fsyncError);
    }
    await super.fsync(fd);
    this.fsyncs++;
    const path = this.paths.get(fd);
    if (path !== undefined) this.durable.set(path, Math.max(size, this.durable.get(path) ?? 0));
  }
}
