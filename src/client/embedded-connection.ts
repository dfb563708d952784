// Connection adapter over the in-process engine: every Connection is its own logical client
// (EmbeddedSession), so a blocking XREADGROUP on one never stalls calls made on another.
import type { EmbeddedDatabase, EmbeddedSession } from './embedded.js';
import { type Arg, type BlockingConnection, TransactionError, type Value } from './connection.js';

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
    // A session of its own: calls made meanwhile on this connection must not be queued into it.
    const tx = this.db.session();
    try {
      await tx.call('MULTI');
      for (const c of commands) await tx.call(...c);
      const result = await tx.call('EXEC');
      if (result === null) throw new TransactionError('EXEC aborted');
      return result as Value[];
    } catch (err) {
      throw err instanceof TransactionError ? err : new TransactionError((err as Error).message);
    } finally {
      tx.close();
    }
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
    if (this.ownsDb) await this.db.close();
  }
}
