// The in-process database: the same command table as the server, no sockets.
import { Buffer } from 'node:buffer';
import { allCommands } from '../commands/index.js';
import type { ClientState } from '../commands/client-state.js';
import { Instance, type InstanceOptions } from '../commands/core/instance.js';
import { diskError, isWriteCommand } from '../persist/refused-write.js';
import { formatDouble } from '../resp/encoder.js';
import {
  BooleanReply,
  DirectReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  NULL_ARRAY,
  PushReply,
  Replies,
  type Reply,
  SetReply,
  SimpleString,
  StreamIdReply,
  VerbatimReply,
} from '../resp/reply.js';

/** An error reply from the database, as ioredis's ReplyError: the message is Redis's text. */
export class ReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyError';
  }
}

/** What `call` resolves to: replies as plain JS values, bulk strings decoded as UTF-8. */
export type Value = string | number | bigint | boolean | null | Value[];

export type Arg = string | Buffer | number | bigint;

export function toArgv(args: Arg[]): Buffer[] {
  return args.map((a) => (Buffer.isBuffer(a) ? a : Buffer.from(String(a), 'utf8')));
}

/** Converts a reply as ioredis does under RESP2: maps become flat arrays, errors throw. */
export function toValue(reply: Reply): Value {
  if (typeof reply === 'string' || typeof reply === 'number' || typeof reply === 'bigint') return reply;
  if (reply === null || reply === NULL_ARRAY) return null;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (Array.isArray(reply)) return reply.map(toValue);
  if (reply instanceof SimpleString) return reply.value;
  if (reply instanceof StreamIdReply) return reply.toString();
  if (reply instanceof DirectReply) return toValue(reply.toReply());
  if (reply instanceof ErrorReply) throw new ReplyError(reply.bytes ? Buffer.from(reply.message, 'latin1').toString('utf8') : reply.message);
  if (reply instanceof MapReply) return reply.entries.flatMap(([k, v]) => [toValue(k), toValue(v)]);
  if (reply instanceof SetReply || reply instanceof PushReply || reply instanceof Replies) return reply.items.map(toValue);
  // RESP2 sends a double as the bulk string Redis formats (%.17g, inf, -inf).
  if (reply instanceof DoubleReply) return formatDouble(reply.value);
  if (reply instanceof BooleanReply) return reply.value ? 1 : 0;
  if (reply instanceof VerbatimReply) return reply.text;
  throw new TypeError('unknown reply');
}

export interface OpenOptions extends InstanceOptions {
  /** Directory for the append-only file; without it the database lives in memory only. */
  dir?: string;
  appendfsync?: 'always' | 'everysec' | 'no';
}

/** One logical connection to an embedded database, with its own selected db, MULTI and blocking. */
export class EmbeddedSession {
  constructor(
    readonly db: EmbeddedDatabase,
    readonly client: ClientState,
  ) {}

  /** Runs a command and resolves to its raw reply (errors are ErrorReply values, not thrown). */
  async callRaw(...args: Arg[]): Promise<Reply> {
    if (this.db.closed) throw new Error('database is closed');
    const instance = this.db.instance;
    const argv = toArgv(args);
    const dirty = instance.dirty;
    const pending = instance.execute(this.client, argv);
    // Whether the reply depends on the disk: the command changed data (a blocked write
    // changes it later, when served).
    const logged = pending instanceof Promise ? instance.persistence !== null && isWriteCommand(instance, argv) : instance.dirty !== dirty;
    const reply = await pending;
    const barrier = instance.persistence?.barrier(true);
    if (barrier) {
      try {
        await barrier;
      } catch (err) {
        // The disk refused the bytes: a write is answered with MISCONF (see persist/README.md).
        if (logged) return new ErrorReply(diskError(err));
      }
    }
    return reply;
  }

  /** Runs a command; an error reply rejects with ReplyError. */
  async call(...args: Arg[]): Promise<Value> {
    return toValue(await this.callRaw(...args));
  }

  close(): void {
    this.db.instance.removeClient(this.client);
  }
}

export class EmbeddedDatabase {
  readonly instance: Instance;
  closed = false;
  private readonly main: EmbeddedSession;
  private readonly closers: Array<() => Promise<void> | void> = [];

  constructor(options: OpenOptions = {}) {
    this.instance = new Instance(allCommands, options);
    this.instance.startActiveExpiry();
    this.main = this.session();
  }

  /** A new logical connection (for a blocking read beside other calls, or a MULTI of its own). */
  session(): EmbeddedSession {
    return new EmbeddedSession(this, this.instance.newClient('embedded'));
  }

  call(...args: Arg[]): Promise<Value> {
    return this.main.call(...args);
  }

  callRaw(...args: Arg[]): Promise<Reply> {
    return this.main.callRaw(...args);
  }

  /** Registers cleanup run by close() (the persistence layer flushes its file here). */
  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.instance.stop();
    for (const fn of this.closers.reverse()) await fn();
  }
}

/** Opens an embedded database. With `dir`, the append-only file there is loaded and kept. */
export async function open(options: OpenOptions = {}): Promise<EmbeddedDatabase> {
  const db = new EmbeddedDatabase(options);
  if (options.dir !== undefined) {
    // The same control as `sluice server`: the AOF, CONFIG SET appendonly, DEBUG RELOAD/LOADAOF.
    const { ServerDatasetControl } = await import('../persist/dataset-control.js');
    const control = new ServerDatasetControl(db.instance, { owner: 'embedded open()' });
    await control.openAtStart(options.dir, options.appendfsync ?? 'everysec');
    db.instance.datasetControl = control;
    db.onClose(() => control.close());
  }
  return db;
}
