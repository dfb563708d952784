// The config file `sluice server` was started with, as CONFIG REWRITE writes it: the new text
// (commands/config-rewrite.ts) goes to a temporary file beside it, is fsynced, renamed over the
// old one and the directory fsynced, as Redis's rewriteConfigOverwriteFile, through the fs layer
// (fs-layer.ts) so a failing disk can be injected in tests.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { type ConfigFileControl, type RewriteState, rewriteConfigText } from '../commands/config-rewrite.js';
import { type AofFs, describeError, nodeFs } from './fs-layer.js';

export class ConfigFile implements ConfigFileControl {
  constructor(
    readonly path: string,
    private readonly state: () => RewriteState,
    private readonly fs: AofFs = nodeFs,
  ) {}

  rewrite(): void {
    let old = '';
    try {
      if (this.fs.exists(this.path)) old = this.fs.readFile(this.path).toString('utf8');
      this.overwrite(rewriteConfigText(old, this.state()));
    } catch (err) {
      throw new Error(describeError(err));
    }
  }

  /** The whole content, atomically: a reader sees the old file or the new one, never a part. */
  private overwrite(content: string): void {
    const tmp = `${this.path}.${randomBytes(3).toString('hex')}`;
    const fd = this.fs.openAppend(tmp);
    let renamed = false;
    try {
      const bytes = Buffer.from(content, 'utf8');
      for (let offset = 0; offset < bytes.length; ) offset += this.fs.write(fd, bytes, offset, bytes.length - offset);
      this.fs.fsyncSync(fd);
      this.fs.close(fd);
      this.fs.rename(tmp, this.path);
      renamed = true;
      this.fs.fsyncDir(dirname(this.path));
    } finally {
      if (!renamed) {
        try {
          this.fs.close(fd);
        } catch {
          // already closed
        }
        this.fs.unlink(tmp);
      }
    }
  }
}
