// What a command handler is given and declares: its spec (CommandSpec), the Context it runs
// with, and the InstanceView: the part of the instance (core/instance.ts) a handler may use.
// Handlers depend on these interfaces, never on the Instance class, so the command families
// and the execution core import each other in one direction only.
import type { Database, Keyspace } from '../engine/keyspace.js';
import type { Logger } from '../logger.js';
import type { ErrorReply, Reply, StreamIdReply } from '../resp/reply.js';
import type { RequestArgs } from '../resp/request-args.js';
import type { ClientState } from './client-state.js';
import type { Config } from './config.js';
import type { BuffersHeld } from './core/buffers-held.js';
import type { ClientPause } from './core/client-pause.js';
import type { InfoRegistry } from './core/info.js';
import type { EffectFanout, Propagated, PropagatedArg } from './core/effects.js';
import type { DatasetControl, Persistence, SnapshotControl } from './core/persistence.js';
import type { ReplicationControl, ReplicationView } from './core/replication.js';
import type { ConfigFileControl } from './config-rewrite.js';
import type { Stats } from './core/stats.js';
import type { PubSubRegistry } from './pubsub-registry.js';
import type { KeyspaceEvents } from './keyspace-events.js';
import type { Tracking } from './tracking.js';

/** Command flags as COMMAND INFO reports them (a subset of Redis's). */
export type CommandFlag =
  | 'write'
  | 'readonly'
  | 'denyoom'
  | 'admin'
  | 'pubsub'
  | 'noscript'
  | 'blocking'
  | 'loading'
  | 'stale'
  | 'skip_monitor'
  | 'skip_slowlog'
  | 'fast'
  | 'no_auth'
  | 'may_replicate'
  | 'no_multi'
  | 'no_async_loading'
  | 'allow_busy'
  | 'no_mandatory_keys'
  | 'movablekeys';

/** The slow log as SLOWLOG reads it (commands/slowlog.ts's `SlowLog`). */
export interface SlowLogView {
  readonly length: number;
  /** The newest `count` entries, newest first. */
  newest(count: number): Array<{ id: number; time: number; duration: number; argv: Buffer[]; peer: string; name: string }>;
  reset(): void;
}

/** The latency monitor as LATENCY reads it (commands/latency.ts's `LatencyMonitor`). */
export interface LatencyView {
  latest(): Reply;
  history(event: string): Reply;
  graph(event: string): Reply;
  doctor(): Reply;
  /** The events reset (all of them for null). */
  reset(event: string | null): number;
}

export interface CommandSpec {
  /** Lower-case name; for a subcommand, just the subcommand ("create" under "xgroup"). */
  name: string;
  /** Redis arity: N means exactly N arguments including the name, -N means at least N. */
  arity: number;
  flags: CommandFlag[];
  /** Key positions as COMMAND reports them (0 when the command takes no keys). */
  firstKey: number;
  lastKey: number;
  step: number;
  /** Key positions for commands whose keys COMMAND GETKEYS must compute (XREAD STREAMS ...). */
  keys?: (argv: Buffer[]) => number[];
  /** ACL categories without the '@', e.g. ['write', 'stream', 'fast']. */
  categories?: string[];
  /** COMMAND INFO's tips, as Redis's command JSON gives them lower-cased ("nondeterministic_output"). */
  tips?: string[];
  /** Shown by COMMAND DOCS. */
  summary?: string;
  since?: string;
  group?: string;
  /** A container command (XGROUP, XINFO, CLIENT, CONFIG ...) dispatches on argv[1]. */
  subcommands?: CommandSpec[];
  /**
   * Not called for containers. May throw CommandError for an error reply. Either `handler`,
   * which takes the request as Buffers, or `run`, which reads it in place (see RequestArgs).
   */
  handler?: (ctx: Context, argv: Buffer[]) => Reply | Promise<Reply>;
  /**
   * The request read in place, for hot commands (RequestArgs). `args` itself is reused for the
   * connection's next request: what the handler keeps must be Buffers or strings taken from it
   * (buffer(i), toArgv(), key(i)). The commands that have one never block.
   */
  run?: (ctx: Context, args: RequestArgs) => Reply;
  /**
   * For scripts (EVAL, EVALSHA, FCALL), Redis's getCommandFlags: whether this call may write as
   * the script's shebang or the function's flags declare it, null when they declare nothing
   * (the spec's flags then hold). A CLIENT PAUSE WRITE lets a no-writes script through.
   */
  declaredWrites?: (instance: InstanceView, argv: Buffer[]) => boolean | null;
}

/** The command table as handlers read it (COMMAND, COMMAND INFO, COMMAND DOCS). */
export interface CommandCatalog {
  all(): CommandSpec[];
  get(name: string): CommandSpec | undefined;
  readonly size: number;
}

/** A command line resolved against the table (its spec and "name" or "container|sub"). */
export interface ResolvedCommand {
  readonly spec: CommandSpec;
  readonly fullName: string;
  /** Its spec's flags, read per call where a script calls it. */
  readonly write: boolean;
  readonly noScript: boolean;
  readonly denyOom: boolean;
}

/** What handlers do with the blocked clients: park one (Context.block), or wake a flushed db's. */
export interface BlockingView {
  block(
    client: ClientState,
    db: number,
    keys: string[],
    timeoutMs: number,
    retry: (ctx: Context, readyKey: string) => Reply | undefined,
    onTimeout: Reply,
  ): Promise<Reply>;
  /** FLUSHDB/FLUSHALL/SWAPDB: blocked readers of the database (null: all) re-check their keys. */
  dbFlushed(db: number | null): void;
}

/** maxmemory-policy's eviction (eviction.ts) as the OOM check, CONFIG and INFO use it. */
export interface EvictionView {
  /** performEvictions: under the limit, still over but continuing later, or unable to free more. */
  perform(): 'ok' | 'running' | 'fail';
  /** INFO stats: ms spent over maxmemory in all, and in the current stretch. */
  exceededTime(): { total: number; current: number };
  /** CONFIG RESETSTAT. */
  resetStats(): void;
}

/**
 * The instance as a handler sees it: the data, the settings, the statistics, the registries of
 * clients, subscribers and monitors, and the hooks other layers install (persistence, dataset
 * control, snapshots, replication). core/instance.ts's Instance implements it.
 */
/** The script other clients see running past busy-reply-threshold (see InstanceView.busyScript). */
export interface BusyScript {
  /** EVAL/EVALSHA (true) or FCALL: which KILL stops it, which BUSY text the others get. */
  readonly evalMode: boolean;
  /** SHUTDOWN NOSAVE: stop it at its next check, its effects dropped (the process is going away). */
  abandon(): void;
}

export interface InstanceView {
  readonly keyspace: Keyspace;
  readonly config: Config;
  readonly stats: Stats;
  readonly clients: Map<number, ClientState>;
  readonly startedAt: number;
  readonly info: InfoRegistry;
  readonly logger: Logger;
  readonly table: CommandCatalog;
  readonly pubsub: PubSubRegistry;
  /** Keyspace notifications (keyspace-events.ts); handlers reach it through Context.notify. */
  readonly keyspaceEvents: KeyspaceEvents;
  readonly buffersHeld: BuffersHeld;
  /** Key eviction past maxmemory (eviction.ts). */
  readonly eviction: EvictionView;
  readonly monitors: Set<ClientState>;
  /** SLOWLOG's entries (commands/slowlog.ts). */
  readonly slowlog: SlowLogView;
  /** The latency monitor: LATENCY's events (commands/latency.ts). */
  readonly latency: LatencyView;
  readonly blocked: BlockingView;
  /** CLIENT PAUSE / UNPAUSE and FAILOVER pause clients here (core/client-pause.ts). */
  readonly pause: ClientPause;
  /** Where command effects go (the AOF, the replication stream): see core/effects.ts. */
  readonly effects: EffectFanout;
  /** The AOF, when one is on. */
  readonly persistence: Persistence | null;
  datasetControl: DatasetControl | null;
  /** dump.rdb SAVE/BGSAVE and its INFO status; null where no data directory is set. */
  snapshots: SnapshotControl | null;
  /** This instance's replication role, ids and offsets (INFO replication, ROLE). */
  readonly replication: ReplicationView;
  /** SYNC/PSYNC, REPLCONF and WAIT go here; null where nothing installed replication (the embedded engine). */
  replicationControl: ReplicationControl | null;
  /** The config file the server started with (CONFIG REWRITE, INFO's config_file); null without one. */
  configFile: ConfigFileControl | null;
  activeExpireEnabled: boolean;
  dirty: number;
  lastSaveTime: number;
  usedMemoryPeak: number;
  shutdownHandler: ((opts: { save: boolean | null }) => Promise<string | null>) | null;
  /**
   * A script past busy-reply-threshold (Redis's SCRIPT_TIMEDOUT): other clients get BUSY but for
   * the allow_busy commands. Null otherwise.
   */
  busyScript: BusyScript | null;
  /**
   * Installed by the transport: answers what the other clients sent, while a script runs past
   * busy-reply-threshold (Redis's processEventsWhileBlocked). Null where nobody else can send
   * anything (the embedded engine): there such a script is stopped instead.
   */
  serveWhileBusy: (() => void) | null;
  blockedClientCount(): number;
  resolve(argv: Buffer[]): ResolvedCommand | ErrorReply;
  /** resolve() of a request read in place, without building its argv when the table finds it from the request. */
  resolveArgs(args: RequestArgs): ResolvedCommand | ErrorReply;
  /** EXEC: runs the client's queued commands atomically. */
  exec(client: ClientState): Reply;
  /**
   * Runs a command a script called (redis.call), as `client` (the scripts' own client), after
   * the scripting layer's checks: it never blocks, and its effects are added to `batch`, which
   * the script propagates as a whole (commands/lua/).
   */
  callFromScript(client: ClientState, resolved: ResolvedCommand, args: RequestArgs, batch: Propagated[]): Reply;
  /** Redis's !checkGoodReplicasStatus(): min-replicas-to-write is set and fewer replicas are good. */
  tooFewReplicasToWrite(): boolean;
  /**
   * Propagates the effects of a command that ended after it returned (a script that yielded
   * past busy-reply-threshold) as one batch, then serves the clients its writes unblock.
   */
  propagateLate(items: Propagated[]): void;
  watch(client: ClientState, db: number, key: string): void;
  unwatchAll(client: ClientState): void;
  touchAllWatched(db: number | null): void;
  /** MONITOR's line for a command (EVAL, EVALSHA and FCALL send theirs before they run). */
  feedMonitors(client: ClientState, fullName: string, argv: Buffer[]): void;
  /** Before SWAPDB a b: each WATCHed key of either database that exists in either is touched. */
  touchSwappedWatched(a: number, b: number): void;
  /** FLUSHDB/FLUSHALL (Redis's signalFlushedDb): WATCHed keys touched, tracking clients told every key changed. */
  signalFlushedDb(db: number | null): void;
  /** CLIENT TRACKING's table and invalidation messages (commands/tracking.ts). */
  readonly tracking: Tracking;
}

/** What a handler sees while it runs. */
export interface Context {
  readonly instance: InstanceView;
  readonly client: ClientState;
  /** The client's selected database. */
  readonly db: Database;
  /**
   * True when the command must not block: inside MULTI/EXEC or while replaying the AOF.
   * Blocking commands then behave as if their timeout had already expired.
   */
  readonly noBlock: boolean;
  /**
   * Marks a key as changed: wakes blocked readers and WATCHers and counts one change
   * towards propagation (the AOF logs the command when anything changed).
   */
  modified(key: string, db?: number): void;
  /**
   * A keyspace event (Redis's notifyKeyspaceEvent): `type` is its class (NOTIFY_LIST ...,
   * keyspace-events.ts), `event` Redis's name for it; `db` defaults to the command's database.
   */
  notify(type: number, event: string, key: string, db?: number): void;
  /** Counts changes without a key (FLUSHALL ...). */
  addDirty(n: number): void;
  /**
   * Replaces what is logged for this command by explicit deterministic forms (XADD with its
   * id, XCLAIM for claims ...). May be called several times; each call adds one command.
   * `replicationOnly`: for replicas, not for the AOF (PUBLISH).
   */
  propagate(argv: PropagatedArg[], replicationOnly?: boolean): void;
  /**
   * As propagate() of the request's own arguments, argument `at` replaced by `id` (XADD's `*`
   * by the id it made): a log copies the request's bytes when they are RESP's own encoding.
   */
  propagateRequest(args: RequestArgs, at?: number, id?: StreamIdReply | null): void;
  /**
   * False when nothing logs effects (no persistence): a hot handler may then skip building
   * its propagated form (XADD's argv copy with the formatted id).
   */
  readonly propagating: boolean;
  /** Logs nothing for this command even if it changed data. */
  preventPropagation(): void;
  /** Propagates these commands (each in its own database) in this command's place: a script's effects. */
  propagateAll(items: readonly Propagated[]): void;
  /**
   * Parks the client until `retry` returns a reply (it is called again whenever one of the
   * keys is modified, in the order clients blocked, with the key that became ready, as
   * Redis serves a list client from that key) or until the timeout (0 = forever),
   * when `onTimeout` is replied. `retry` runs as a command of its own: it gets a fresh
   * Context, so what it changes is propagated.
   */
  block(
    keys: string[],
    timeoutMs: number,
    retry: (ctx: Context, readyKey: string) => Reply | undefined,
    onTimeout: Reply,
  ): Promise<Reply>;
}

export type CommandHandler = NonNullable<CommandSpec['handler']>;

/** Convenience for declaring a spec with defaults. */
export function command(
  name: string,
  arity: number,
  flags: CommandFlag[],
  keys: { first: number; last: number; step: number } | null,
  handler: CommandHandler,
  extra: Partial<CommandSpec> = {},
): CommandSpec {
  return {
    name,
    arity,
    flags,
    firstKey: keys?.first ?? 0,
    lastKey: keys?.last ?? 0,
    step: keys?.step ?? 0,
    handler,
    ...extra,
  };
}

/** command() for a handler that reads its request in place (CommandSpec.run). */
export function inPlaceCommand(
  name: string,
  arity: number,
  flags: CommandFlag[],
  keys: { first: number; last: number; step: number } | null,
  run: NonNullable<CommandSpec['run']>,
  extra: Partial<CommandSpec> = {},
): CommandSpec {
  return { name, arity, flags, firstKey: keys?.first ?? 0, lastKey: keys?.last ?? 0, step: keys?.step ?? 0, run, ...extra };
}

/** Declares a container command whose subcommands carry the handlers. */
export function container(
  name: string,
  arity: number,
  subcommands: CommandSpec[],
  extra: Partial<CommandSpec> = {},
): CommandSpec {
  return { name, arity, flags: [], firstKey: 0, lastKey: 0, step: 0, subcommands, ...extra };
}
