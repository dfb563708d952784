// sluice server and redis-server as child processes on free ports, for tests that compare the
// two side by side or that need a real process (RSS, kill -9). Every process started is
// registered so `stopAll` can end it.
import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { freePort, MAIN, spawnUntil } from '../cli/helpers.js';

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

function wrap(name: 'sluice' | 'redis', port: number, child: ChildProcess, output: () => string): ServerProcess {
  const proc: ServerProcess = {
    name,
    port,
    child,
    output,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024,
    kill: async () => {
      running.delete(proc);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
  running.add(proc);
  child.once('exit', () => running.delete(proc));
  return proc;
}

/** `sluice server --port 0 ...flags`, once it printed its ready line. */
export async function startSluiceProcess(...flags: string[]): Promise<ServerProcess> {
  const ready = /ready on \S+:(\d+)\n/;
  const { child, output } = await spawnUntil(process.execPath, [MAIN, 'server', '--port', '0', ...flags], ready);
  return wrap('sluice', Number(ready.exec(output())![1]), child, output);
}

/** redis-server 7.0.15 without persistence (unless flags say otherwise) on a free port. */
export async function startRedisProcess(...flags: string[]): Promise<ServerProcess> {
  const port = await freePort();
  const { child, output } = await spawnUntil(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...flags],
    /Ready to accept connections/,
  );
  return wrap('redis', port, child, output);
}

/** Kills every process these helpers started and that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}
