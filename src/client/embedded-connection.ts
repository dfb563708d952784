// Connection adapter over the in-process engine: every Connection is its own logical client
// (EmbeddedSession), so a blocking XREADGROUP on one never stalls calls made on another.
import { type Arg, type EmbeddedDatabase, type EmbeddedSession, type Value } from './embedded.js';
import { type BlockingConnection, TransactionError } from './connection.js';

export class EmbeddedConnection implements BlockingConnection {
  private readonly session: EmbeddedSession;
  private closed = false;

  constructor(
    readonly db: EmbeddedDatabase,
    /** Whether close() also closes the database (true when the adapter opened it). */
    private readonly ownsDb = false,
  ) {
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
    const id = this.session.client.id;
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
