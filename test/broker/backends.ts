// The backends the broker suite runs on: a real redis-server, the embedded engine and
// `sluice server`. Each is probed for the stream commands the broker needs; a backend that
// lacks them is skipped with the reason (while the engine is still being written).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { open } from '../../src/client/embedded.js';
import { after, before } from 'node:test';
import { type Job, Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { freePort, spawnUntil, stopChild } from '../support/processes.js';

export { freePort };

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.js');

export interface Backend {
  name: string;
  /** Set for socket backends: child processes connect here. */
  url?: string;
  connect(): Promise<Connection>;
  /** Socket backends with persistence: stop the server and start it again on the same port. */
  restart?(): Promise<void>;
  stop(): Promise<void>;
}

export interface BackendFactory {
  name: string;
  /** Resolves to a running backend, or to the reason it cannot run here. */
  start(options?: { persistent?: boolean }): Promise<Backend | string>;
}

/** Checks that the stream commands the broker relies on exist; resolves to a reason if not. */
export async function probe(conn: Connection): Promise<string | null> {
  const key = `__sluice_probe_${process.pid}_${Math.random()}`;
  try {
    await conn.call('XADD', key, '*', 'f', 'v');
    await conn.call('XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM');
    await conn.call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 1, 'STREAMS', key, '>');
    await conn.call('XPENDING', key, 'g', '-', '+', 10, 'c');
    await conn.call('XCLAIM', key, 'g', 'c', 0, '0-1', 'JUSTID');
    await conn.call('XAUTOCLAIM', key, 'g', 'c', 0, '0-0', 'COUNT', 1);
    await conn.call('XINFO', 'GROUPS', key);
    await conn.call('XINFO', 'CONSUMERS', key, 'g');
    await conn.multi([['XACK', key, 'g', '0-1'], ['XLEN', key]]);
    await conn.call('HSETNX', `${key}:h`, 'a', '1');
    await conn.call('SADD', `${key}:s`, 'a');
    await conn.call('DEL', key, `${key}:h`, `${key}:s`);
    return null;
  } catch (err) {
    return `stream commands missing: ${(err as Error).message}`;
  }
}

async function probed(backend: Backend): Promise<Backend | string> {
  const conn = await backend.connect();
  const reason = await probe(conn).finally(() => conn.close());
  if (reason === null) return backend;
  await backend.stop();
  return reason;
}

/**
 * A server process as a Backend: connections are tracked and closed at stop; restart() stops
 * the process with SIGTERM (it flushes its AOF) and launches it again on the same port.
 */
async function serverBackend(name: string, dir: string, launch: () => Promise<{ child: ChildProcess; port: number }>): Promise<Backend | string> {
  let running = await launch();
  const url = `redis://127.0.0.1:${running.port}`;
  const conns: Connection[] = [];
  return probed({
    name,
    url,
    async connect() {
      const c = await connect(url);
      conns.push(c);
      return c;
    },
    async restart() {
      await stopChild(running.child);
      running = await launch();
    },
    async stop() {
      for (const c of conns) await c.close().catch(() => {});
      await stopChild(running.child);
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

export const redisServer: BackendFactory = {
  name: 'redis-server',
  async start(options = {}) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'sluice-redis-'));
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', options.persistent ? 'yes' : 'no'];
    return serverBackend('redis-server', dir, async () => ({ child: (await spawnUntil('redis-server', args, /Ready to accept connections/)).child, port }));
  },
};

export const embedded: BackendFactory = {
  name: 'embedded',
  async start() {
    const db = await open();
    return probed({
      name: 'embedded',
      async connect() {
        return new EmbeddedConnection(db, false);
      },
      async stop() {
        await db.close();
      },
    });
  },
};

export const sluiceServer: BackendFactory = {
  name: 'sluice-server',
  async start(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-server-'));
    const persist = options.persistent ? ['--dir', dir] : [];
    let port = 0; // a free one first, then the same one at every restart
    const launch = async (): Promise<{ child: ChildProcess; port: number }> => {
      const { child, match } = await spawnUntil(process.execPath, [CLI, 'server', '--port', String(port), ...persist], /ready on ([^\s:]+):(\d+)/);
      port = Number(match[2]);
      return { child, port };
    };
    try {
      return await serverBackend('sluice-server', dir, launch);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      return `sluice server unavailable: ${(err as Error).message.split('\n')[0]}`;
    }
  },
};

/** All backends; a suite runs once per entry. Add a backend here and every broker test runs on it. */
export const backends: BackendFactory[] = [redisServer, embedded, sluiceServer];

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export type WorkerFactory = <T>(options: WorkerOptions, handler: (job: Job<T>, ctx: { signal: AbortSignal }) => unknown) => Worker<T>;

/**
 * For a describe() on one backend: connects before its tests (handing the connection to
 * `connected`) and returns a worker factory (blockMs 200, transient errors ignored); after the
 * tests, closes the `workers` (those made by the factory, and any a test pushes) and the
 * connection, and stops the backend.
 */
export function useWorkers(b: Backend, connected: (conn: Connection) => void): { worker: WorkerFactory; workers: Worker[] } {
  let conn: Connection;
  const workers: Worker[] = [];
  before(async () => {
    conn = await b.connect();
    connected(conn);
  });
  after(async () => {
    for (const w of workers) await w.close({ timeoutMs: 100 });
    await conn.close();
    await b.stop();
  });
  const worker: WorkerFactory = (options, handler) => {
    const w = new Worker(conn, { blockMs: 200, ...options }, handler);
    w.on('error', () => {}); // transient errors are not what these tests look at
    workers.push(w as Worker);
    return w;
  };
  return { worker, workers };
}
