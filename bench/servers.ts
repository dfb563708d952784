// Starting the two servers every benchmark compares: `sluice server` and Debian's redis-server,
// each as a child process on a free loopback port, without persistence unless asked.
import { type ChildProcess, spawn } from 'node:child_process';
import * as net from 'node:net';
import { fileURLToPath } from 'node:url';
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';

export interface StartedServer {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/**
 * BENCH_PORTS=8500-8599 confines the servers to that range (on a machine shared with other
 * people's servers); by default the system picks any free port.
 */
const portRange = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
let nextInRange = portRange === null ? 0 : Number(portRange[1]);

function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const got = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(got));
    });
  });
}

export async function freePort(): Promise<number> {
  if (portRange === null) {
    const port = await listenOnce(0);
    if (port === undefined) throw new Error('no free port');
    return port;
  }
  const low = Number(portRange[1]);
  const high = Number(portRange[2]);
  // Round robin through the range, so a just-stopped server's port is not reused at once.
  for (let tries = 0; tries <= high - low; tries++) {
    const port = nextInRange;
    nextInRange = port >= high ? low : port + 1;
    if ((await listenOnce(port)) !== undefined) return port;
  }
  throw new Error(`no free port in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

/** Resolves once something accepts connections on the port. */
export async function waitForPort(port: number, attempts = 400): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nothing listens on port ${port}`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/**
 * Resolves with the port once a spawned server prints "ready on HOST:PORT" on stdout (`sluice
 * server` and bench/lean-server.js both do); rejects if it exits first. `stderr` is read only
 * when piped, for the error.
 */
export function readyPort(child: ChildProcess, name: string): Promise<number> {
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}${err === '' ? '' : `: ${err}`}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready on [^\s:]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
  });
}

/**
 * Node flags for the sluice server processes, from BENCH_SLUICE_NODE_FLAGS: profiling a bench's
 * server, as `BENCH_SLUICE_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` (Node refuses
 * --cpu-prof in NODE_OPTIONS). Each profile is written when its server stops.
 */
export function sluiceNodeFlags(): string[] {
  return (process.env.BENCH_SLUICE_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
}

/** Starts `sluice server --port 0 [extra...]` (or a port of BENCH_PORTS) and resolves once it prints "ready on". */
export async function startSluice(extra: string[] = []): Promise<StartedServer> {
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const port = portRange === null ? 0 : await freePort();
  const child = spawn(process.execPath, [...sluiceNodeFlags(), main, 'server', '--port', String(port), ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, port: await readyPort(child, 'sluice server'), stop: stopper(child) };
}

/**
 * Starts bench/lean-server.js, the least a Node.js RESP server does per request (Node's floor
 * beside sluice and redis-server); `extra` as `--appendfsync always --dir DIR`.
 */
export async function startLean(extra: string[] = []): Promise<StartedServer> {
  const main = fileURLToPath(new URL('./lean-server.js', import.meta.url));
  const port = portRange === null ? 0 : await freePort();
  const child = spawn(process.execPath, [main, '--port', String(port), ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  return { child, port: await readyPort(child, 'lean server'), stop: stopper(child) };
}

/** Starts redis-server on a free port; `extra` are more config flags (e.g. --appendonly yes). */
export async function startRedis(extra: string[] = []): Promise<StartedServer> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', ...extra], {
    stdio: 'ignore',
  });
  await waitForPort(port);
  return { child, port, stop: stopper(child) };
}

/**
 * Runs `measure` on each backend of --only's names, in this order: redis-server ('redis'), the
 * embedded engine ('embedded'), sluice server ('server'); each with a connection of its own
 * and the server's pid (null in process). The servers stop once all are measured.
 */
export async function eachBackend(
  only: readonly string[],
  measure: (backend: string, conn: Connection, serverPid: number | null) => Promise<void>,
): Promise<void> {
  const servers: StartedServer[] = [];
  try {
    for (const name of ['redis', 'embedded', 'server'] as const) {
      if (!only.includes(name)) continue;
      let conn: Connection;
      let pid: number | null = null;
      if (name === 'embedded') conn = await connect('embedded:');
      else {
        const s = name === 'redis' ? await startRedis() : await startSluice();
        servers.push(s);
        conn = await connect(`redis://127.0.0.1:${s.port}`);
        pid = s.child.pid ?? null;
      }
      await measure({ redis: 'redis-server', embedded: 'embedded', server: 'sluice server' }[name], conn, pid);
      await conn.close();
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** The median of some measurements (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
