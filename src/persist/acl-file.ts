// The aclfile's bytes for ACL LOAD / SAVE and the start-up load (commands/acl/acl-file.ts): read
// whole, written to a temporary file beside it and renamed over it, as Redis's ACLSaveToFile,
// through the fs layer. A relative path is taken from the server's `dir`, where Redis, having
// changed into that directory, finds it.
import { dirname, resolve } from 'node:path';
import type { AclFileControl } from '../commands/acl/acl-users.js';
import type { Config } from '../commands/config.js';
import { type AofFs, describeError, nodeFs } from './fs-layer.js';

/** strerror's words for the errors a read meets. */
function strerror(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'No such file or directory';
  if (code === 'EISDIR') return 'Is a directory';
  return describeError(err);
}

export class AclFile implements AclFileControl {
  constructor(
    private readonly config: Config,
    private readonly fs: AofFs = nodeFs,
  ) {}

  get name(): string {
    return this.config.get('aclfile');
  }

  private get path(): string {
    return resolve(this.config.get('dir'), this.name);
  }

  read(): string {
    try {
      return this.fs.readFile(this.path).toString('latin1');
    } catch (err) {
      throw new Error(strerror(err));
    }
  }

  write(text: string): void {
    const path = this.path;
    const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
    try {
      const fd = this.fs.openAppend(tmp);
      try {
        const bytes = Buffer.from(text, 'latin1');
        for (let offset = 0; offset < bytes.length; ) offset += this.fs.write(fd, bytes, offset, bytes.length - offset);
      } finally {
        this.fs.close(fd);
      }
      this.fs.rename(tmp, path);
      this.fs.fsyncDir(dirname(path));
    } catch (err) {
      if (this.fs.exists(tmp)) this.fs.unlink(tmp);
      throw new Error(describeError(err));
    }
  }
}
