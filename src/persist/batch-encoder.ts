// Command effects as RESP commands: what the AOF appends and what a primary streams to its
// replicas (src/replication/backlog.ts), in the same form, as Redis writes both.
import { Encoder } from '../resp/encoder.js';
import { writeXadds } from '../commands/stream/entries-reply.js';
import type { EntryRefs } from '../engine/entry-refs.js';
import { type Propagated, WireCommand } from '../commands/core/effects.js';

const MULTI = ['MULTI'];
const EXEC = ['EXEC'];

/** The AOF writer keeps an arena up to this size for the next turn's batches. */
const KEEP_ARENA = 1 << 20;

/**
 * Encodes batches as Redis's feedAppendOnlyFile and replicationFeedSlaves: SELECT when the db
 * changes, MULTI/EXEC around batches (the AOF and the replication stream share this form). Commands are written straight into one RESP arena (the reply encoder's, as a command
 * is an array of bulk strings) and stay there until take() hands them out as one Buffer:
 * encoding each command into a Buffer of its own was a quarter of the server's CPU for
 * pipelined XADDs under appendonly. Once that Buffer is written and dropped, reuse() lets the
 * next batches overwrite it.
 */
export class BatchEncoder {
  /** The db the log is in after what was encoded so far; -1 forces a SELECT. */
  db = -1;
  private readonly resp = new Encoder(2);

  /** Appends a batch (MULTI/EXEC around more than one command); returns its length in bytes. */
  encode(batch: readonly Propagated[]): number {
    const resp = this.resp;
    const before = resp.pending;
    const wrap = batch.length > 1;
    for (let i = 0; i < batch.length; i++) {
      const item = batch[i]!;
      this.select(item.db);
      if (wrap && i === 0) resp.command(MULTI);
      if (item instanceof WireCommand) item.encodeInto(resp);
      else resp.command(item.argv);
    }
    if (wrap) resp.command(EXEC);
    return resp.pending - before;
  }

  /** Appends one command outside any MULTI (the rewrite's form). */
  add(db: number, argv: Array<Buffer | string>): void {
    this.select(db);
    this.resp.command(argv);
  }

  /** Appends a command that belongs to no database (the rewrite's FUNCTION LOADs), without a SELECT. */
  addGlobal(argv: Array<Buffer | string>): void {
    this.resp.command(argv);
  }

  /** As add() for `XADD key id fields...` of every entry, written from the node bytes. */
  addEntries(db: number, key: Buffer, entries: EntryRefs): void {
    this.select(db);
    writeXadds(this.resp, key, entries);
  }

  private select(db: number): void {
    if (db === this.db) return;
    this.resp.command(['SELECT', String(db)]);
    this.db = db;
  }

  /** Bytes appended since the last take(). */
  get pending(): number {
    return this.resp.pending;
  }

  /** Pushes what was appended since the last take() onto `out`, as one Buffer. */
  take(out: Buffer[]): void {
    const bytes = this.resp.take();
    if (bytes.length > 0) out.push(bytes);
  }

  /** What was appended since the last take(), as one Buffer (a view of the arena). */
  takeBytes(): Buffer {
    return this.resp.take();
  }

  /** Every Buffer take() handed out was written and dropped: start the arena over. */
  reuse(maxKeep = KEEP_ARENA): void {
    this.resp.reuse(maxKeep);
  }
}
