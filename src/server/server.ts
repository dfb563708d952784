// The TCP listener over an Instance: accepts connections (up to maxclients), closes idle ones
// ('timeout'), and shuts down in order: stop accepting, drop clients, run the shutdown hooks
// (the persistence layer flushes its file there), stop the instance.
import * as net from 'node:net';
import { allCommands } from '../commands/index.js';
import { Instance } from '../commands/core/instance.js';
import type { Logger } from '../logger.js';
import { ServerReplication } from '../replication/control.js';
import { SocketConnection } from './socket-connection.js';
import { deniedByProtectedMode, DENIED_REPLY } from './protected-mode.js';
import { aclOf } from '../commands/acl/acl-users.js';

export interface ServerOptions {
  /** 0 picks a free port; RunningServer.port is the real one. Default 6379. */
  port?: number;
  /** Default 127.0.0.1. */
  bind?: string;
  /** An existing instance (with persistence attached, say); a fresh one otherwise. */
  instance?: Instance;
  /** Sets requirepass on the instance. */
  requirepass?: string;
  /** Sets protected-mode on the instance ('yes' refuses non-loopback clients while no password is set). */
  protectedMode?: 'yes' | 'no';
  /** Where the server's notices go, for a fresh instance (an existing one keeps its own); silent by default. */
  logger?: Logger;
  /**
   * Called after SHUTDOWN has closed the server (the CLI exits the process here). Without it
   * SHUTDOWN only closes the server, which suits servers started inside tests.
   */
  onShutdownComplete?: () => void;
}

export interface RunningServer {
  readonly instance: Instance;
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

const MAX_CLIENTS_ERROR = '-ERR max number of clients reached\r\n';

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const instance = options.instance ?? new Instance(allCommands, options.logger ? { logger: options.logger } : {});
  const host = options.bind ?? '127.0.0.1';
  if (options.requirepass !== undefined) instance.config.setRaw('requirepass', options.requirepass);
  if (options.protectedMode !== undefined) instance.config.setRaw('protected-mode', options.protectedMode);
  instance.startActiveExpiry();
  // Replicas attach over TCP (a served instance is a primary they can SYNC with), and it can
  // follow a primary itself (REPLICAOF).
  let listeningPort = 0;
  const replication = new ServerReplication(instance, () => listeningPort);
  instance.replicationControl = replication;

  const connections = new Set<SocketConnection>();
  // A script past busy-reply-threshold: the other clients are read and answered from inside it.
  instance.serveWhileBusy = () => {
    for (const c of [...connections]) c.serveWhileBusy();
  };
  const hooks: Array<() => Promise<void> | void> = [];
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const listener = net.createServer({ noDelay: true, pauseOnConnect: true }, (socket) => {
    if (closing !== null || connections.size >= instance.config.getNumber('maxclients')) {
      // As Redis: counted as rejected, not as received.
      instance.stats.rejectedConnections++;
      socket.on('error', () => {});
      socket.resume(); // accepted paused (pauseOnConnect): read and drop whatever it sends
      socket.end(MAX_CLIENTS_ERROR);
      return;
    }
    instance.stats.connectionsReceived++;
    if (deniedByProtectedMode(instance.config, aclOf(instance).defaultUser.nopass, socket.remoteAddress)) {
      // As Redis: counted as received and as rejected; the request is never read.
      instance.stats.rejectedConnections++;
      socket.on('error', () => {});
      socket.resume();
      socket.end(DENIED_REPLY);
      return;
    }
    const connection = new SocketConnection(instance, socket);
    connections.add(connection);
    connection.onClose(() => connections.delete(connection));
  });

  // 'timeout' (seconds): close clients idle that long; blocked clients wait for their own timeout.
  // Also the soft output buffer limits' clock.
  const idleSweeper = setInterval(() => {
    replication.cron();
    // client-output-buffer-limit's soft limit counts seconds even when no reply is added.
    for (const c of [...connections]) {
      c.checkOutputLimit();
      c.releaseIdleInput();
    }
    const timeout = instance.config.getNumber('timeout');
    if (timeout <= 0) return;
    const limit = Date.now() - timeout * 1000;
    for (const c of [...connections]) {
      if (c.client.blocked === null && !c.client.isReplica && c.client.lastInteraction < limit) c.destroy();
    }
  }, 1000);
  idleSweeper.unref();

  const close = (): Promise<void> => {
    if (closing !== null) return closing;
    closing = (async () => {
      clearInterval(idleSweeper);
      // A script running past busy-reply-threshold (SIGTERM, SHUTDOWN NOSAVE) is stopped where
      // it is, its effects dropped, as Redis exits from the middle of it.
      instance.busyScript?.abandon();
      instance.serveWhileBusy = null;
      replication.stop();
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const c of [...connections]) c.destroy();
      await stopped;
      for (const fn of hooks) {
        try {
          await fn();
        } catch (err) {
          instance.logger.error('sluice: shutdown hook failed:', err);
        }
      }
      instance.stop();
      resolveClosed();
    })();
    return closing;
  };

  instance.shutdownHandler = async () => {
    // Closing drops the SHUTDOWN caller too, as Redis does on success (no reply is sent).
    await close();
    options.onShutdownComplete?.();
    return null;
  };

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port ?? 6379, host, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  listener.on('error', (err) => instance.logger.error('sluice: listener error:', err));
  const port = (listener.address() as net.AddressInfo).port;
  instance.config.setRaw('port', String(port));
  listeningPort = port;
  instance.config.setRaw('bind', host);

  return {
    instance,
    port,
    host,
    onShutdown: (fn) => void hooks.push(fn),
    close,
    closed,
    connectionCount: () => connections.size,
  };
}
