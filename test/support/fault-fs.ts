// File layers for fault injection under the AOF: nodeFs passed through, with one hook before
// every operation that changes the disk (subclasses fail, count or "die" there), and opening
// an embedded database on such a layer.
import { EmbeddedDatabase } from '../../src/client/embedded.js';
import { attachPersistence } from '../../src/persist/attach.js';
import { type AofFs, nodeFs } from '../../src/persist/fs-layer.js';
import type { FsyncPolicy } from '../../src/persist/writer.js';
import { instanceBehind } from '../../src/commands/core/instance-handles.js';

/** The operations that change the disk, as `before` sees them. */
export type DiskOp = 'openAppend' | 'write' | 'fsync' | 'fsyncSync' | 'truncate' | 'rename' | 'unlink' | 'fsyncDir';

/** nodeFs, with `before(op)` run before each disk-changing operation (it may throw). */
export class PassThroughFs implements AofFs {
  protected before(_op: DiskOp): void {}

  openAppend(path: string): number {
    this.before('openAppend');
    return nodeFs.openAppend(path);
  }
  write(fd: number, buf: Buffer, offset: number, length: number): number {
    this.before('write');
    return nodeFs.write(fd, buf, offset, length);
  }
  async fsync(fd: number): Promise<void> {
    this.before('fsync');
    return nodeFs.fsync(fd);
  }
  fsyncSync(fd: number): void {
    this.before('fsyncSync');
    nodeFs.fsyncSync(fd);
  }
  close(fd: number): void {
    nodeFs.close(fd);
  }
  readFile(path: string): Buffer {
    return nodeFs.readFile(path);
  }
  exists(path: string): boolean {
    return nodeFs.exists(path);
  }
  size(path: string): number {
    return nodeFs.size(path);
  }
  truncate(path: string, length: number): void {
    this.before('truncate');
    nodeFs.truncate(path, length);
  }
  rename(from: string, to: string): void {
    this.before('rename');
    nodeFs.rename(from, to);
  }
  unlink(path: string): void {
    this.before('unlink');
    nodeFs.unlink(path);
  }
  mkdir(path: string): void {
    nodeFs.mkdir(path);
  }
  readdir(path: string): string[] {
    return nodeFs.readdir(path);
  }
  fsyncDir(path: string): void {
    this.before('fsyncDir');
    nodeFs.fsyncDir(path);
  }
}

/** An error as the file system raises it (err.code ENOSPC, EIO ...). */
export function errno(code: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: simulated`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}

/** A fresh embedded database whose AOF in `dir` goes through `fs`. */
export async function openOnFs<F extends AofFs>(dir: string, appendfsync: FsyncPolicy, fs: F): Promise<[EmbeddedDatabase, F]> {
  const db = new EmbeddedDatabase();
  await attachPersistence(instanceBehind(db), { dir, appendfsync, fs }, (fn) => db.onClose(fn));
  return [db, fs];
}
