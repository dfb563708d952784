// The backends the broker suite runs on: a real redis-server, the embedded engine and
// `sluice server`. Each is probed for the stream commands the broker needs. A backend that does
// not start or fails the probe fails every test of its describe() with the reason: a regression
// in sluice (XAUTOCLAIM broken, a server that crashes at start) must never pass as skipped. Only
// a backend that cannot exist on this machine, because a program it needs is not installed
// (`absent()`), is skipped, with that reason; redis-server has no `absent()`: CI installs it.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { open } from '../../src/client/embedded.js';
import { after, before, describe } from 'node:test';
import { type Job, Worker, type WorkerOptions } from '../../src/broker/worker.js';
import { freePort, spawnUntil, stopChild } from '../support/processes.js';
import { within } from '../support/wait.js';

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

export interface StartOptions {
  /** Socket backends: with an AOF, so restart() keeps the data. */
  persistent?: boolean;
}

export interface BackendFactory {
  name: string;
  /**
   * Why this backend cannot exist on this machine (a program it needs is not installed), or
   * null. Only then are its tests skipped.
   */
  absent?(): string | null;
  /** Resolves to a running backend that passed the probe; rejects with why it did not. */
  start(options?: StartOptions): Promise<Backend>;
}

/** Runs the stream commands the broker relies on; rejects with the first that fails. */
export async function probe(conn: Connection): Promise<void> {
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
  } catch (err) {
    throw new Error(`the broker's commands fail: ${(err as Error).message}`);
  }
}

/** The backend once it passed the probe; stopped, and the probe's failure thrown, if not. */
export async function probed(backend: Backend): Promise<Backend> {
  try {
    const conn = await backend.connect();
    await probe(conn).finally(() => conn.close());
  } catch (err) {
    await backend.stop().catch(() => {});
    throw new Error(`${backend.name}: ${(err as Error).message}`);
  }
  return backend;
}

/**
 * A server process as a Backend: connections are tracked and closed at stop; restart() stops
 * the process with SIGTERM (it flushes its AOF) and launches it again on the same port.
 */
async function serverBackend(name: string, dir: string, launch: () => Promise<{ child: ChildProcess; port: number }>): Promise<Backend> {
  let running: { child: ChildProcess; port: number };
  try {
    running = await launch();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${name} did not start: ${(err as Error).message.split('\n')[0]}`);
  }
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
    return serverBackend('sluice-server', dir, launch);
  },
};

/** All backends; a suite runs once per entry. Add a backend here and every broker test runs on it. */
export const backends: BackendFactory[] = [redisServer, embedded, sluiceServer];

/** How long a backend may take to start (a hang is a failure too). */
const START_LIMIT_MS = 60_000;

/**
 * A describe() per backend, titled `title(name)`, whose tests use `backend` (ready before the
 * first of them). Every backend starts at once, when this is called (at import), so their
 * start-ups overlap. One that fails to start or the probe fails each of its describe's tests with
 * the reason; one whose factory reports it `absent()` is skipped with the reason.
 */
export function describeEach(factories: BackendFactory[], title: (name: string) => string, body: (backend: Backend, name: string) => void, options: StartOptions = {}): void {
  for (const factory of factories) {
    const absent = factory.absent?.() ?? null;
    if (absent !== null) {
      describe(title(factory.name), { skip: absent }, () => {});
      continue;
    }
    const backend = new StartingBackend(factory.name, factory.start(options));
    describe(title(factory.name), () => {
      before(() => backend.ready());
      body(backend, factory.name);
      after(() => backend.stop()); // after the body's own after() hooks, which may still use it
    });
  }
}

/** A Backend still starting: its tests may hold it before it runs; ready() waits for it, or rejects with why it failed. */
class StartingBackend implements Backend {
  private started: Backend | null = null;

  constructor(
    readonly name: string,
    private readonly starting: Promise<Backend>,
  ) {
    starting.catch(() => {}); // reported by ready(), in the describe's before() hook
  }

  async ready(): Promise<void> {
    this.started = await within(this.starting, `${this.name} to start`, START_LIMIT_MS);
  }

  private get running(): Backend {
    if (this.started === null) throw new Error(`${this.name} is not running`);
    return this.started;
  }

  get url(): string | undefined {
    return this.running.url;
  }

  connect(): Promise<Connection> {
    return this.running.connect();
  }

  async restart(): Promise<void> {
    const b = this.running;
    if (b.restart === undefined) throw new Error(`${this.name} cannot restart`);
    await b.restart();
  }

  async stop(): Promise<void> {
    const b = this.started;
    this.started = null;
    await b?.stop();
  }
}

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
 * connection (describeEach stops the backend).
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
    await conn?.close(); // undefined when the backend did not start
  });
  const worker: WorkerFactory = (options, handler) => {
    const w = new Worker(conn, { blockMs: 200, ...options }, handler);
    w.on('error', () => {}); // transient errors are not what these tests look at
    workers.push(w as Worker);
    return w;
  };
  return { worker, workers };
}
