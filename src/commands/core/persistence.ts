// The interfaces between the execution core and the persistence layer (src/persist/ implements
// them: aof.ts, dataset-control.ts, rdb-snapshot.ts), so the commands layer never imports it.
import type { EffectSink, Propagated } from './effects.js';

/** What startRewrite did: began a rewrite, or found one already running. */
export type RewriteStart = 'started' | 'in-progress';

/** The AOF: an effect sink (one atomic batch per top-level command or EXEC) that also answers for the disk. */
export interface Persistence extends EffectSink {
  // --- the log: what every write goes through ---
  /** The effects of one top-level command (or one EXEC), as an atomic batch. */
  append(batch: readonly Propagated[]): void;
  /**
   * A promise when replies must wait for the disk, else null. Under everysec/no the bytes of
   * one event-loop turn are written together at its end (the server's clients share one
   * write); `writeNow` writes them at once instead (the embedded client, one caller at a time).
   */
  barrier(writeNow?: boolean): Promise<void> | null;
  /** Set while the disk refuses writes: write commands are then rejected with it. */
  writeError(): string | null;
  /** Logged bytes not yet written to the file (INFO mem_aof_buffer, used_memory). */
  readonly bufferedBytes: number;

  // --- rewrites: SAVE, BGSAVE, BGREWRITEAOF ---
  readonly rewriting: boolean;
  /** True while the running rewrite was started by SAVE/BGSAVE. */
  readonly saving: boolean;
  startRewrite(): RewriteStart;
  /** Starts another rewrite once the current one completes. */
  schedule(): void;
  /** Resolves when the next rewrite to complete does (rejects if it fails). */
  waitForSave(): Promise<void>;
  /** A whole rewrite now, blocking; throws Error('ERR ...') on failure. */
  rewriteNow(): void;
}

/**
 * What DEBUG and CONFIG SET appendonly ask of the persistence layer (src/persist/dataset-control.ts
 * implements it; `sluice server` installs one). Each method throws Error('ERR ...') on failure.
 */
export interface DatasetControl {
  /** CONFIG SET appendonly yes|no: starts the AOF (a rewrite of the current data) or stops it. */
  setAppendOnly(on: boolean): void;
  /** DEBUG RELOAD: serialise the whole dataset and load it back in place. */
  reload(options: { flush: boolean; save: boolean; merge: boolean }): void;
  /** DEBUG LOADAOF: flush the AOF, empty the dataset, load it back from the files on disk. */
  loadAof(): Promise<void>;
}

/** What INFO persistence reports about RDB saves and loads. */
export interface RdbStatus {
  saves: number;
  lastSaveOk: boolean;
  lastSaveSeconds: number;
  lastLoadKeysLoaded: number;
  lastLoadKeysExpired: number;
}

/**
 * dump.rdb in the data directory, for a server with a directory and no AOF (`sluice server --dir
 * D --appendonly no`): SAVE/BGSAVE write it, a start loads it (src/persist/rdb-snapshot.ts).
 */
export interface SnapshotControl {
  readonly status: RdbStatus;
  /** SAVE: the dataset to DIR/dbfilename through a temp file, fsync and rename; throws Error('ERR') on failure. */
  saveFile(): void;
}
