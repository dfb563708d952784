// Connection adapter over the in-process engine: every Connection is its own logical client
// (EmbeddedSession), so a blocking XREADGROUP on one never stalls calls made on another.
import type { EmbeddedDatabase, EmbeddedSession } from './embedded.js';
import { type Arg, type BlockingConnection, TransactionError, type Value } from './connection.js';
import { transactionOn } from './embedded-internals.js';

/**
 * A Connection to an embedded database: what `connect(db)` and `connect('embedded:')` return.
 * Construct it yourself only to have close() close the database too (`ownsDb`).
 */
export class EmbeddedConnection implements BlockingConnection {
  readonly db: EmbeddedDatabase;
  private readonly session: EmbeddedSession;
  /** Whether close() also closes the database (true when the adapter opened it). */
  private readonly ownsDb: boolean;
  private closed = false;
  /** A transaction's session kept for the next one (its MULTI and WATCHes ended with EXEC). */
  private spareTx: EmbeddedSession | null = null;

  constructor(db: EmbeddedDatabase, ownsDb = false) {
    this.db = db;
    this.ownsDb = ownsDb;
    this.session = db.session();
  }

  call(...args: Arg[]): Promise<Value> {
    if (this.closed) return Promise.reject(new Error('Connection is closed.'));
    return this.session.call(...args);
  }

  async pipeline(commands: Arg[][]): Promise<Array<Value | Error>> {
    return Promise.all(commands.map((c) => this.call(...c).catch((err: Error) => err)));
  }

  async multi(commands: Arg[][]): Promise<Value[]> {
    if (this.closed) throw new TransactionError('Connection is closed.');
    // A session of its own: calls made meanwhile on this connection must not be queued into it.
    const tx = this.spareTx ?? this.db.session();
    this.spareTx = null;
    let result: Value[] | null;
    try {
      result = await transactionOn(tx, commands);
    } catch (err) {
      tx.close(); // its MULTI may still be open
      throw new TransactionError((err as Error).message);
    }
    if (this.spareTx === null && !this.closed) this.spareTx = tx;
    else tx.close();
    if (result === null) throw new TransactionError('EXEC aborted');
    return result;
  }

  async duplicate(): Promise<BlockingConnection> {
    return new EmbeddedConnection(this.db, false);
  }

  async interrupt(): Promise<void> {
    if (this.closed) return;
    // The id is the session's own, read without a command (the session is blocked).
    const id = this.session.id;
    const other = this.db.session();
    try {
      await other.call('CLIENT', 'UNBLOCK', id);
    } finally {
      other.close();
    }
  }

  onReconnect(_listener: () => void): () => void {
    return () => {}; // an in-process engine never disconnects
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session.close(); // unblocks a pending blocking read on this session
    this.spareTx?.close();
    this.spareTx = null;
    if (this.ownsDb) await this.db.close();
  }
}
