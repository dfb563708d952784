// Appends propagated commands to the current incr file with the fsync policy:
//   always   - the commands of one event-loop turn are written and fsynced once (group commit);
//              replies wait on barrier() until their bytes are on disk. On a fast disk the
//              fdatasync runs on the event loop, as Redis's beforeSleep does; on a slow one in
//              the thread pool (see fsyncOnLoop).
//   everysec - the commands of one turn are written together before their replies, fsynced
//              once a second in the background.
//   no       - written as everysec; the OS decides when to flush.
// A failed write or fsync keeps the unwritten bytes, sets `error` (the dispatcher then refuses
// write commands with MISCONF) and retries every second. The replies waiting on those bytes are
// not held: barrier() rejects at once with the MISCONF text, and the transport answers the
// commands that logged something with it (see README.md: such a command ran in memory and its
// bytes reach the log if the disk takes them before the process ends; it is not acknowledged).
import { BatchEncoder } from './batch-encoder.js';
import type { Propagated } from '../commands/core/effects.js';
import { describeError, type AofFs } from './fs-layer.js';
import { type Logger, silentLogger } from '../logger.js';
import { Errors } from '../resp/errors.js';

export type FsyncPolicy = 'always' | 'everysec' | 'no';

/** Fsyncs averaging longer than this run in the thread pool, not on the event loop. */
export const FSYNC_ON_LOOP_MAX_MS = 2;

interface Waiter {
  /** Resolve once this many bytes of the file are written (and fsynced when `sync`). */
  target: number;
  sync: boolean;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Why a barrier failed: the text the waiting writes are answered with. */
export class AofWriteError extends Error {}

export class AofWriter {
  readonly encoder = new BatchEncoder();
  /** Bytes in the file (what was there when opened plus what we wrote). */
  size: number;
  /** Bytes known to be on disk. */
  private synced: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private fd: number;
  private waiters: Waiter[] = [];
  private flushScheduled = false;
  private fsyncing = false;
  /** Bumped by adopt(): tells an fsync of the current file from one of the file it replaced. */
  private generation = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private everysecTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Moving average of fsync durations (ms), from both the loop and the thread pool. */
  private fsyncMs = 0;
  /** "MISCONF ..." while the disk refuses writes. */
  error: string | null = null;
  lastWriteOk = true;

  constructor(
    private readonly fs: AofFs,
    public path: string,
    private readonly policy: () => FsyncPolicy,
    private readonly logger: Logger = silentLogger,
  ) {
    this.fd = fs.openAppend(path);
    this.size = fs.size(path);
    this.synced = this.size;
    this.everysecTimer = setInterval(() => {
      if (this.policy() === 'everysec') this.startFsync();
    }, 1000);
    this.everysecTimer.unref();
  }

  /** Bytes accepted (written or still buffered). */
  get logicalSize(): number {
    return this.size + this.pendingBytes;
  }

  append(batch: Propagated[]): void {
    if (this.closed) return;
    // The bytes wait in the encoder's arena: the turn's batches are written as one Buffer.
    this.pendingBytes += this.encoder.encode(batch);
    this.scheduleFlush();
  }

  /** Appends raw, already-encoded bytes (used after a rewrite; no SELECT bookkeeping). */
  appendRaw(buf: Buffer): void {
    this.encoder.take(this.pending);
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    this.scheduleFlush();
  }

  /**
   * Called before a reply is sent; returns a promise when the reply must wait. As Redis's
   * beforeSleep, the commands of one event-loop turn are written with one write(2) at the end of
   * the turn (setImmediate, after every socket read of the poll phase), and under always fsynced
   * together (group commit); replies go out after that, so a reply never precedes its bytes.
   * `writeNow` (everysec/no): write synchronously now, no promise unless the disk fails.
   */
  barrier(writeNow = false): Promise<void> | null {
    if (this.closed) return null;
    const sync = this.policy() === 'always';
    const target = this.logicalSize;
    if (this.error !== null) {
      // Write commands are refused before they run while the disk fails, so new bytes are
      // rare (an expired key's DEL); a reply depending on bytes not yet durable fails.
      return target <= (sync ? this.synced : this.size) ? null : Promise.reject(new AofWriteError(this.error));
    }
    if (target <= (sync ? this.synced : this.size)) return null;
    if (writeNow && !sync) return this.writePending() ? null : Promise.reject(new AofWriteError(this.error!));
    this.scheduleFlush();
    return new Promise((resolve, reject) => this.waiters.push({ target, sync, resolve, reject }));
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** Writes what is buffered and, under always, fsyncs it. */
  private flush(): void {
    if (this.closed) return;
    if (this.pendingBytes > 0 && !this.writePending()) return;
    if (this.policy() === 'always' || this.waiters.some((w) => w.sync)) {
      if (this.fsyncMs <= FSYNC_ON_LOOP_MAX_MS) this.fsyncOnLoop();
      else this.startFsync();
    }
  }

  /**
   * fdatasync on the event loop. Handing it to the thread pool costs the loop ~35 µs a group
   * on these VMs, and the loop then wakes for every client that trickles in during the fsync,
   * each turn serving a few. On the loop (bench/aof.js, 50 clients) the groups grew from 25 to
   * 30 commands per fdatasync (Redis: 26) and CPU per request fell ~10%. But while it blocks,
   * nothing else runs: not even the clients of the server's own process, which then reach the
   * server one fsync at a time. With an 80 ms fsync that serialised 30 such writers into groups
   * of one; so a disk whose fsyncs average over FSYNC_ON_LOOP_MAX_MS is synced in the pool.
   */
  private fsyncOnLoop(): void {
    if (!this.fsyncDue()) return;
    const covered = this.size;
    const started = performance.now();
    try {
      this.fs.fsyncSync(this.fd);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.timedFsync(performance.now() - started);
    this.fsynced(covered);
  }

  /** Bytes are written that no fsync (done or in flight) covers, and the file is open. */
  private fsyncDue(): boolean {
    return !this.fsyncing && !this.closed && this.size > this.synced;
  }

  /** The first `covered` bytes of the current file are on disk: answer who waited for them. */
  private fsynced(covered: number): void {
    this.synced = Math.max(this.synced, covered);
    this.recovered();
    this.resolveWaiters();
  }

  /** Keeps the moving average of fsync durations that picks where the next one runs. */
  private timedFsync(ms: number): void {
    this.fsyncMs = this.fsyncMs * 0.8 + ms * 0.2;
  }

  /** Writes the buffer; returns false (and keeps the unwritten rest) on a disk error. */
  private writePending(): boolean {
    this.encoder.take(this.pending);
    const buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    let off = 0;
    try {
      while (off < buf.length) {
        const n = this.fs.write(this.fd, buf, off, buf.length - off);
        off += n;
        this.size += n;
        this.pendingBytes -= n;
      }
    } catch (err) {
      this.pending = [buf.subarray(off)];
      this.fail(err);
      return false;
    }
    // Written whole by a synchronous write(2): no Buffer of the arena is held any more.
    this.encoder.reuse();
    this.recovered();
    this.resolveWaiters();
    return true;
  }

  private startFsync(): void {
    if (!this.fsyncDue()) return;
    this.fsyncing = true;
    const covered = this.size;
    const file = this.generation;
    const started = performance.now();
    this.fs.fsync(this.fd).then(
      () => {
        this.fsyncing = false;
        this.timedFsync(performance.now() - started);
        // An fsync of the file a rewrite replaced (adopt() ran meanwhile) says nothing about the
        // new file: its offset must not count as synced there, or replies would go out for
        // bytes not even written yet (a kill -9 then loses acknowledged writes).
        if (file !== this.generation) return this.afterStaleFsync();
        this.fsynced(covered);
        // The next group: what arrived during this fsync, plus whatever the rest of this
        // poll phase reads (the flush runs at the end of the turn).
        if (this.waiters.length > 0) this.scheduleFlush();
      },
      (err: unknown) => {
        this.fsyncing = false;
        // The replaced file was synced by syncNow() before the switch; its fd is closed now.
        if (file !== this.generation) return this.afterStaleFsync();
        this.fail(err);
      },
    );
  }

  /** The new file's waiters were held back by the replaced file's fsync: serve them now. */
  private afterStaleFsync(): void {
    if (this.waiters.length > 0) this.scheduleFlush();
  }

  private resolveWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.target <= (w.sync ? this.synced : this.size)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  private fail(err: unknown): void {
    const reason = describeError(err);
    if (this.error === null) this.logger.error(`sluice: error writing to the AOF file ${this.path}: ${reason}`);
    this.error = Errors.aofWrite(reason);
    this.lastWriteOk = false;
    // Answer the replies waiting for the disk now (they fail); their bytes stay queued.
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(new AofWriteError(this.error));
    if (this.retryTimer === null && !this.closed) {
      // Retry as Redis's serverCron does; the timer keeps the process alive while replies wait.
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.flush();
        if (this.error !== null && this.pendingBytes === 0 && this.size > this.synced) this.startFsync();
      }, 1000);
    }
  }

  private recovered(): void {
    // An fsync that succeeds while bytes still wait for the disk (everysec's, after a short
    // write) syncs only what was written: the log still lacks the rest, the error stands.
    if (this.error === null || this.pendingBytes > 0) return;
    this.logger.warn('sluice: AOF write error looks solved, writes are accepted again');
    this.error = null;
    this.lastWriteOk = true;
  }

  /** Writes and fsyncs everything now, blocking (shutdown, before switching files). Throws on error. */
  syncNow(): void {
    if (this.pendingBytes > 0 && !this.writePending()) throw new Error(this.error ?? 'AOF write failed');
    this.fs.fsyncSync(this.fd);
    this.synced = this.size;
    this.resolveWaiters();
  }

  /**
   * After a rewrite: continue in the new (empty) incr file already opened as `fd`. Nothing can
   * fail here, so once the manifest names the new file, logging is guaranteed to go there.
   * The caller synced the current file before the manifest flipped.
   */
  adopt(fd: number, path: string): void {
    try {
      this.fs.close(this.fd);
    } catch {
      // the old file is no longer part of the log
    }
    this.fd = fd;
    this.path = path;
    this.generation++;
    this.size = 0;
    this.synced = 0;
    this.encoder.db = -1;
  }

  close(): void {
    if (this.closed) return;
    try {
      this.syncNow();
    } catch (err) {
      this.logger.error(`sluice: could not flush the AOF at close: ${describeError(err)}`);
    }
    this.closed = true;
    if (this.everysecTimer !== null) clearInterval(this.everysecTimer);
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.fs.close(this.fd);
    // Replies still waiting are answered: OK only if their bytes made it to the disk.
    for (const w of this.waiters) {
      if (w.target <= this.synced) w.resolve();
      else w.reject(new AofWriteError(this.error ?? Errors.aofWrite('closed before the write was on disk')));
    }
    this.waiters = [];
  }
}
