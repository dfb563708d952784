// sluice server and redis-server as child processes (test/support/processes.ts) with what the
// hardening tests add: a name to report, the process's RSS, SIGKILL, and `stopAll` to end every
// process started here that is still running.
import { type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startRedisServer, startSluiceServer, stopChild, type Spawned } from '../support/processes.js';

export interface ServerProcess {
  readonly name: 'sluice' | 'redis';
  readonly port: number;
  readonly child: ChildProcess;
  /** What the process printed so far (stdout and stderr). */
  output(): string;
  /** Resident set size in bytes, from /proc. */
  rss(): number;
  /** SIGKILL, waits for the exit. */
  kill(): Promise<void>;
}

const running = new Set<ServerProcess>();

function wrap(name: 'sluice' | 'redis', spawned: Spawned & { port: number }): ServerProcess {
  const { child } = spawned;
  const proc: ServerProcess = {
    name,
    port: spawned.port,
    child,
    output: () => spawned.stdout() + spawned.stderr(),
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024,
    kill: async () => {
      running.delete(proc);
      await stopChild(child, 'SIGKILL');
    },
  };
  running.add(proc);
  child.once('exit', () => running.delete(proc));
  return proc;
}

/** `sluice server --port 0 ...flags`, once it printed its ready line. */
export async function startSluiceProcess(...flags: string[]): Promise<ServerProcess> {
  return wrap('sluice', await startSluiceServer(flags));
}

/** redis-server 7.0.15 without persistence (unless flags say otherwise) on a free port. */
export async function startRedisProcess(...flags: string[]): Promise<ServerProcess> {
  return wrap('redis', await startRedisServer(flags));
}

/** Kills every process these helpers started and that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}
