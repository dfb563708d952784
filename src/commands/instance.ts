// One sluice database instance: the keyspace, the command table, connected clients, config,
// statistics, blocked clients and the propagation of effects to the AOF. The TCP server and
// the embedded client are both thin transports over Instance.execute.
import { performance } from 'node:perf_hooks';
import { Keyspace } from '../engine/keyspace.js';
import { CommandError, ErrorReply, Errors, QUEUED, type Reply } from '../resp/reply.js';
import { lower } from './args.js';
import { ClientState } from './client-state.js';
import { Config } from './config.js';
import { CommandTable } from './table.js';
import type { CommandSpec, Context } from './types.js';

/** One command to log, in the database it applies to. */
export interface Propagated {
  db: number;
  argv: Array<Buffer | string>;
}

/**
 * The persistence layer's hook. `append` receives the effects of one top-level command (or one
 * EXEC) as an atomic batch. `barrier` returns a promise when replies must wait for the disk
 * (appendfsync always), or null. `writeError` is set while the disk refuses writes.
 */
export interface Persistence {
  append(batch: Propagated[]): void;
  barrier(): Promise<void> | null;
  writeError(): string | null;
}

export interface CommandStats {
  calls: number;
  usec: number;
  rejectedCalls: number;
  failedCalls: number;
}

export class Stats {
  commandsProcessed = 0;
  connectionsReceived = 0;
  rejectedConnections = 0;
  expiredKeys = 0;
  keyspaceHits = 0;
  keyspaceMisses = 0;
  totalErrorReplies = 0;
  netInputBytes = 0;
  netOutputBytes = 0;
  readonly perCommand = new Map<string, CommandStats>();
  readonly errorCodes = new Map<string, number>();

  forCommand(fullName: string): CommandStats {
    let s = this.perCommand.get(fullName);
    if (s === undefined) {
      s = { calls: 0, usec: 0, rejectedCalls: 0, failedCalls: 0 };
      this.perCommand.set(fullName, s);
    }
    return s;
  }

  countError(message: string): void {
    this.totalErrorReplies++;
    const space = message.indexOf(' ');
    const code = space < 0 ? message : message.slice(0, space);
    this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1);
  }
}

interface Waiter {
  client: ClientState;
  db: number;
  keys: string[];
  retry: (ctx: Context, readyKey: string) => Reply | undefined;
  resolve: (reply: Reply) => void;
  timer: NodeJS.Timeout | null;
  done: boolean;
}

/** Read once: the getter is not free, and the origin never changes. */
const TIME_ORIGIN = performance.timeOrigin;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Commands that run even inside MULTI instead of being queued. */
const NOT_QUEUED = new Set(['exec', 'discard', 'multi', 'watch', 'quit', 'reset']);

export interface InstanceOptions {
  now?: () => number;
  config?: Record<string, string>;
}

export class Instance {
  readonly keyspace: Keyspace;
  readonly table = new CommandTable();
  readonly config: Config;
  readonly stats = new Stats();
  readonly clients = new Map<number, ClientState>();
  readonly startedAt = Date.now();
  persistence: Persistence | null = null;
  /** Changes since the last save/rewrite, as Redis's server.dirty. */
  dirty = 0;
  lastSaveTime = Math.floor(Date.now() / 1000);
  /** Set by the transport: closes listeners, flushes, exits (SHUTDOWN). */
  shutdownHandler: ((opts: { save: boolean | null }) => Promise<string | null>) | null = null;
  /**
   * INFO sections supplied by other layers (the persistence engineer sets 'persistence'):
   * section name (lower case) to the section's "field:value" lines, without the header.
   */
  readonly infoProviders = new Map<string, () => string[]>();

  private readonly waitersByKey = new Map<string, Waiter[]>();
  private readonly readyKeys = new Set<string>();
  private readonly watchers = new Map<string, Set<ClientState>>();
  private servingReady = false;
  private expiryTimer: NodeJS.Timeout | null = null;

  constructor(commands: CommandSpec[], options: InstanceOptions = {}) {
    this.keyspace = new Keyspace(options.now);
    this.config = new Config(options.config);
    this.table.register(commands);
    this.keyspace.onKeyModified((db, key) => this.onKeyModified(db, key));
    this.keyspace.onKeyExpired((db, key) => {
      this.stats.expiredKeys++;
      this.persistence?.append([{ db, argv: ['DEL', Buffer.from(key, 'latin1')] }]);
    });
  }

  /** Runs active expiry every 100 ms (Redis's hz 10). Unref'd so it never keeps a process alive. */
  startActiveExpiry(intervalMs = 100): void {
    if (this.expiryTimer !== null) return;
    this.expiryTimer = setInterval(() => {
      for (const db of this.keyspace.dbs) if (db.expires.size > 0) db.activeExpireCycle();
      this.serveReadyKeys();
    }, intervalMs);
    this.expiryTimer.unref();
  }

  stop(): void {
    if (this.expiryTimer !== null) clearInterval(this.expiryTimer);
    this.expiryTimer = null;
    for (const client of [...this.clients.values()]) client.blocked?.finish(undefined);
  }

  newClient(kind: ClientState['kind'], addr = '', laddr = '', fd = -1): ClientState {
    const client = new ClientState(kind, this.config.get('requirepass') === '', addr, laddr, fd);
    this.clients.set(client.id, client);
    return client;
  }

  /** Forgets a client: unblocks it and drops its WATCHes. */
  removeClient(client: ClientState): void {
    client.blocked?.finish(undefined);
    this.unwatchAll(client);
    this.clients.delete(client.id);
  }

  /** Executes one command for a client, as Redis's processCommand. */
  execute(client: ClientState, argv: Buffer[]): Reply | Promise<Reply> {
    const resolved = this.resolve(argv);
    if (resolved instanceof ErrorReply) {
      if (client.multi !== null) client.multiAborted = true;
      const reply = this.table.lookup(argv[0]!)?.name === 'exec' ? this.abortExec(client, resolved.message) : resolved;
      this.stats.countError(reply.message);
      return reply;
    }
    const { spec, fullName } = resolved;
    if (!client.authenticated && !spec.flags.includes('no_auth')) {
      if (client.multi !== null) client.multiAborted = true;
      if (fullName === 'exec') return this.reject(fullName, this.abortExec(client, Errors.noAuth).message);
      return this.reject(fullName, Errors.noAuth);
    }
    if (client.multi !== null && !NOT_QUEUED.has(fullName)) {
      if (spec.flags.includes('no_multi')) {
        client.multiAborted = true;
        return this.reject(fullName, 'ERR Command not allowed inside a transaction');
      }
      client.multi.push(argv);
      return QUEUED;
    }
    if (spec.flags.includes('write') && this.persistence !== null) {
      const err = this.persistence.writeError();
      if (err !== null) return this.reject(fullName, err);
    }
    return this.call(client, spec, fullName, argv, false);
  }

  /** A rejected EXEC discards the transaction, as Redis's execCommandAbort. */
  private abortExec(client: ClientState, message: string): ErrorReply {
    client.multi = null;
    client.multiAborted = false;
    this.unwatchAll(client);
    const reason = message.startsWith('ERR ') ? message.slice(4) : message;
    return new ErrorReply(`EXECABORT Transaction discarded because of: ${reason}`);
  }

  /** Finds a command's spec, checking existence and arity. */
  resolve(argv: Buffer[]): { spec: CommandSpec; fullName: string } | ErrorReply {
    let spec = this.table.lookup(argv[0]!);
    if (spec === undefined) {
      let args = '';
      for (let i = 1; i < argv.length && args.length < 128; i++) {
        args += `'${argv[i]!.toString('utf8').slice(0, 128 - args.length)}' `;
      }
      return new ErrorReply(Errors.unknownCommand(argv[0]!.toString('utf8').slice(0, 128), args));
    }
    const name = spec.name;
    let fullName = name;
    if (spec.subcommands !== undefined && argv.length >= 2) {
      const subName = lower(argv[1]!);
      const sub = spec.subcommands.find((s) => s.name === subName);
      if (sub === undefined) {
        return new ErrorReply(
          Errors.unknownSubcommand(argv[1]!.toString('utf8').slice(0, 128), name.toUpperCase()),
        );
      }
      spec = sub;
      fullName = `${name}|${subName}`;
    }
    const arity = spec.arity;
    if ((arity > 0 && argv.length !== arity) || argv.length < -arity) {
      return new ErrorReply(Errors.wrongArity(fullName));
    }
    return { spec, fullName };
  }

  private reject(fullName: string, message: string): ErrorReply {
    this.stats.forCommand(fullName).rejectedCalls++;
    this.stats.countError(message);
    return new ErrorReply(message);
  }

  /**
   * Runs a resolved command. `noBlock` is set inside EXEC and during AOF replay. The effects
   * are propagated as one batch unless `batch` is given (EXEC collects its commands' effects).
   */
  call(
    client: ClientState,
    spec: CommandSpec,
    fullName: string,
    argv: Buffer[],
    noBlock: boolean,
    batch?: Propagated[],
  ): Reply | Promise<Reply> {
    const ctx = new CommandContext(this, client, noBlock || client.kind === 'aof');
    // performance.now() is the cheapest clock in Node; one reading also dates the interaction.
    const started = performance.now();
    client.lastInteraction = TIME_ORIGIN + started;
    let reply: Reply | Promise<Reply>;
    try {
      reply = spec.handler!(ctx, argv);
    } catch (err) {
      reply = this.errorReply(err);
    }
    const stats = this.stats.forCommand(fullName);
    stats.calls++;
    stats.usec += (performance.now() - started) * 1000;
    this.stats.commandsProcessed++;
    client.lastCommand = fullName;
    if (reply instanceof ErrorReply) {
      stats.failedCalls++;
      this.stats.countError(reply.message);
    }
    this.finishContext(ctx, argv, batch);
    if (reply instanceof Promise) {
      return reply.catch((err: unknown) => this.errorReply(err));
    }
    return reply;
  }

  private errorReply(err: unknown): ErrorReply {
    if (err instanceof CommandError) return new ErrorReply(err.reply);
    // A bug must not take the server down: report it to the client and on stderr.
    console.error('sluice: internal error while executing a command:', err);
    return new ErrorReply(`ERR internal error: ${(err as Error)?.message ?? String(err)}`);
  }

  /**
   * Propagates what a command changed: its explicit forms, else its own argv when it changed
   * anything. `argv` is null for blocked-client retries, which propagate explicitly or not at all.
   */
  private finishContext(ctx: CommandContext, argv: Buffer[] | null, batch?: Propagated[]): void {
    if (ctx.dirtyCount > 0) this.dirty += ctx.dirtyCount;
    if (!ctx.propagationPrevented) {
      let items: Propagated[] = ctx.explicit;
      if (items.length === 0 && ctx.dirtyCount > 0 && argv !== null) items = [{ db: ctx.startDb, argv }];
      if (items.length > 0) {
        if (batch !== undefined) batch.push(...items);
        else this.persistence?.append(items);
      }
    }
    if (batch === undefined) this.serveReadyKeys();
  }

  /** EXEC: runs the queued commands atomically and propagates them as one batch. */
  exec(client: ClientState): Reply {
    const queue = client.multi ?? [];
    client.multi = null;
    const replies: Reply[] = [];
    const batch: Propagated[] = [];
    for (const argv of queue) {
      const resolved = this.resolve(argv);
      if (resolved instanceof ErrorReply) {
        replies.push(resolved);
        continue;
      }
      const reply = this.call(client, resolved.spec, resolved.fullName, argv, true, batch);
      // With noBlock set no handler returns a pending promise; guard against one that does.
      replies.push(reply instanceof Promise ? new ErrorReply('ERR command blocked inside MULTI') : reply);
    }
    if (batch.length > 0) this.persistence?.append(batch);
    this.serveReadyKeys();
    return replies;
  }

  // --- WATCH -------------------------------------------------------------------------------

  watch(client: ClientState, db: number, key: string): void {
    const id = `${db}:${key}`;
    if (client.watched.has(id)) return;
    client.watched.add(id);
    let set = this.watchers.get(id);
    if (set === undefined) this.watchers.set(id, (set = new Set()));
    set.add(client);
  }

  unwatchAll(client: ClientState): void {
    for (const id of client.watched) {
      const set = this.watchers.get(id);
      set?.delete(client);
      if (set?.size === 0) this.watchers.delete(id);
    }
    client.watched.clear();
    client.dirtyCas = false;
  }

  /** FLUSHDB/FLUSHALL: every WATCHed key of the database that existed is touched. */
  touchAllWatched(db: number | null): void {
    for (const [id, clients] of this.watchers) {
      const sep = id.indexOf(':');
      const keyDb = Number(id.slice(0, sep));
      if (db !== null && keyDb !== db) continue;
      if (!this.keyspace.db(keyDb).values.has(id.slice(sep + 1))) continue;
      for (const c of clients) c.dirtyCas = true;
    }
  }

  private onKeyModified(db: number, key: string): void {
    // Most writes happen with nobody watching or blocked: skip building the "db:key" id.
    if (this.watchers.size === 0 && this.waitersByKey.size === 0) return;
    const id = `${db}:${key}`;
    const watching = this.watchers.get(id);
    if (watching !== undefined) for (const c of watching) c.dirtyCas = true;
    if (this.waitersByKey.has(id)) this.readyKeys.add(id);
  }

  // --- blocking ----------------------------------------------------------------------------

  block(
    client: ClientState,
    db: number,
    keys: string[],
    timeoutMs: number,
    retry: (ctx: Context, readyKey: string) => Reply | undefined,
    onTimeout: Reply,
  ): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      const waiter: Waiter = { client, db, keys, retry, resolve, timer: null, done: false };
      const finish = (reply: Reply | undefined): void => {
        if (waiter.done) return;
        waiter.done = true;
        if (waiter.timer !== null) clearTimeout(waiter.timer);
        for (const key of keys) {
          const id = `${db}:${key}`;
          const list = this.waitersByKey.get(id);
          if (list === undefined) continue;
          const i = list.indexOf(waiter);
          if (i >= 0) list.splice(i, 1);
          if (list.length === 0) this.waitersByKey.delete(id);
        }
        client.blocked = null;
        resolve(reply === undefined ? null : reply);
      };
      for (const key of keys) {
        const id = `${db}:${key}`;
        let list = this.waitersByKey.get(id);
        if (list === undefined) this.waitersByKey.set(id, (list = []));
        list.push(waiter);
      }
      if (timeoutMs > 0) {
        // Node's timers overflow past 2^31-1 ms (they would fire at once): re-arm in slices.
        const deadline = Date.now() + timeoutMs;
        const arm = (): void => {
          const left = deadline - Date.now();
          if (left <= 0) return finish(onTimeout);
          waiter.timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
        };
        arm();
      }
      client.blocked = { db, keys, finish, timeoutReply: onTimeout };
    });
  }

  /** Serves blocked clients whose keys changed, FIFO per key, as handleClientsBlockedOnKeys. */
  serveReadyKeys(): void {
    if (this.servingReady) return;
    this.servingReady = true;
    try {
      while (this.readyKeys.size > 0) {
        const [id] = this.readyKeys;
        this.readyKeys.delete(id!);
        const list = this.waitersByKey.get(id!);
        if (list === undefined) continue;
        for (const waiter of [...list]) {
          if (waiter.done) continue;
          const ctx = new CommandContext(this, waiter.client, true, waiter.db);
          let reply: Reply | undefined;
          try {
            reply = waiter.retry(ctx, id!.slice(id!.indexOf(':') + 1));
          } catch (err) {
            reply = this.errorReply(err);
          }
          const batch: Propagated[] = [];
          this.finishContext(ctx, null, batch);
          if (batch.length > 0) this.persistence?.append(batch);
          if (reply !== undefined) waiter.client.blocked?.finish(reply);
        }
      }
    } finally {
      this.servingReady = false;
    }
  }

  blockedClientCount(): number {
    let n = 0;
    for (const c of this.clients.values()) if (c.blocked !== null) n++;
    return n;
  }
}

class CommandContext implements Context {
  dirtyCount = 0;
  propagationPrevented = false;
  readonly explicit: Propagated[] = [];
  readonly startDb: number;

  constructor(
    readonly instance: Instance,
    readonly client: ClientState,
    readonly noBlock: boolean,
    dbIndex?: number,
  ) {
    this.startDb = dbIndex ?? client.db;
  }

  get db() {
    return this.instance.keyspace.db(this.startDb);
  }

  modified(key: string, db?: number): void {
    this.dirtyCount++;
    this.instance.keyspace.signalModified(db ?? this.db.index, key);
  }

  addDirty(n: number): void {
    this.dirtyCount += n;
  }

  propagate(argv: Array<Buffer | string>): void {
    this.explicit.push({ db: this.db.index, argv });
  }

  preventPropagation(): void {
    this.propagationPrevented = true;
  }

  block(
    keys: string[],
    timeoutMs: number,
    retry: (ctx: Context, readyKey: string) => Reply | undefined,
    onTimeout: Reply,
  ): Promise<Reply> {
    return this.instance.block(this.client, this.db.index, keys, timeoutMs, retry, onTimeout);
  }
}
