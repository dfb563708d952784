// The persistence layer as the Instance sees it: logs batches through the writer, runs
// rewrites (manual and automatic) and swaps the files atomically, and reports INFO fields.
import { join } from 'node:path';
import type { Instance } from '../commands/core/instance.js';
import type { Persistence, RewriteStart } from '../commands/core/persistence.js';
import { loggedPart, type Propagated } from '../commands/core/effects.js';
import { describeError, type AofFs } from './fs-layer.js';
import { baseName, incrName, writeManifest, type Manifest } from './manifest.js';
import { Rewrite } from './rewrite.js';
import { type FsyncPolicy, AofWriter } from './writer.js';
import { Errors } from '../resp/errors.js';

/** How long one rewrite slice may hold the event loop. */
const SLICE_MS = 5;
/** Delay before retrying a rewrite that failed or was aborted (Redis retries after 1 minute on failure). */
const RETRY_MS = 1000;

export class AofPersistence implements Persistence {
  readonly writer: AofWriter;
  private rewrite: Rewrite | null = null;
  private rewriteScheduled = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Size of the log right after the last rewrite (or load): the auto-rewrite baseline. */
  private rewriteBaseSize: number;
  baseSize: number;
  lastRewriteTimeSec = -1;
  lastRewriteOk = true;
  rewrites = 0;
  consecutiveFailures = 0;
  /** Called when a rewrite requested by SAVE/BGSAVE completes (resets LASTSAVE and dirty). */
  private saveWaiters: Array<(err: Error | null) => void> = [];
  private closed = false;

  constructor(
    readonly instance: Instance,
    readonly fs: AofFs,
    readonly dir: string,
    readonly prefix: string,
    private manifest: Manifest,
    policy: () => FsyncPolicy,
    /**
     * Set when the AOF is being turned on at run time: the log goes to this file, which the
     * manifest does not name, until the first rewrite (the current data) completes.
     */
    private enablingPath: string | null = null,
  ) {
    const incr = manifest.incrs[manifest.incrs.length - 1]!;
    this.writer = new AofWriter(fs, enablingPath ?? join(dir, incr.name), policy, instance.logger);
    this.baseSize = manifest.base !== null && fs.exists(join(dir, manifest.base.name)) ? fs.size(join(dir, manifest.base.name)) : 0;
    this.rewriteBaseSize = this.currentSize();
  }

  // --- the Instance hook ---------------------------------------------------------------

  append(all: Propagated[]): void {
    if (this.closed) return;
    const batch = loggedPart(all) as Propagated[];
    if (batch.length === 0) return;
    this.writer.append(batch);
    this.rewrite?.observe(batch);
    if (this.rewrite === null && !this.rewriteScheduled && this.autoRewriteDue()) this.startRewrite();
  }

  barrier(writeNow = false): Promise<void> | null {
    return this.writer.barrier(writeNow);
  }

  writeError(): string | null {
    return this.writer.error;
  }

  // --- sizes ---------------------------------------------------------------------------

  /** aof_current_size: base plus every incr file. */
  currentSize(): number {
    let size = this.baseSize + this.writer.logicalSize;
    for (const incr of this.manifest.incrs.slice(0, -1)) {
      const p = join(this.dir, incr.name);
      if (this.fs.exists(p)) size += this.fs.size(p);
    }
    return size;
  }

  private autoRewriteDue(): boolean {
    const perc = this.instance.config.getNumber('auto-aof-rewrite-percentage');
    if (perc <= 0) return false;
    const size = this.baseSize + this.writer.logicalSize;
    if (size < this.instance.config.getNumber('auto-aof-rewrite-min-size')) return false;
    const base = Math.max(1, this.rewriteBaseSize);
    return ((size - base) * 100) / base >= perc;
  }

  // --- rewrite -------------------------------------------------------------------------

  get rewriting(): boolean {
    return this.rewrite !== null;
  }

  get saving(): boolean {
    return this.rewrite !== null && this.saveWaiters.length > 0;
  }

  get scheduled(): boolean {
    return this.rewriteScheduled;
  }

  /** [keys serialised, keys at the start] of the running rewrite (INFO current_save_keys_*). */
  get rewriteProgress(): [number, number] {
    return this.rewrite === null ? [0, 0] : [this.rewrite.keysDone, this.rewrite.keysTotal];
  }

  get rewriteStartedAt(): number | null {
    return this.rewrite?.startedAt ?? null;
  }

  /** BGREWRITEAOF: starts an incremental rewrite in the background. */
  startRewrite(): RewriteStart {
    if (this.rewrite !== null) return 'in-progress';
    this.rewriteScheduled = false;
    try {
      this.rewrite = new Rewrite(this.instance, this.fs, Rewrite.tempName(this.dir));
    } catch (err) {
      this.rewriteFailed(err);
      return 'started';
    }
    setImmediate(() => this.runSlice());
    return 'started';
  }

  /** Runs a rewrite after the current one (BGSAVE SCHEDULE while a rewrite runs). */
  schedule(): void {
    this.rewriteScheduled = true;
  }

  /** SAVE/BGSAVE: resolves once a rewrite started now (or the next one) completes. */
  waitForSave(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.saveWaiters.push((err) => (err === null ? resolve() : reject(err)));
    });
  }

  /** SAVE: a whole rewrite without yielding (clients wait, as with Redis's SAVE). */
  rewriteNow(): void {
    if (this.rewrite !== null) throw new Error(Errors.saveInProgress);
    const rw = new Rewrite(this.instance, this.fs, Rewrite.tempName(this.dir));
    this.rewrite = rw;
    try {
      while (!rw.step(1e9));
      this.complete(rw);
    } catch (err) {
      this.rewriteFailed(err);
      throw new Error(`ERR ${describeError(err)}`);
    }
  }

  /** Runs the rewrite in progress to its end now, so the files hold every write (DEBUG LOADAOF, RELOAD). */
  finishRewrite(): void {
    const rw = this.rewrite;
    if (rw === null) return;
    try {
      while (rw.aborted === null && !rw.step(1e9));
      if (rw.aborted !== null) throw new Error(rw.aborted);
      this.complete(rw);
    } catch (err) {
      this.rewriteFailed(err);
    }
  }

  /** The current manifest (read it, do not change it). */
  get currentManifest(): Readonly<Manifest> {
    return this.manifest;
  }

  private runSlice(): void {
    const rw = this.rewrite;
    if (rw === null || this.closed) return;
    // A script that yielded past busy-reply-threshold has written what it has not logged yet:
    // the keys a slice would serialise now could be logged again after it (see rewrite.ts).
    if (this.instance.busyScript !== null) {
      setTimeout(() => this.runSlice(), 1);
      return;
    }
    try {
      if (rw.aborted !== null) throw new Error(rw.aborted);
      if (!rw.step(SLICE_MS)) {
        setImmediate(() => this.runSlice());
        return;
      }
      if (rw.aborted !== null) throw new Error(rw.aborted);
      this.complete(rw);
    } catch (err) {
      this.rewriteFailed(err);
    }
  }

  /** Writes the rest of the new base and makes the new files the log, atomically. */
  private complete(rw: Rewrite): void {
    const baseSeq = (this.manifest.base?.seq ?? 0) + 1;
    const incrSeq = (this.manifest.incrs[this.manifest.incrs.length - 1]?.seq ?? 0) + 1;
    const newBase = baseName(this.prefix, baseSeq);
    const newIncr = incrName(this.prefix, incrSeq);
    // Everything logged so far is in the old incr (kept until the manifest flips) and in rw.
    this.writer.syncNow();
    const size = rw.finish();
    this.fs.rename(rw.tempPath, join(this.dir, newBase));
    this.fs.unlink(join(this.dir, newIncr));
    const incrFd = this.fs.openAppend(join(this.dir, newIncr));
    const old = this.manifest;
    const next: Manifest = {
      base: { name: newBase, seq: baseSeq, type: 'b' },
      incrs: [{ name: newIncr, seq: incrSeq, type: 'i' }],
      history: [],
    };
    // The manifest flips atomically; a failure before that leaves the old files in force and
    // the writer still appending to them. After it, adopt() cannot fail.
    try {
      writeManifest(this.fs, this.dir, this.prefix, next);
    } catch (err) {
      this.fs.close(incrFd);
      throw err;
    }
    this.manifest = next;
    this.writer.adopt(incrFd, join(this.dir, newIncr));
    // The old files are no longer referenced; a crash before this leaves only garbage.
    for (const f of [...(old.base !== null ? [old.base] : []), ...old.incrs, ...old.history]) {
      this.unlinkQuietly(join(this.dir, f.name));
    }
    if (this.enablingPath !== null) {
      this.unlinkQuietly(this.enablingPath);
      this.enablingPath = null;
    }
    this.baseSize = size;
    this.rewriteBaseSize = size;
    this.rewrite = null;
    this.lastRewriteTimeSec = Math.round((Date.now() - rw.startedAt) / 1000);
    this.lastRewriteOk = true;
    this.rewrites++;
    this.consecutiveFailures = 0;
    const waiters = this.saveWaiters;
    this.saveWaiters = [];
    if (waiters.length > 0) {
      this.instance.dirty = 0;
      this.instance.lastSaveTime = Math.floor(Date.now() / 1000);
    }
    for (const w of waiters) w(null);
    if (this.rewriteScheduled) this.startRewrite();
  }

  private unlinkQuietly(path: string): void {
    try {
      this.fs.unlink(path);
    } catch (err) {
      this.instance.logger.warn(`sluice: could not remove the old AOF file ${path}: ${describeError(err)}`);
    }
  }

  /** True until the rewrite that turns the AOF on has completed (the files lack the data till then). */
  get enabling(): boolean {
    return this.enablingPath !== null;
  }

  private rewriteFailed(err: unknown): void {
    const rw = this.rewrite;
    this.rewrite = null;
    rw?.discard();
    const aborted = rw?.aborted !== null && rw?.aborted !== undefined;
    if (!aborted) {
      this.lastRewriteOk = false;
      this.consecutiveFailures++;
      this.instance.logger.error(`sluice: AOF rewrite failed: ${describeError(err)}`);
    }
    if (this.enablingPath !== null && !aborted) {
      // The AOF is not complete until this rewrite succeeds: retry it, as Redis does.
      this.rewriteScheduled = true;
      this.scheduleRetry();
    }
    if (this.saveWaiters.length > 0 || aborted) {
      // An aborted rewrite (FLUSHALL ran) is retried; SAVE/BGSAVE waiters are told of failures.
      if (aborted) {
        this.rewriteScheduled = true;
        this.scheduleRetry();
      } else {
        const waiters = this.saveWaiters;
        this.saveWaiters = [];
        for (const w of waiters) w(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== null || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.rewriteScheduled && this.rewrite === null) this.startRewrite();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  // --- INFO ----------------------------------------------------------------------------

  infoFields(): Array<[string, string | number]> {
    const started = this.rewrite?.startedAt;
    return [
      ['aof_enabled', 1],
      ['aof_rewrite_in_progress', this.rewrite !== null ? 1 : 0],
      ['aof_rewrite_scheduled', this.rewriteScheduled ? 1 : 0],
      ['aof_last_rewrite_time_sec', this.lastRewriteTimeSec],
      ['aof_current_rewrite_time_sec', started === undefined ? -1 : Math.round((Date.now() - started) / 1000)],
      ['aof_last_bgrewrite_status', this.lastRewriteOk ? 'ok' : 'err'],
      ['aof_rewrites', this.rewrites],
      ['aof_rewrites_consecutive_failures', this.consecutiveFailures],
      ['aof_last_write_status', this.writer.lastWriteOk ? 'ok' : 'err'],
      ['aof_current_size', this.currentSize()],
      ['aof_base_size', this.baseSize],
      ['aof_pending_rewrite', this.rewriteScheduled ? 1 : 0],
      ['aof_buffer_length', this.bufferedBytes],
    ];
  }

  get bufferedBytes(): number {
    return Math.max(0, this.writer.logicalSize - this.writer.size);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.rewrite?.discard();
    this.rewrite = null;
    this.writer.close();
  }
}
