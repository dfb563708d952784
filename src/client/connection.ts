// The one interface the broker speaks: a command channel to Redis, Valkey, sluice server or the
// embedded engine. Replies are plain JS values as ioredis gives them under RESP2 (bulk strings
// decoded as UTF-8, integers as numbers, maps flattened), so broker code is transport-agnostic.

/** What `call` resolves to: replies as plain JS values, bulk strings decoded as UTF-8. */
export type Value = string | number | bigint | boolean | null | Value[];

/** A command's name or argument: strings are sent as UTF-8, numbers in decimal, Buffers as they are. */
export type Arg = string | Buffer | number | bigint;

/**
 * A command channel to one backend: what Producer, Worker and the rest take. Get one with
 * connect() (docs/connections.md).
 */
export interface Connection {
  /** Runs one command; an error reply rejects with an Error whose message is Redis's text. */
  call(...args: Arg[]): Promise<Value>;
  /** Sends commands pipelined (not atomically); each slot is its reply or the Error it got. */
  pipeline(commands: Arg[][]): Promise<Array<Value | Error>>;
  /**
   * Runs commands in one MULTI/EXEC. Rejects if the transaction was aborted or any command in
   * it replied with an error (the others still took effect, as in Redis).
   */
  multi(commands: Arg[][]): Promise<Value[]>;
  /** A new, independent connection to the same server, for blocking reads. */
  duplicate(): Promise<BlockingConnection>;
  /** Called after the connection was lost and established again (never on the first connect). */
  onReconnect(listener: () => void): () => void;
  /**
   * Ends the link once the commands sent are answered; a client or database you passed to
   * connect() stays open (it is yours). `{ force: true }` drops the link at once, for a server
   * that no longer answers (the commands still waiting then get no reply).
   */
  close(options?: CloseConnectionOptions): Promise<void>;
}

/** Options of Connection.close(). */
export interface CloseConnectionOptions {
  /** Drop the link now instead of waiting for the replies to what was sent (QUIT). */
  force?: boolean;
}

/** An error reply from the embedded database, as ioredis's ReplyError: the message is Redis's text. */
export class ReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyError';
  }
}

/** Raised by `multi` when EXEC returned null or a queued command failed. */
export class TransactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransactionError';
  }
}

/** A connection made for blocking reads, which another party can end early. */
export interface BlockingConnection extends Connection {
  /**
   * Ends the blocking command running on this connection, which then replies nil as at its
   * timeout (CLIENT UNBLOCK, sent on the connection it was duplicated from). The connection
   * stays usable. Where the server cannot be told which client to unblock (Redis Cluster), the
   * command ends at its own timeout instead.
   */
  interrupt(): Promise<void>;
}
