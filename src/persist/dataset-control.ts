// What DEBUG RELOAD, DEBUG LOADAOF and CONFIG SET appendonly do to a running server's dataset
// and AOF (the DatasetControl the command layer calls). `sluice server` installs one; it owns
// the AOF from start-up (loaded by loadAof) or from the moment CONFIG SET turns it on.
import type { Instance } from '../commands/core/instance.js';
import type { DatasetControl } from '../commands/core/persistence.js';
import { fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { describeError, type AofFs } from './fs-layer.js';
import { loadAof, manifestFiles, startAofNow, type RunningAof } from './attach.js';
import { commandSerializer, emptyDataset, type CommandImage } from './dataset-snapshot.js';
import { loadFiles } from './loader.js';
import type { FsyncPolicy } from './writer.js';

export interface DatasetControlOptions {
  /** Who holds the directory's lock, as the error of a second opener names it. */
  owner: string;
  fs?: AofFs;
}

export class ServerDatasetControl implements DatasetControl {
  private aof: RunningAof | null = null;
  /** The image the last DEBUG RELOAD saved (what RELOAD NOSAVE loads, as Redis's dump.rdb). */
  private saved: CommandImage | null = null;

  constructor(
    private readonly instance: Instance,
    private readonly options: DatasetControlOptions,
  ) {}

  /** Start-up with the AOF on: replays DIR's files, then logs every write. */
  async openAtStart(dir: string, appendfsync: FsyncPolicy): Promise<void> {
    this.aof = await loadAof(this.instance, { dir, appendfsync, owner: this.options.owner, ...this.fsOption() });
  }

  setAppendOnly(on: boolean): void {
    if (on === (this.aof !== null)) return;
    if (!on) {
      const aof = this.aof!;
      this.aof = null;
      aof.stop();
      return;
    }
    const config = this.instance.config;
    const appendfsync = config.get('appendfsync') as FsyncPolicy;
    this.aof = startAofNow(this.instance, { dir: config.get('dir'), appendfsync, owner: this.options.owner, ...this.fsOption() });
  }

  reload(options: { flush: boolean; save: boolean; merge: boolean }): void {
    // A running rewrite serialises live objects: let it finish before they are replaced.
    this.aof?.persistence.finishRewrite();
    if (options.save) this.saved = commandSerializer.save(this.instance);
    const image = this.saved;
    if (image === null) fail(Errors.rdbLoadFailed);
    if (options.flush) emptyDataset(this.instance);
    try {
      commandSerializer.load(this.instance, image, { replace: options.merge });
    } catch (err) {
      this.instance.logger.error(`sluice: DEBUG RELOAD could not load the dataset: ${describeError(err)}`);
      fail(Errors.rdbLoadFailed);
    }
  }

  async loadAof(): Promise<void> {
    const aof = this.aof;
    if (aof === null) fail(Errors.loadaofNeedsAof);
    const p = aof.persistence;
    // Everything logged must be in the files the manifest names before they are read back.
    p.finishRewrite();
    if (p.enabling) {
      try {
        p.rewriteNow();
      } catch (err) {
        fail((err as Error).message);
      }
    }
    p.writer.syncNow();
    emptyDataset(this.instance);
    const persistence = this.instance.persistence;
    this.instance.persistence = null;
    try {
      await loadFiles(this.instance, p.fs, p.dir, manifestFiles(p.currentManifest));
    } catch (err) {
      this.instance.logger.error(`sluice: DEBUG LOADAOF failed: ${describeError(err)}`);
      fail(Errors.aofLoadFailed);
    } finally {
      this.instance.persistence = persistence;
    }
    this.instance.dirty = 0;
  }

  /** Shutdown: flushes and closes the AOF if it is on. */
  close(): void {
    const aof = this.aof;
    this.aof = null;
    aof?.stop();
  }

  private fsOption(): { fs?: AofFs } {
    return this.options.fs === undefined ? {} : { fs: this.options.fs };
  }
}

