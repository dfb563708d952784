// One sluice database instance: the keyspace, the command table, connected clients, config,
// statistics, blocked clients, WATCHes and the propagation of effects to the persistence
// layer. The TCP server and the embedded client are both thin transports over execute().
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { Keyspace, type LfuTracking } from '../../engine/keyspace.js';
import { CommandError, ErrorReply, QUEUED, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { QueuedRequest, RequestArgs } from '../../resp/request-args.js';
import { ClientState } from '../client-state.js';
import { Config, isLfuPolicy } from '../config.js';
import { maxmemoryRejection } from '../maxmemory.js';
import { Eviction } from '../eviction.js';
import { redisMemoryModel } from '../used-memory.js';
import { BuffersHeld } from './buffers-held.js';
import { ClientPause } from './client-pause.js';
import { EffectFanout } from './effects.js';
import { type ReplicationControl, ReplicationState } from './replication.js';
import { monitorLine, monitorRejection, redactedArgv } from '../monitor.js';
import { SUBSCRIBED_MODE_COMMANDS } from '../pubsub.js';
import { SlowLog } from '../slowlog.js';
import { LatencyMonitor, recordCallLatency } from '../latency.js';
import { PubSubRegistry } from '../pubsub-registry.js';
import { KeyspaceEvents, NOTIFY_EXPIRED, NOTIFY_NEW, parseEventFlags } from '../keyspace-events.js';
import { CommandTable } from '../table.js';
import { type KeyedSpec, Tracking } from '../tracking.js';
import type { BusyScript, CommandSpec, InstanceView } from '../types.js';
import { BlockedClients, type Waiter } from './blocking.js';
import { CommandContext } from './context.js';
import { InfoRegistry } from './info.js';
import { registerBuiltinSections } from './info-sections.js';
import type { Propagated } from './effects.js';
import type { DatasetControl, Persistence, SnapshotControl } from './persistence.js';
import type { ConfigFileControl } from '../config-rewrite.js';
import { resolveCommand } from './resolve.js';
import type { Resolved } from './resolved.js';
import { type CommandStats, Stats } from './stats.js';
import { WatchRegistry } from './watch.js';
import { type Logger, silentLogger } from '../../logger.js';
import { protectedRefusal } from './protected.js';
import { AclUsers, aclOf } from '../acl/acl-users.js';
import type { AclUser } from '../acl/user.js';

/** Read once: the getter is not free, and the origin never changes. */
const TIME_ORIGIN = performance.timeOrigin;

/** What a served blocked client runs as, for tracking (nothing it reads is remembered). */
const SERVED: KeyedSpec = { flags: [], firstKey: 0, lastKey: 0, step: 0 };

/** execCommand's reasons for a queued command the ACL rules no longer allow (by ACL_DENIED_*). */
const EXEC_DENIALS: Record<number, string> = {
  1: 'no permission to execute the command or subcommand',
  2: 'no permission to touch the specified keys',
  4: 'no permission to access one of the channels used as arguments',
};

/** Commands that run even inside MULTI instead of being queued. */
const NOT_QUEUED = new Set(['exec', 'discard', 'multi', 'watch', 'quit', 'reset']);

export interface InstanceOptions {
  now?: () => number;
  config?: Record<string, string>;
  /** Where notices go (AOF loading, internal errors); silent by default. */
  logger?: Logger;
}

export class Instance implements InstanceView {
  readonly keyspace: Keyspace;
  readonly table = new CommandTable();
  readonly config: Config;
  /** SLOWLOG's entries; fed from call() while slowlog-log-slower-than is not negative. */
  readonly slowlog: SlowLog;
  /** LATENCY's events and histograms (commands/latency.ts). */
  readonly latency: LatencyMonitor;
  readonly stats = new Stats();
  readonly clients = new Map<number, ClientState>();
  readonly startedAt = Date.now();
  /** INFO's sections; other layers register theirs here (persistence replaces its own). */
  readonly info = new InfoRegistry();
  /** The user's logger; the persistence layer and the server log through it too. */
  readonly logger: Logger;
  /** Every sink of command effects: the AOF (while on), the replication backlog and replicas. */
  readonly effects = new EffectFanout();
  #persistence: Persistence | null = null;
  /** DEBUG RELOAD/LOADAOF and CONFIG SET appendonly; null where nothing installed one. */
  datasetControl: DatasetControl | null = null;
  /** SAVE/BGSAVE to dump.rdb (persist/rdb-snapshot.ts); null where no data directory is set. */
  snapshots: SnapshotControl | null = null;
  /** Role, replication ids and offsets; src/replication/ moves them. */
  readonly replication = new ReplicationState();
  /** Installed by the TCP server (src/replication/primary.ts); null in the embedded engine. */
  replicationControl: ReplicationControl | null = null;
  /** CONFIG REWRITE's file (persist/config-file.ts), installed by serve() when started with one. */
  configFile: ConfigFileControl | null = null;
  /** DEBUG SET-ACTIVE-EXPIRE: when false, keys expire only when accessed. */
  activeExpireEnabled = true;
  /** Changes since the last save/rewrite, as Redis's server.dirty. */
  dirty = 0;
  lastSaveTime = Math.floor(Date.now() / 1000);
  /** Set by the transport: closes listeners, flushes, exits (SHUTDOWN). */
  shutdownHandler: ((opts: { save: boolean | null }) => Promise<string | null>) | null = null;
  busyScript: BusyScript | null = null;
  serveWhileBusy: (() => void) | null = null;

  /** Pub/Sub channels and patterns and their subscribers. */
  readonly pubsub = new PubSubRegistry();
  /** Keyspace notifications (notify-keyspace-events), published on `pubsub`. */
  readonly keyspaceEvents: KeyspaceEvents;
  /** Clients whose buffers count in used_memory now (registered by the transport). */
  readonly buffersHeld = new BuffersHeld();
  /** used_memory_peak: the highest used_memory computed. */
  usedMemoryPeak = 0;
  /** Clients in MONITOR mode. */
  readonly monitors = new Set<ClientState>();
  /** Clients parked by blocking commands (Context.block). */
  readonly blocked = new BlockedClients();
  /** CLIENT PAUSE and FAILOVER's pause of writes: paused commands wait (see execute). */
  readonly pause: ClientPause;
  /** CLIENT TRACKING: the keys clients cache and their invalidation (commands/tracking.ts). */
  readonly tracking: Tracking;
  private readonly watches = new WatchRegistry();
  /** ACL users, the permission check and ACL LOG (commands/acl/). */
  private readonly acl: AclUsers;
  private expiryTimer: NodeJS.Timeout | null = null;
  /** performance.now() when the running batch began, -1 outside a batch (see beginBatch). */
  private batchStarted = -1;
  /**
   * The counters of the batch's commands, one per command, to share its time out: slots
   * [0, batchCount), overwritten batch after batch (`length = 0` would free the array's store,
   * and the next push allocate it anew).
   */
  private readonly batchCommands: CommandStats[] = [];
  private batchCount = 0;

  constructor(commands: CommandSpec[], options: InstanceOptions = {}) {
    this.keyspace = new Keyspace(options.now, redisMemoryModel);
    this.config = new Config(options.config);
    this.slowlog = new SlowLog(this.config);
    this.latency = new LatencyMonitor(this.config);
    this.maxmemory = this.config.derived((c) => c.getNumber('maxmemory'));
    this.eviction = new Eviction(this);
    this.lfuTracking = this.config.derived((c) =>
      isLfuPolicy(c.get('maxmemory-policy'))
        ? { decayTimeMinutes: c.getNumber('lfu-decay-time'), logFactor: c.getNumber('lfu-log-factor') }
        : null,
    );
    this.minReplicasToWrite = this.config.derived((c) => c.getNumber('min-replicas-to-write'));
    this.logger = options.logger ?? silentLogger;
    this.pause = new ClientPause(this.keyspace.now, (paused) => (this.keyspace.expiryPaused = paused));
    this.table.register(commands);
    registerBuiltinSections(this);
    this.acl = aclOf(this);
    this.keyspace.onKeyModified((db, key) => this.onKeyModified(db, key));
    this.tracking = new Tracking(this.clients, this.config.derived((c) => c.getNumber('tracking-table-max-keys')));
    this.keyspace.onKeyExpired(this.tracking.onExpired);
    this.keyspaceEvents = new KeyspaceEvents(
      this.config.derived((c) => Math.max(0, parseEventFlags(c.get('notify-keyspace-events')))),
      this.pubsub,
    );
    this.keyspace.newKeyListener = (db, key) => this.keyspaceEvents.notify(NOTIFY_NEW, 'new', key, db);
    this.keyspace.onKeyExpired((db, key) => {
      this.stats.expiredKeys++;
      this.keyspaceEvents.notify(NOTIFY_EXPIRED, 'expired', key, db);
      if (this.effects.active) this.effects.append([{ db, argv: ['DEL', Buffer.from(key, 'latin1')] }]);
    });
  }

  /** Runs active expiry every 100 ms (Redis's hz 10). Unref'd so it never keeps a process alive. */
  startActiveExpiry(intervalMs = 100): void {
    if (this.expiryTimer !== null) return;
    this.expiryTimer = setInterval(() => {
      // Nothing expires under a script that yielded past busy-reply-threshold: it is one command.
      if (this.activeExpireEnabled && this.busyScript === null) {
        const started = performance.now();
        for (const db of this.keyspace.dbs) if (db.expires.size > 0) db.activeExpireCycle();
        this.latency.addIfNeeded('expire-cycle', performance.now() - started);
      }
      // As serverCron: a CONFIG SET of tracking-table-max-keys applies on an idle server too.
      if (this.tracking.clientCount > 0) this.tracking.limitUsedSlots();
      this.serveReadyKeys();
    }, intervalMs);
    this.expiryTimer.unref();
  }

  stop(): void {
    if (this.expiryTimer !== null) clearInterval(this.expiryTimer);
    this.expiryTimer = null;
    this.eviction.stop();
    for (const client of [...this.clients.values()]) client.blocked?.finish(undefined);
  }

  /** The AOF while it is on. Setting it also adds it to (or takes it from) the effect sinks. */
  get persistence(): Persistence | null {
    return this.#persistence;
  }

  set persistence(p: Persistence | null) {
    if (this.#persistence !== null) this.effects.remove(this.#persistence);
    this.#persistence = p;
    if (p !== null) this.effects.add(p);
  }

  // --- clients -------------------------------------------------------------------------------

  newClient(kind: ClientState['kind'], addr = '', laddr = '', fd = -1): ClientState {
    // The AOF's client and a replica's link to its primary run anything (Redis's NULL user).
    const superuser = kind === 'aof' || kind === 'primary';
    const client = new ClientState(kind, superuser || !this.acl.authRequired(), addr, laddr, fd);
    if (!superuser) client.user = this.acl.defaultUser;
    this.clients.set(client.id, client);
    return client;
  }

  /** Forgets a client: unblocks it and drops its WATCHes. */
  removeClient(client: ClientState): void {
    client.blocked?.finish(undefined);
    this.unwatchAll(client);
    this.tracking.disable(client);
    this.pubsub.forget(client);
    this.monitors.delete(client);
    this.buffersHeld.released(client);
    this.clients.delete(client.id);
    const gone = client.onGone;
    client.onGone = null;
    gone?.();
  }

  blockedClientCount(): number {
    let n = 0;
    for (const c of this.clients.values()) if (c.blocked !== null) n++;
    return n;
  }

  // --- dispatch ------------------------------------------------------------------------------

  /**
   * Executes one command for a client, as Redis's processCommand. `base` is the table's entry
   * for argv[0] when the caller already looked it up.
   */
  execute(client: ClientState, argv: Buffer[], base = this.table.lookup(argv[0]!)): Reply | Promise<Reply> {
    this.followAccessTracking();
    // Redis's processCommand keeps the tracking table within tracking-table-max-keys first.
    if (this.tracking.clientCount > 0) this.tracking.limitUsedSlots();
    const resolved = resolveCommand(this.table, argv, base);
    if (resolved instanceof ErrorReply) {
      if (client.multi !== null) client.multiAborted = true;
      const reply = base?.name === 'exec' ? this.abortExec(client, resolved.message) : resolved;
      this.stats.countError(reply.message);
      return reply;
    }
    const { spec, fullName } = resolved;
    const refused = protectedRefusal(this, client, fullName);
    if (refused !== null) {
      if (client.multi !== null) client.multiAborted = true;
      return this.reject(fullName, refused);
    }
    if (!client.authenticated && !resolved.noAuth && this.acl.authRequired()) return this.rejectCommand(client, fullName, Errors.noAuth);
    // processCommand's ACLCheckAllPerm: only clients of a restricted user pay for it.
    if (client.user !== null && !client.user.unrestricted) {
      const user = client.user as AclUser;
      const verdict = this.acl.check(user, fullName, argv);
      if (verdict !== null) {
        this.acl.logVerdict(client, user, verdict, client.multi !== null ? 'multi' : 'toplevel', fullName, argv, fullName);
        return this.rejectCommand(client, fullName, AclUsers.noPermText(verdict, fullName));
      }
    }
    const oom = maxmemoryRejection(this, client, spec, fullName); if (oom !== null) return oom;
    // processCommand's is_write_command: EXEC is one when a queued command writes (the state may
    // have changed since they were queued).
    const write = resolved.write || (fullName === 'exec' && this.queues(client, (queued) => queued.write));
    if (this.replication.role === 'slave' && !client.mustObey) {
      // Likewise is_denystale_command: EXEC is refused on a stale replica for a queued command that would be.
      const stale = spec.flags.includes('stale') && !(fullName === 'exec' && this.queues(client, (queued) => !queued.spec.flags.includes('stale')));
      const refusal = this.replicaRefusal(write, stale);
      if (refusal !== null) return this.rejectCommand(client, fullName, refusal);
    }
    if (write && this.minReplicasToWrite() > 0 && !client.mustObey && this.tooFewReplicas()) {
      return this.rejectCommand(client, fullName, Errors.noReplicas);
    }
    if (client.resp === 2 && client.subscriptions.active && !SUBSCRIBED_MODE_COMMANDS.has(fullName)) {
      const message = Errors.subscribedMode(fullName);
      return this.reject(fullName, fullName === 'exec' ? this.abortExec(client, message).message : message);
    }
    const asReplica = monitorRejection(client, spec, fullName);
    if (asReplica !== null) return this.reject(fullName, asReplica);
    // A script past busy-reply-threshold: only the allow_busy commands run meanwhile (processCommand).
    if (this.busyScript !== null && !client.fromScript && !spec.flags.includes('allow_busy')) {
      return this.rejectCommand(client, fullName, this.busyScript.evalMode ? Errors.busyEval : Errors.busyFunction);
    }
    // Paused clients wait (replicas and the primary's stream never do); the command is then
    // processed again from the start, as Redis's processCommand after a BLOCKED_POSTPONE.
    if (this.pause.paused && !client.isReplica && !client.mustObey && this.pause.holds(this.mayReplicate(client, resolved, argv))) {
      return this.pause.postpone(client, () => this.execute(client, argv, base));
    }
    if (client.multi !== null && !NOT_QUEUED.has(fullName)) {
      if (resolved.noMulti) {
        client.multiAborted = true;
        return this.reject(fullName, Errors.notInTransaction);
      }
      client.multi.push(QueuedRequest.of(argv));
      return QUEUED;
    }
    if (this.persistence !== null && resolved.write) {
      const err = this.persistence.writeError();
      if (err !== null) return this.reject(fullName, err);
    }
    if (resolved.write && this.replication.role === 'slave' && !client.mustObey) {
      // A write on a writable replica removes the expired keys it meets (EXPIRE_FORCE_DELETE_EXPIRED).
      this.keyspace.localWriteOnReplica = true;
      try {
        return this.call(client, resolved, RequestArgs.of(argv), false);
      } finally {
        this.keyspace.localWriteOnReplica = false;
      }
    }
    return this.call(client, resolved, RequestArgs.of(argv), false);
  }

  /**
   * execute() for a request read in place (a connection's parser). A command with a `run`
   * handler, sent by a client in the plain state (authenticated, outside MULTI, not a monitor or
   * a RESP2 subscriber) while nothing refuses writes, runs without building its argv: the
   * checks execute() makes would all pass. Everything else goes through execute().
   */
  executeArgs(client: ClientState, args: RequestArgs): Reply | Promise<Reply> {
    const resolved = this.table.lookupArgs(args);
    this.followAccessTracking();
    if (this.tracking.clientCount > 0) this.tracking.limitUsedSlots();
    if (
      resolved === undefined ||
      resolved.run === undefined ||
      !resolved.arityAllows(args.length) ||
      !client.authenticated ||
      (client.user !== null && !client.user.unrestricted) ||
      client.multi !== null ||
      client.monitor ||
      (client.resp === 2 && client.subscriptions.active) ||
      (this.persistence !== null && resolved.write && this.persistence.writeError() !== null) ||
      this.maxmemory() > 0 ||
      this.minReplicasToWrite() > 0 ||
      (this.replication.role === 'slave' && !client.mustObey) ||
      this.pause.paused ||
      this.busyScript !== null
    ) {
      if (client.multi !== null && this.queuesInPlace(client, resolved, args)) {
        client.multi.push(args.keep());
        return QUEUED;
      }
      return this.execute(client, args.toArgv(), resolved);
    }
    return this.call(client, resolved, args, false);
  }

  /**
   * Inside MULTI, a command that execute() would queue without a word: a plain command (no
   * subcommands) of the right arity, from a client in the plain state (the other conditions of
   * executeArgs' fast path). Queued as a snapshot of its request, not an argv of Buffer views:
   * a worker's MULTIs of record writes made one view per argument (5 KB a job on sluice server).
   */
  private queuesInPlace(client: ClientState, resolved: Resolved | undefined, args: RequestArgs): boolean {
    return (
      resolved !== undefined &&
      resolved.spec.subcommands === undefined &&
      resolved.arityAllows(args.length) &&
      !resolved.noMulti &&
      !NOT_QUEUED.has(resolved.fullName) &&
      resolved.fullName !== 'debug' &&
      client.authenticated &&
      (client.user === null || client.user.unrestricted) &&
      !client.monitor &&
      !(client.resp === 2 && client.subscriptions.active) &&
      this.maxmemory() === 0 &&
      this.minReplicasToWrite() === 0 &&
      !(this.replication.role === 'slave' && !client.mustObey) &&
      !this.pause.paused &&
      this.busyScript === null
    );
  }

  /** Each command of an EXEC in turn (RequestArgs.load of the queued request): one object for them all. */
  private readonly queuedArgs = new RequestArgs();

  /** The maxmemory setting, read per command by executeArgs. */
  private readonly maxmemory: () => number;
  /** The LFU parameters while the maxmemory-policy is an LFU one, else null (read per command). */
  private readonly lfuTracking: () => LfuTracking | null;
  readonly eviction: Eviction;

  /** Lookups count recency or frequency as the maxmemory-policy asks (a CONFIG SET may have changed it). */
  private followAccessTracking(): void {
    const tracking = this.lfuTracking();
    if (tracking !== this.keyspace.lfuTracking) this.keyspace.trackFrequency(tracking);
  }
  /** min-replicas-to-write, read per command by executeArgs. */
  private readonly minReplicasToWrite: () => number;

  /** A replica's refusals, as processCommand: writes while read-only, most commands while its link is down and stale data is not served. */
  private replicaRefusal(write: boolean, allowedStale: boolean): string | null {
    if (!this.replication.linkUp && !allowedStale && this.config.get('replica-serve-stale-data') === 'no') return Errors.masterDown;
    if (write && this.config.get('replica-read-only') === 'yes') return Errors.readOnlyReplica;
    return null;
  }

  /** The client's transaction holds a command for which `test` holds. */
  private queues(client: ClientState, test: (queued: Resolved, queuedArgv: Buffer[]) => boolean): boolean {
    return (client.multi ?? []).some((kept) => {
      const queued = this.resolveArgs(new RequestArgs().load(kept));
      return !(queued instanceof ErrorReply) && test(queued, kept.toArgv());
    });
  }

  /** resolve() of a request read in place (a queued command, a script's redis.call), without its argv when the table finds it from the request. */
  resolveArgs(args: RequestArgs): Resolved | ErrorReply {
    const base = this.table.lookupArgs(args);
    if (base !== undefined && base.spec.subcommands === undefined && base.arityAllows(args.length)) return base;
    return this.resolve(args.toArgv());
  }

  /** A command that writes or may replicate; EXEC is one when a queued command is. */
  private mayReplicate(client: ClientState, resolved: Resolved, argv: Buffer[]): boolean {
    if (resolved.fullName === 'exec' && client.multi !== null) {
      return this.queues(client, (queued, queuedArgv) => this.mayReplicate(client, queued, queuedArgv));
    }
    const declared = resolved.spec.declaredWrites?.(this, argv) ?? null;
    return declared ?? resolved.mayReplicate;
  }

  /** Redis's !checkGoodReplicasStatus(): min-replicas-to-write is set and fewer replicas are good. */
  tooFewReplicasToWrite(): boolean {
    return this.minReplicasToWrite() > 0 && this.tooFewReplicas();
  }

  /** As Redis's processCommand with min-replicas-to-write and min-replicas-max-lag both set. */
  private tooFewReplicas(): boolean {
    if (this.config.getNumber('min-replicas-max-lag') <= 0 || this.replication.role !== 'master') return false;
    return (this.replicationControl?.goodReplicas() ?? 0) < this.minReplicasToWrite();
  }

  /** Finds a command's spec, checking existence and arity. */
  resolve(argv: Buffer[]): Resolved | ErrorReply {
    return resolveCommand(this.table, argv);
  }

  /** Redis's rejectCommand: the transaction is flagged, and a refused EXEC discards it (execCommandAbort). */
  private rejectCommand(client: ClientState, fullName: string, message: string): ErrorReply {
    if (client.multi !== null) client.multiAborted = true;
    return this.reject(fullName, fullName === 'exec' ? this.abortExec(client, message).message : message);
  }

  private reject(fullName: string, message: string): ErrorReply {
    this.stats.forCommand(fullName).rejectedCalls++;
    this.stats.countError(message);
    return new ErrorReply(message);
  }

  // --- the clock -----------------------------------------------------------------------------

  /**
   * Runs a batch of commands (a connection's pipelined requests of one read) against one reading
   * of the clock, as Redis's commands read a cached time: the clock is read three times per
   * batch instead of three or four times per command (each reading costs Node about 50 ns). Commands
   * see the batch's start time; each is charged an equal share of the batch's time in INFO
   * commandstats. Batches do not nest: only a call that returned true ends its batch.
   */
  beginBatch(): boolean {
    if (this.batchStarted >= 0) return false;
    this.batchStarted = performance.now();
    this.keyspace.freezeClock();
    this.effects.hold();
    return true;
  }

  endBatch(): void {
    if (this.batchStarted < 0) return;
    const commands = this.batchCommands;
    const count = this.batchCount;
    if (count > 0) {
      const share = ((performance.now() - this.batchStarted) * 1000) / count;
      for (let i = 0; i < count; i++) {
        commands[i]!.usec += share;
        recordCallLatency(commands[i]!, share);
      }
      this.batchCount = 0;
    }
    this.batchStarted = -1;
    this.keyspace.thawClock();
    this.effects.release();
  }

  /**
   * Runs a resolved command. `noBlock` is set inside EXEC and during AOF replay. The effects
   * are propagated as one batch unless `batch` is given (EXEC collects its commands' effects).
   */
  call(
    client: ClientState,
    resolved: Resolved,
    args: RequestArgs,
    noBlock: boolean,
    batch?: Propagated[],
  ): Reply | Promise<Reply> {
    const ctx = new CommandContext(this, client, noBlock || client.mustObey);
    const stats = (resolved.stats ??= this.stats.forCommand(resolved.fullName));
    // Inside a batch the clock was read once for all its commands (see beginBatch). A script's
    // commands time themselves: the batch's time is its requests' (the EVAL's includes them).
    const batched = this.batchStarted >= 0 && !client.fromScript;
    const started = batched ? this.batchStarted : performance.now();
    client.lastInteraction = TIME_ORIGIN + started;
    let reply: Reply | Promise<Reply>;
    const tracking = this.tracking.clientCount > 0;
    const outermost = tracking && this.tracking.enter(client, resolved.spec, () => args.toArgv());
    // Redis sets c->lastcmd before the call: what a script's ACL LOG entry shows its caller running.
    // (Set again after it: EXEC's queued commands have run as this client meanwhile.)
    client.lastCommand = resolved.fullName;
    try {
      reply = resolved.run !== undefined ? resolved.run(ctx, args) : resolved.handler!(ctx, args.toArgv());
    } catch (err) {
      reply = this.errorReply(err);
    }
    if (tracking) {
      if (resolved.readonly) this.tracking.afterCommand(client, resolved.spec, resolved.fullName, () => args.toArgv());
      this.tracking.leave(outermost, client, resolved.fullName);
    }
    stats.calls++;
    let ended = -1;
    if (batched) {
      if (this.batchCount < this.batchCommands.length) this.batchCommands[this.batchCount] = stats;
      else this.batchCommands.push(stats);
      this.batchCount++;
    } else {
      ended = performance.now();
      stats.usec += (ended - started) * 1000;
      recordCallLatency(stats, (ended - started) * 1000);
    }
    // Redis's call(): the command's time as a "command" or "fast-command" latency sample.
    if (this.latency.threshold() > 0 && client.kind !== 'aof') {
      const now = batched ? performance.now() : ended;
      this.latency.addIfNeeded(resolved.fast ? 'fast-command' : 'command', now - started);
    }
    if (this.slowlog.threshold() >= 0 && client.kind !== 'aof') {
      this.slowlog.afterCall(client, resolved.fullName, args, batched ? this.batchStarted : -1, started, ended, reply);
    }
    this.stats.commandsProcessed++;
    client.lastCommand = resolved.fullName;
    if (reply instanceof ErrorReply) {
      stats.failedCalls++;
      if (!reply.counted) this.stats.countError(reply.message);
    }
    this.finishContext(ctx, args, batch);
    if (this.monitors.size > 0 && client.kind !== 'aof' && resolved.shownToMonitors) this.feedMonitors(client, resolved.fullName, args.toArgv());
    if (reply instanceof Promise) {
      return reply.catch((err: unknown) => this.errorReply(err));
    }
    return reply;
  }

  /**
   * Sends monitors the line for a command that just ran (after it ran, as Redis's call()); the
   * script commands, which skip that, call it first themselves, so the commands a script runs
   * appear after it.
   */
  feedMonitors(client: ClientState, fullName: string, argv: Buffer[]): void {
    if (this.monitors.size === 0) return;
    const line = monitorLine(client, redactedArgv(fullName, argv));
    // A monitor sees its own command after its reply, as Redis appends the line after it.
    for (const monitor of this.monitors) monitor.push?.(line, monitor === client);
  }

  private errorReply(err: unknown): ErrorReply {
    if (err instanceof CommandError) return new ErrorReply(err.reply);
    // A bug must not take the server down: report it to the client and on stderr.
    this.logger.error('sluice: internal error while executing a command:', err);
    return new ErrorReply(Errors.internalWith((err as Error)?.message ?? String(err)));
  }

  /** Counts a command's changes and logs (or batches) what it propagates. */
  private finishContext(ctx: CommandContext, args: RequestArgs | null, batch?: Propagated[]): void {
    if (ctx.dirtyCount > 0) this.dirty += ctx.dirtyCount;
    if (batch !== undefined) {
      // Collected for effects.append() at the end of the EXEC or script: only when a sink listens.
      if (this.effects.active) batch.push(...ctx.propagated(args));
      return;
    }
    // Without an effect sink nothing is propagated: no argv is built for it.
    if (this.effects.active) {
      const items = ctx.propagated(args);
      if (items.length > 0) {
        this.effects.append(items);
        ctx.client.replOffset = this.replication.offset;
      }
    }
    this.serveReadyKeys();
  }

  // --- MULTI / EXEC / WATCH --------------------------------------------------------------------

  /** EXEC: runs the queued commands atomically and propagates them as one batch. */
  exec(client: ClientState): Reply {
    const queue = client.multi ?? [];
    client.multi = null;
    const replies: Reply[] = [];
    const batch: Propagated[] = [];
    const args = this.queuedArgs;
    for (const kept of queue) {
      const resolved = this.resolveArgs(args.load(kept));
      if (resolved instanceof ErrorReply) {
        replies.push(resolved);
        continue;
      }
      // The rules may have changed since the command was queued: checked again, as execCommand.
      if (client.user !== null && !client.user.unrestricted) {
        const user = client.user as AclUser;
        const argv = args.toArgv();
        const verdict = this.acl.check(user, resolved.fullName, argv);
        if (verdict !== null) {
          this.acl.logVerdict(client, user, verdict, 'multi', resolved.fullName, argv, 'exec');
          const message = Errors.noPermExec(EXEC_DENIALS[verdict.result] ?? 'no permission');
          this.stats.countError(message);
          replies.push(new ErrorReply(message));
          continue;
        }
      }
      const reply = this.call(client, resolved, args, true, batch);
      // With noBlock set no handler returns a pending promise; guard against one that does.
      replies.push(reply instanceof Promise ? new ErrorReply(Errors.blockedInMulti) : reply);
    }
    args.clear();
    if (batch.length > 0 && this.effects.active) {
      this.effects.append(batch);
      client.replOffset = this.replication.offset;
    }
    this.serveReadyKeys();
    return replies;
  }

  callFromScript(client: ClientState, resolved: Resolved, args: RequestArgs, batch: Propagated[]): Reply {
    const reply = this.call(client, resolved, args, true, batch);
    // With noBlock set no handler returns a pending promise; guard against one that does.
    return reply instanceof Promise ? new ErrorReply(Errors.blockedInMulti) : reply;
  }

  propagateLate(items: Propagated[]): void {
    if (items.length > 0 && this.effects.active) this.effects.append(items);
    this.serveReadyKeys();
  }

  /** A rejected EXEC discards the transaction, as Redis's execCommandAbort. */
  private abortExec(client: ClientState, message: string): ErrorReply {
    client.multi = null;
    client.multiAborted = false;
    this.unwatchAll(client);
    const reason = message.startsWith('ERR ') ? message.slice(4) : message;
    return new ErrorReply(Errors.execAbortBecause(reason));
  }

  watch(client: ClientState, db: number, key: string): void {
    this.watches.watch(client, `${db}:${key}`);
  }

  unwatchAll(client: ClientState): void {
    this.watches.unwatchAll(client);
  }

  /** FLUSHDB/FLUSHALL: every WATCHed key of the database that existed is touched. */
  touchAllWatched(db: number | null): void {
    this.watches.touchAll(db, (keyDb, key) => this.keyspace.db(keyDb).values.has(key));
  }

  /**
   * Before SWAPDB a b, as Redis's touchAllWatchedKeysInDb both ways: a watched key changes if it
   * exists in its database (it goes away) or in the other one (it appears).
   */
  touchSwappedWatched(a: number, b: number): void {
    const existsInEither = (_db: number, key: string): boolean => this.keyspace.db(a).values.has(key) || this.keyspace.db(b).values.has(key);
    this.watches.touchAll(a, existsInEither);
    this.watches.touchAll(b, existsInEither);
  }

  /** Redis's signalFlushedDb, before a database (null: all) is emptied: WATCHes, then tracking clients. */
  signalFlushedDb(db: number | null): void {
    this.touchAllWatched(db);
    this.tracking.flushed();
  }

  private onKeyModified(db: number, key: string): void {
    if (this.tracking.active) this.tracking.keyModified(key);
    // Most writes happen with nobody watching or blocked: skip building the "db:key" id.
    if (this.watches.size === 0 && this.blocked.size === 0) return;
    const id = `${db}:${key}`;
    this.watches.touch(id);
    this.blocked.keyModified(id);
  }

  // --- blocking ------------------------------------------------------------------------------

  /** Serves blocked clients whose keys changed; each retry runs and propagates as a command. */
  serveReadyKeys(): void {
    // Not while a script is running (an allow_busy command ran meanwhile): it would see half its writes.
    if (this.blocked.hasReadyKeys && this.busyScript === null) this.blocked.serveReady(this.serveWaiter);
  }

  /** Runs a blocked client's retry as a command of its own. */
  private readonly serveWaiter = (waiter: Waiter, readyKey: string): Reply | undefined => {
    const ctx = new CommandContext(this, waiter.client, true, waiter.db);
    let reply: Reply | undefined;
    // The served client is the current one (Redis sets current_client to it): its invalidations follow its reply.
    const tracked = this.tracking.clientCount > 0 && this.tracking.enter(waiter.client, SERVED, () => []);
    try {
      reply = waiter.retry(ctx, readyKey);
    } catch (err) {
      reply = this.errorReply(err);
    }
    if (tracked) this.tracking.leave(true, waiter.client, '');
    const batch: Propagated[] = [];
    this.finishContext(ctx, null, batch);
    if (batch.length > 0 && this.effects.active) this.effects.append(batch);
    // An error ending a block (NOGROUP, UNBLOCKED) fails the blocked command, as in Redis.
    if (reply instanceof ErrorReply) {
      this.stats.countError(reply.message);
      this.stats.forCommand(waiter.client.lastCommand).failedCalls++; // the command it blocked in
    }
    return reply;
  };
}
