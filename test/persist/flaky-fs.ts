// A file layer for fault injection: nodeFs, except that writes and fsyncs fail (ENOSPC, EIO)
// or slow down while told to.
import { fstatSync } from 'node:fs';
import { nodeFs, type AofFs } from '../../src/persist/fs-layer.js';

function errno(code: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: simulated`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}

/** nodeFs as a class, so test file layers override only the operations they watch. */
export class PassThroughFs implements AofFs {
  openAppend = nodeFs.openAppend;
  write = nodeFs.write;
  fsync = nodeFs.fsync;
  fsyncSync = nodeFs.fsyncSync;
  close = nodeFs.close;
  readFile = nodeFs.readFile;
  exists = nodeFs.exists;
  size = nodeFs.size;
  truncate = nodeFs.truncate;
  rename = nodeFs.rename;
  unlink = nodeFs.unlink;
  mkdir = nodeFs.mkdir;
  readdir = nodeFs.readdir;
  fsyncDir = nodeFs.fsyncDir;
}

/** nodeFs, except that writes and fsyncs fail (or fsyncs are slow) while told to. */
export class FlakyFs extends PassThroughFs {
  writeError: string | null = null;
  fsyncError: string | null = null;
  /** When set, a failing write first writes this many bytes (a short write). */
  partialBytes = 0;
  writes = 0;
  /** How many writes/fsyncs failed so far. */
  failures = 0;
  override openAppend = (path: string): number => {
    const fd = nodeFs.openAppend(path);
    this.paths.set(fd, path);
    return fd;
  };
  override fsyncSync = (fd: number) => {
    if (this.fsyncError !== null) throw errno(this.fsyncError);
    nodeFs.fsyncSync(fd);
  };
  override write = (fd: number, buf: Buffer, offset: number, length: number): number => {
    this.writes++;
    if (this.writeError !== null) {
      if (this.partialBytes > 0) {
        const n = nodeFs.write(fd, buf, offset, Math.min(this.partialBytes, length));
        this.partialBytes = 0;
        return n;
      }
      this.failures++;
      throw errno(this.writeError);
    }
    return nodeFs.write(fd, buf, offset, length);
  };
  /** A slow disk: every fsync takes this long. */
  fsyncDelayMs = 0;
  /** Per file path: how many bytes the last completed fsync made durable (power-loss tests). */
  readonly durable = new Map<string, number>();
  private readonly paths = new Map<number, string>();
  override fsync = async (fd: number): Promise<void> => {
    const size = fstatSync(fd).size; // what this fsync covers
    if (this.fsyncDelayMs > 0) await new Promise((r) => setTimeout(r, this.fsyncDelayMs));
    if (this.fsyncError !== null) {
      this.failures++;
      throw errno(this.fsyncError);
    }
    await nodeFs.fsync(fd);
    const path = this.paths.get(fd);
    if (path !== undefined) this.durable.set(path, Math.max(size, this.durable.get(path) ?? 0));
  };
}

