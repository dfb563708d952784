// A RESP server with persistence, started from code: what `sluice server` runs, for tests and
// for applications that embed the server in their own process.
import { allCommands } from '../commands/index.js';
import { Instance } from '../commands/core/instance.js';
import { attachInstance } from '../commands/core/instance-handles.js';
import { ServerDatasetControl } from '../persist/dataset-control.js';
import { RdbSnapshots } from '../persist/rdb-snapshot.js';
import { AclFile } from '../persist/acl-file.js';
import { aclOf } from '../commands/acl/acl-users.js';
import { loadUsersAtStartup } from '../commands/acl/acl-file.js';
import { ConfigFile } from '../persist/config-file.js';
import { ServerReplication } from '../replication/control.js';
import type { Logger } from '../logger.js';
import { startServer } from './server.js';

export interface ServeOptions {
  /** 0 picks a free port (see `port` on the result). Default 6379. */
  port?: number;
  /** Default 127.0.0.1. */
  bind?: string;
  /**
   * Directory of the append-only file; persistence is on when given. With `appendonly: false`
   * it holds the RDB file instead (dbfilename, loaded at start, written by SAVE/BGSAVE).
   */
  dir?: string;
  /** Default true when `dir` is given. */
  appendonly?: boolean;
  /** Default 'everysec'. */
  appendfsync?: 'always' | 'everysec' | 'no';
  requirepass?: string;
  /** Further CONFIG parameters (protected-mode, maxmemory, ...), already validated. */
  config?: Record<string, string>;
  /** Called after SHUTDOWN has closed the server (the CLI exits the process there). */
  onShutdownComplete?: () => void;
  /** Where notices go (AOF loading, client errors); silent by default, the CLI passes one writing to stderr. */
  logger?: Logger;
  /** Starts as a replica of this primary (a redis-server or another sluice server), as `replicaof` in redis.conf. */
  replicaof?: { host: string; port: number };
  /**
   * The redis.conf the server was started from (an absolute path): CONFIG REWRITE rewrites it,
   * INFO server shows it as config_file. `keptDirectives` are the directives it may hold that
   * sluice accepts without acting on them: a rewrite keeps their lines as they are.
   */
  configFile?: { path: string; keptDirectives: readonly string[] };
  /**
   * ACL users created at start, as redis.conf's `user` lines: each a name and its rules
   * (`['alice', 'on', '>pw', '~a:*', '+get']`), applied after the other settings. Not with an
   * `aclfile` in `config` (Redis refuses both).
   */
  users?: readonly string[][];
}

/** A running server, as serve() returns it. */
export interface Server {
  /** `redis://HOST:PORT`, for connect(). */
  readonly url: string;
  /** The port it listens on (the one picked when `port` was 0). */
  readonly port: number;
  readonly host: string;
  /** Registers a hook run (and awaited) during shutdown, after clients are dropped. */
  onShutdown(fn: () => Promise<void> | void): void;
  /** Stops accepting, drops every client, runs the shutdown hooks. Idempotent. */
  close(): Promise<void>;
  /** Resolves once the server has closed (by close(), SHUTDOWN or a signal). */
  readonly closed: Promise<void>;
  /** Number of open client connections. */
  connectionCount(): number;
}

/** Loads the append-only file (when persistent), then accepts clients. */
export async function serve(options: ServeOptions = {}): Promise<Server> {
  const appendfsync = options.appendfsync ?? 'everysec';
  const persistent = options.dir !== undefined && options.appendonly !== false;
  const config: Record<string, string> = { ...options.config, appendfsync, appendonly: persistent ? 'yes' : 'no' };
  if (options.dir !== undefined) config['dir'] = options.dir;
  if (options.requirepass !== undefined) config['requirepass'] = options.requirepass;
  const instance = new Instance(allCommands, { config, ...(options.logger ? { logger: options.logger } : {}) });
  // ACL users: the config file's, or the aclfile's (ACL LOAD / SAVE use the file later).
  const acl = aclOf(instance);
  acl.file = new AclFile(instance.config);
  loadUsersAtStartup(acl, options.users ?? [], instance.config.get('aclfile'));
  // Owns the AOF (on at start, or turned on and off by CONFIG SET appendonly); DEBUG RELOAD/LOADAOF.
  const control = new ServerDatasetControl(instance, { owner: 'sluice server' });
  instance.datasetControl = control;
  // With a directory, SAVE/BGSAVE write DIR/dbfilename whenever the AOF is off (from the
  // start, or after CONFIG SET appendonly no), as Redis's do.
  const snapshots = options.dir !== undefined ? new RdbSnapshots(instance) : null;
  instance.snapshots = snapshots;
  if (persistent) await control.openAtStart(options.dir!, appendfsync);
  else snapshots?.loadAtStart(); // no AOF: the RDB file is the persistence
  const server = await startServer({
    port: options.port,
    bind: options.bind,
    instance,
    ...(options.onShutdownComplete ? { onShutdownComplete: options.onShutdownComplete } : {}),
  });
  // As Redis's prepareForShutdown: SHUTDOWN SAVE, or a shutdown (SHUTDOWN, SIGTERM) with save
  // points configured and no NOSAVE, writes dump.rdb first (a replica's keeps its primary's
  // replication id and offset: restarted, it continues with a partial resync).
  let shutdownSave: boolean | null = null;
  const shutdownHandler = instance.shutdownHandler;
  if (shutdownHandler !== null) {
    instance.shutdownHandler = (opts) => {
      shutdownSave = opts.save;
      return shutdownHandler(opts);
    };
  }
  server.onShutdown(() => {
    if (snapshots === null) return;
    if (shutdownSave === false || (shutdownSave === null && instance.config.get('save').trim() === '')) return;
    instance.logger.info('sluice: Saving the final RDB snapshot before exiting.');
    try {
      snapshots.saveFile();
    } catch {
      instance.logger.error('sluice: Error trying to save the DB, exiting without it.');
    }
  });
  server.onShutdown(async () => control.close());
  // A config file's bind line may name several addresses (the first is listened on): kept whole for CONFIG REWRITE.
  if (options.config?.['bind'] !== undefined) instance.config.setRaw('bind', options.config['bind']);
  if (options.configFile !== undefined) {
    const kept = new Set(options.configFile.keptDirectives);
    instance.configFile = new ConfigFile(options.configFile.path, () => ({
      config: instance.config,
      primary: instance.replication.role === 'slave' && instance.replication.primaryLink !== null ? instance.replication.primaryLink : null,
      keptDirectives: kept,
      users: instance.config.get('aclfile') !== '' ? null : acl.all().map((u) => `user ${u.name} ${u.describe()}`),
    }));
  }
  const host = server.host.includes(':') ? `[${server.host}]` : server.host;
  const replication = instance.replicationControl;
  const restored = snapshots?.loadedReplication ?? null;
  if (restored !== null && replication instanceof ServerReplication) replication.restoreFromRdb(restored, options.replicaof !== undefined, snapshots?.expiredAtLoad ?? []);
  if (snapshots !== null) snapshots.expiredAtLoad = [];
  if (options.replicaof !== undefined) replication?.replicaOf(options.replicaof.host, options.replicaof.port);
  // The listener's own object carries its Instance: hand out only the public view.
  const running: Server = {
    url: `redis://${host}:${server.port}`,
    port: server.port,
    host: server.host,
    closed: server.closed,
    onShutdown: (fn) => server.onShutdown(fn),
    close: () => server.close(),
    connectionCount: () => server.connectionCount(),
  };
  attachInstance(running, instance);
  return running;
}
