// The one interface between the execution core and the persistence layer (src/persist/aof.ts
// implements it), so the commands layer never imports the persistence layer.
import { Buffer } from 'node:buffer';
import { StreamIdReply } from '../../resp/reply.js';

/**
 * An argument of a logged command. A stream id may stay a StreamIdReply (XADD's generated id):
 * the log encodes it from its numbers, as replies do, without a string per command.
 */
export type PropagatedArg = Buffer | string | StreamIdReply;

/** One command to log, in the database it applies to. */
export interface Propagated {
  db: number;
  argv: PropagatedArg[];
}

/** A logged argument's bytes (what the log holds for it). */
export function propagatedBytes(arg: PropagatedArg): Buffer {
  if (arg instanceof StreamIdReply) return Buffer.from(arg.toString(), 'latin1');
  return typeof arg === 'string' ? Buffer.from(arg, 'utf8') : arg;
}

/** What startRewrite did: began a rewrite, or found one already running. */
export type RewriteStart = 'started' | 'in-progress';

export interface Persistence {
  // --- the log: what every write goes through ---
  /** The effects of one top-level command (or one EXEC), as an atomic batch. */
  append(batch: Propagated[]): void;
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
