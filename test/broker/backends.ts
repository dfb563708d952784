// The backends the broker suite runs on: a real redis-server, the embedded engine and
// `sluice server`. Each is probed for the stream commands the broker needs; a backend that
// lacks them is skipped with the reason (while the engine is still being written).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { EmbeddedConnection } from '../../src/client/embedded-connection.js';
import { open } from '../../src/client/embedded.js';

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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns a process and resolves once a stdout line matches `ready`. */
function spawnUntil(cmd: string, args: string[], ready: RegExp, timeoutMs = 10_000): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} did not become ready: ${out.slice(-500)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({ child, match: m });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited with ${code}: ${out.slice(-500)}`));
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
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

export const redisServer: BackendFactory = {
  name: 'redis-server',
  async start(options = {}) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'sluice-redis-'));
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', options.persistent ? 'yes' : 'no'];
    const launch = () => spawnUntil('redis-server', args, /Ready to accept connections/);
    let { child } = await launch();
    const conns: Connection[] = [];
    const url = `redis://127.0.0.1:${port}`;
    return probed({
      name: 'redis-server',
      url,
      async connect() {
        const c = await connect(url);
        conns.push(c);
        return c;
      },
      async restart() {
        await stopChild(child); // SIGTERM: Redis fsyncs the AOF and exits
        ({ child } = await launch());
      },
      async stop() {
        for (const c of conns) await c.close().catch(() => {});
        await stopChild(child);
        rmSync(dir, { recursive: true, force: true });
      },
    });
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
    let port = 0;
    const launch = async () => {
      const { child, match } = await spawnUntil(process.execPath, [CLI, 'server', '--port', String(port), ...persist], /ready on ([^\s:]+):(\d+)/);
      port = Number(match[2]);
      return child;
    };
    let child: ChildProcess;
    try {
      child = await launch();
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      return `sluice server unavailable: ${(err as Error).message.split('\n')[0]}`;
    }
    const url = `redis://127.0.0.1:${port}`;
    const conns: Connection[] = [];
    return probed({
      name: 'sluice-server',
      url,
      async connect() {
        const c = await connect(url);
        conns.push(c);
        return c;
      },
      async restart() {
        await stopChild(child);
        child = await launch();
      },
      async stop() {
        for (const c of conns) await c.close().catch(() => {});
        await stopChild(child);
        rmSync(dir, { recursive: true, force: true });
      },
    });
  },
};

/** All backends; a suite runs once per entry. Add a backend here and every broker test runs on it. */
export const backends: BackendFactory[] = [redisServer, embedded, sluiceServer];

/** Polls until `cond` holds (a safety limit, not a timing assertion). */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
