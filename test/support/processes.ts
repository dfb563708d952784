// Child processes for the tests: free loopback ports, spawning a program and waiting for the
// line that says it is ready, `sluice server` and redis-server, and stopping them.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The compiled CLI entry (dist/src/cli/main.js). */
export const CLI_MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/**
 * A port nothing listens on right now, below Linux's ephemeral range (32768-60999): a port the
 * OS picks for listen(0) comes from that range, where any test's outgoing connection may take it
 * as its local port before the server meant for it binds it (or binds it again after a restart):
 * EADDRINUSE, one CI run in a few.
 */
export async function freePort(): Promise<number> {
  return freePortIn(20_000, FRAMEWORK_PORTS);
}

/**
 * Where Redis's Tcl test framework may take ports: from its --baseport up, one for each server it
 * spawns. The harnesses start it in [FRAMEWORK_PORTS, 32000) (frameworkBasePort) and freePort
 * picks below, so a test's server and the framework's never race for one port (a config-file
 * test lost that race to a framework run beside it: EADDRINUSE, one CI run in several).
 */
const FRAMEWORK_PORTS = 28_000;

/** A --baseport for Redis's test framework, away from the ports freePort hands out. */
export async function frameworkBasePort(): Promise<number> {
  // The runner's own control socket listens from baseport - 32 up.
  return (await freePortIn(FRAMEWORK_PORTS, 31_000)) + 32;
}

async function freePortIn(low: number, high: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await bindable(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export interface Spawned {
  child: ChildProcess;
  /** The ready pattern's match. */
  match: RegExpExecArray;
  /** Everything the process wrote to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited(): Promise<number | null>;
  /** SIGTERM (or `signal`), resolved once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface SpawnOptions {
  /** Where the ready pattern is looked for: stdout only (default) or stdout and stderr. */
  readyOn?: 'stdout' | 'both';
  /** The working directory (default: this process's). */
  cwd?: string;
}

/** Spawns and resolves once the output matches `ready`; rejects if the process exits first. */
export function spawnUntil(cmd: string, args: string[], ready: RegExp, options: SpawnOptions = {}): Promise<Spawned> {
  const child = spawn(cmd, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const m = ready.exec(options.readyOn === 'both' ? out + err : out);
      if (m === null) return;
      resolve({
        child,
        match: m,
        stdout: () => out,
        stderr: () => err,
        exited: () => exitCode,
        stop: (signal) => stopChild(child, signal),
      });
    };
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      check();
    });
    child.once('error', (e) => reject(new Error(`cannot start ${cmd}: ${e.message}`)));
    child.once('exit', (code) => reject(new Error(`${cmd} exited (${code}) before ready: ${out}${err}`)));
  });
}

/**
 * Runs a program to its end and gives its exit code and its stdout and stderr interleaved; it is
 * killed (code null) once `timeoutMs` has passed.
 */
export function runToExit(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A Node script that reports on stdout, a line at a time (the kill -9 tests' worker processes). */
export interface LineReporter {
  child: ChildProcess;
  /** Resolves once the script printed the line `ready`. */
  ready: Promise<void>;
  /** When it exited, on the monotonic clock (process.hrtime.bigint()); null while it runs. */
  exitedAt(): bigint | null;
}

/** Runs `node script args…`, handing each whole line it prints to `onLine`. */
export function spawnLineReporter(script: string, args: string[], onLine: (line: string) => void): LineReporter {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let exitedAt: bigint | null = null;
  child.once('exit', () => (exitedAt = process.hrtime.bigint()));
  let rest = '';
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  child.stdout!.on('data', (c: Buffer) => {
    const lines = (rest + c.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') ready();
      onLine(line);
    }
  });
  return { child, ready: isReady, exitedAt: () => exitedAt };
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

export interface SluiceServer extends Spawned {
  port: number;
}

/** `sluice server --port 0 [args...]`, once it prints "ready on host:port". */
export async function startSluiceServer(args: string[] = []): Promise<SluiceServer> {
  const spawned = await spawnUntil(process.execPath, [CLI_MAIN, 'server', '--port', '0', ...args], /ready on [^\s:]+:(\d+)\n/, { cwd: ownDirectory() });
  return { ...spawned, port: Number(spawned.match[1]) };
}

/**
 * A fresh working directory for one server, removed when the test process ends: a server's
 * default `dir` is its working directory, and a dump.rdb left there by another test (a SAVE, a
 * SHUTDOWN) would otherwise be loaded by the next server started in the same place.
 */
function ownDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-server-'));
  if (serverDirectories.length === 0) process.once('exit', () => serverDirectories.forEach((d) => rmSync(d, { recursive: true, force: true })));
  serverDirectories.push(dir);
  return dir;
}
const serverDirectories: string[] = [];

export interface RedisServer extends Spawned {
  port: number;
}

/** redis-server on a free loopback port without persistence (unless `args` say otherwise), once ready. */
export async function startRedisServer(args: string[] = [], binary = 'redis-server'): Promise<RedisServer> {
  const port = await freePort();
  const spawned = await spawnUntil(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    /Ready to accept connections/,
    { readyOn: 'both', cwd: ownDirectory() },
  );
  return { ...spawned, port };
}

/** Whether `program` is on the PATH (it runs with `--version`). */
export function installed(program: string): boolean {
  return spawnSync(program, ['--version'], { stdio: 'ignore', timeout: 10_000 }).error === undefined;
}
