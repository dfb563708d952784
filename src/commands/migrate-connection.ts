// MIGRATE's connections to target servers, as Redis's migrateGetSocket: one per host:port, kept
// for reuse and closed after 10 seconds unused (INFO's migrate_cached_sockets), with the
// database last SELECTed on it so a next MIGRATE to the same database sends no SELECT. Replies
// are read a line at a time (connSyncReadLine): the target answers AUTH, SELECT and RESTORE
// with one-line replies.
import { createConnection, type Socket } from 'node:net';

/** Redis's MIGRATE_SOCKET_CACHE_TTL. */
const IDLE_CLOSE_MS = 10_000;
/** Redis's MIGRATE_SOCKET_CACHE_ITEMS: past it, one cached connection is closed first. */
const MAX_CACHED = 64;

/** Why a line could not be read: the deadline passed, or the connection failed or closed. */
export class MigrateIoError extends Error {
  constructor(readonly timedOut: boolean) {
    super(timedOut ? 'timeout' : 'connection error');
  }
}

export class MigrateConnection {
  /** The database the target has selected on this connection, -1 when unknown. */
  lastDb = -1;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private failed = false;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly onClosed: () => void,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    const end = () => {
      this.failed = true;
      this.close();
      this.wake();
    };
    socket.on('error', end);
    socket.on('close', end);
  }

  /** Sends `bytes`; rejects when the connection fails or the deadline passes first. */
  write(bytes: Buffer, deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(new MigrateIoError(false));
      const timer = setTimeout(() => reject(new MigrateIoError(true)), Math.max(0, deadline - Date.now()));
      this.socket.write(bytes, (err) => {
        clearTimeout(timer);
        if (err) reject(new MigrateIoError(false));
        else resolve();
      });
    });
  }

  /** The next reply line, without its CRLF. */
  async readLine(deadline: number): Promise<string> {
    for (;;) {
      const end = this.buffered.indexOf('\r\n');
      if (end >= 0) {
        const line = this.buffered.toString('latin1', 0, end);
        this.buffered = this.buffered.subarray(end + 2);
        return line;
      }
      if (this.failed) throw new MigrateIoError(false);
      const left = deadline - Date.now();
      if (left <= 0) throw new MigrateIoError(true);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = null;
    }
  }

  /** In use: it keeps the process alive until released. */
  claim(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.socket.ref();
  }

  /**
   * Done with for now: closed after 10 s more without use, and meanwhile it keeps no process
   * alive (an embedded engine closed, a server shut down).
   */
  release(): void {
    this.socket.unref();
    if (this.failed) return;
    this.idleTimer = setTimeout(() => this.close(), IDLE_CLOSE_MS);
    this.idleTimer.unref();
  }

  close(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.failed = true;
    this.socket.destroy();
    this.onClosed();
  }

  private wake(): void {
    this.waiting?.();
  }
}

/** One instance's cached MIGRATE connections, by "host:port". */
export class MigrateConnections {
  private readonly cached = new Map<string, MigrateConnection>();

  get size(): number {
    return this.cached.size;
  }

  /**
   * The cached connection to host:port, or a new one, claimed (release it after use); null
   * when it cannot be made before the deadline (a refused connection is returned, failed, as
   * Redis only learns of it on writing).
   */
  async get(host: string, port: number, deadline: number): Promise<MigrateConnection | null> {
    const name = `${host}:${port}`;
    const existing = this.cached.get(name);
    if (existing !== undefined) {
      existing.claim();
      return existing;
    }
    if (this.cached.size >= MAX_CACHED) this.cached.values().next().value?.close();
    const socket = createConnection({ host, port });
    socket.setNoDelay(true);
    const connected = await new Promise<'ok' | 'failed' | 'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve('ok');
      });
      socket.once('error', () => {
        clearTimeout(timer);
        resolve('failed');
      });
    });
    if (connected === 'timeout') {
      socket.destroy();
      return null;
    }
    const connection = new MigrateConnection(socket, () => {
      if (this.cached.get(name) === connection) this.cached.delete(name);
    });
    if (connected === 'failed') {
      connection.close();
      return connection;
    }
    this.cached.set(name, connection);
    return connection;
  }

  /** Closes the connection to host:port (after a socket error, so the next MIGRATE makes a new one). */
  drop(host: string, port: number): void {
    this.cached.get(`${host}:${port}`)?.close();
  }
}
