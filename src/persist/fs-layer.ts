// The file operations the AOF uses, behind an interface so tests can inject a failing disk
// (ENOSPC, EIO) without root or a real full file system. Writes are synchronous (write(2) to
// the page cache is cheap and must happen before a reply is sent); fsync is asynchronous so
// the event loop keeps serving clients while the disk flushes (group commit).
import * as fs from 'node:fs';

export interface AofFs {
  /** Opens for appending, creating the file if needed. */
  openAppend(path: string): number;
  /**
   * Writes some bytes at the end; returns how many were written (may be fewer). Throws on error.
   * `buf` must not be kept after the call: the writer reuses its memory for later batches.
   */
  write(fd: number, buf: Buffer, offset: number, length: number): number;
  fsync(fd: number): Promise<void>;
  fsyncSync(fd: number): void;
  close(fd: number): void;
  readFile(path: string): Buffer;
  /**
   * Reads up to `length` bytes at `position` into `into` at `offset`; returns the count. The
   * loader reads large files in windows with it; a layer without it is read whole (readFile).
   */
  readAt?(path: string, into: Buffer, offset: number, length: number, position: number): number;
  exists(path: string): boolean;
  size(path: string): number;
  truncate(path: string, length: number): void;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  mkdir(path: string): void;
  readdir(path: string): string[];
  /** Makes a rename or a new file in the directory durable. */
  fsyncDir(path: string): void;
}

export const nodeFs: AofFs = {
  openAppend: (path) => fs.openSync(path, 'a'),
  write: (fd, buf, offset, length) => fs.writeSync(fd, buf, offset, length),
  fsync: (fd) =>
    new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve()))),
  fsyncSync: (fd) => fs.fdatasyncSync(fd),
  close: (fd) => fs.closeSync(fd),
  readFile: (path) => fs.readFileSync(path),
  readAt: (path, into, offset, length, position) => {
    const fd = fs.openSync(path, 'r');
    try {
      return fs.readSync(fd, into, offset, length, position);
    } finally {
      fs.closeSync(fd);
    }
  },
  exists: (path) => fs.existsSync(path),
  size: (path) => fs.statSync(path).size,
  truncate: (path, length) => fs.truncateSync(path, length),
  rename: (from, to) => fs.renameSync(from, to),
  unlink: (path) => fs.rmSync(path, { force: true }),
  mkdir: (path) => fs.mkdirSync(path, { recursive: true }),
  readdir: (path) => fs.readdirSync(path),
  fsyncDir: (path) => {
    const fd = fs.openSync(path, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
};

/** The text Redis puts after "MISCONF Errors writing to the AOF file: " (strerror). */
export function describeError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOSPC':
      return 'No space left on device';
    case 'EIO':
      return 'Input/output error';
    case 'EDQUOT':
      return 'Disk quota exceeded';
    case 'EROFS':
      return 'Read-only file system';
    case 'EBADF':
      return 'Bad file descriptor';
    case 'EACCES':
      return 'Permission denied';
    default:
      return (err as Error)?.message ?? String(err);
  }
}
