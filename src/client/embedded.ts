// The in-process database: the same command table as the server, no sockets. The classes'
// declared types show no engine internals (they are the package's API): sluice's own code
// reaches the Instance through commands/core/instance-handles.ts and sessions' clients and raw
// replies through embedded-internals.ts.
import { allCommands } from '../commands/index.js';
import type { ClientState } from '../commands/client-state.js';
import { Instance } from '../commands/core/instance.js';
import { attachInstance, instanceBehind } from '../commands/core/instance-handles.js';
import type { Logger } from '../logger.js';
import type { Arg, Value } from './connection.js';
import { executeValue } from './embedded-execute.js';
import { bindSession, sessionClient } from './embedded-internals.js';

export { ReplyError, type Arg, type Value } from './connection.js';

export interface OpenOptions {
  /** Directory for the append-only file; without it the database lives in memory only. */
  dir?: string;
  /** When the append-only file is flushed to disk: 'always' (before each reply), 'everysec' (default) or 'no'. */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** CONFIG parameters at start, by name, as CONFIG SET takes them. */
  config?: Record<string, string>;
  /** Where notices go (AOF loading, internal errors); silent by default. */
  logger?: Logger;
  /** The clock the engine reads, in ms since the epoch (Date.now by default): tests pass their own. */
  now?: () => number;
}

/**
 * One logical connection to an embedded database, with its own selected db, MULTI and blocking.
 * Made by `db.session()`; `connect(db)` gives one wrapped as a Connection.
 */
export class EmbeddedSession {
  readonly db: EmbeddedDatabase;
  readonly #instance: Instance;
  readonly #client: ClientState;

  constructor(db: EmbeddedDatabase) {
    this.db = db;
    this.#instance = instanceBehind(db);
    this.#client = this.#instance.newClient('embedded');
    bindSession(this, { db, instance: this.#instance, client: this.#client });
  }

  /** This session's client id, as CLIENT ID answers it: what CLIENT UNBLOCK names from another session. */
  get id(): number {
    return this.#client.id;
  }

  /** Runs a command; an error reply rejects with ReplyError. */
  call(...args: Arg[]): Promise<Value> {
    if (this.db.closed) return Promise.reject(new Error('database is closed'));
    return executeValue(this.#instance, this.#client, args);
  }

  /** Ends the session: a blocking command it is running ends, its WATCHes and MULTI are dropped. */
  close(): void {
    this.#instance.removeClient(this.#client);
  }
}

/**
 * The engine in this process. Get one with `open()` (which also loads and keeps the append-only
 * file when given `dir`); the constructor makes an in-memory one.
 */
export class EmbeddedDatabase {
  readonly #instance: Instance;
  readonly #main: EmbeddedSession;
  readonly #closers: Array<() => Promise<void> | void> = [];
  #closed = false;

  constructor(options: Omit<OpenOptions, 'dir' | 'appendfsync'> = {}) {
    this.#instance = new Instance(allCommands, options);
    attachInstance(this, this.#instance);
    this.#instance.startActiveExpiry();
    this.#main = new EmbeddedSession(this);
    bindSession(this, { db: this, instance: this.#instance, client: sessionClient(this.#main) });
  }

  /** Whether close() was called: calls then reject. */
  get closed(): boolean {
    return this.#closed;
  }

  /** A new logical connection (for a blocking read beside other calls, or a MULTI of its own). */
  session(): EmbeddedSession {
    return new EmbeddedSession(this);
  }

  /** Runs a command on the database's own session; an error reply rejects with ReplyError. */
  call(...args: Arg[]): Promise<Value> {
    return this.#main.call(...args);
  }

  /** Registers cleanup run by close() (the persistence layer flushes its file here). */
  onClose(fn: () => Promise<void> | void): void {
    this.#closers.push(fn);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#instance.stop();
    for (const fn of this.#closers.reverse()) await fn();
  }
}

/**
 * Opens an embedded database. With `dir`, the append-only file there is loaded and kept. Its
 * `call` speaks Redis's commands; `connect(db)` gives the Connection the broker takes.
 */
export async function open(options: OpenOptions = {}): Promise<EmbeddedDatabase> {
  const { dir, appendfsync, ...engine } = options;
  const db = new EmbeddedDatabase(engine);
  if (dir !== undefined) {
    // The same control as `sluice server`: the AOF, CONFIG SET appendonly, DEBUG RELOAD/LOADAOF.
    const { ServerDatasetControl } = await import('../persist/dataset-control.js');
    const instance = instanceBehind(db);
    const control = new ServerDatasetControl(instance, { owner: 'embedded open()' });
    await control.openAtStart(dir, appendfsync ?? 'everysec');
    instance.datasetControl = control;
    db.onClose(() => control.close());
  }
  return db;
}
