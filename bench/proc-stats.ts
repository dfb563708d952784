// What the benchmarks read about a server process from outside: CPU time (utime+stime from
// /proc/<pid>/stat, all threads; per thread from schedstat), resident memory (VmRSS), and
// system call counts (fdatasync, write) from `perf stat` attached to the process, when perf works.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SEC = 100;

/**
 * CPU seconds (user + system) the process used so far, all threads; NaN where /proc is
 * unavailable. On a shared machine requests/s swing with the scheduler; CPU time per request
 * does not.
 */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the ")" that closes the command name: state is field 3, utime 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / TICKS_PER_SEC;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds of the process's main thread and of all its threads together, in nanosecond
 * resolution (schedstat's on-CPU time). In a Node process the other threads are V8's
 * optimizing compiler and GC helpers, and libuv's pool: `all - main` is what they took.
 */
export function threadCpuSeconds(pid: number): { main: number; all: number } {
  const onCpu = (task: string): number => Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'latin1').split(' ')[0]) / 1e9;
  try {
    let all = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        all += onCpu(task);
      } catch {
        // the thread ended between the listing and the read
      }
    }
    return { main: onCpu(String(pid)), all };
  } catch {
    return { main: NaN, all: NaN };
  }
}

/** Resident set size in bytes. */
export function rssBytes(pid: number): number {
  return statusKb(pid, 'VmRSS') * 1024;
}

/**
 * The process's own resident memory (RssAnon): RSS without the mapped executable and libraries,
 * whose pages every process running the same binary shares (Node's are about 35 MB).
 */
export function privateRssBytes(pid: number): number {
  return statusKb(pid, 'RssAnon') * 1024;
}

function statusKb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return m === null ? 0 : Number(m[1]);
}

export interface SyscallCounts {
  fdatasync: number;
  write: number;
}

/** Counts fdatasync/fsync and write/writev of `pid` (every thread) until stop() is called. */
export class SyscallCounter {
  private readonly perf: ChildProcess;
  private out = '';

  constructor(pid: number) {
    const events = ['fdatasync', 'fsync', 'write', 'writev', 'pwrite64'].map((s) => `syscalls:sys_enter_${s}`).join(',');
    this.perf = spawn('perf', ['stat', '-x', ',', '-e', events, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.perf.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.perf.on('error', () => undefined);
  }

  /** Gives perf a moment to attach before the measured work starts. */
  static async attach(pid: number): Promise<SyscallCounter> {
    const c = new SyscallCounter(pid);
    await new Promise((r) => setTimeout(r, 300));
    return c;
  }

  async stop(): Promise<SyscallCounts | null> {
    if (this.perf.exitCode === null) {
      const done = new Promise((r) => this.perf.once('exit', r));
      this.perf.kill('SIGINT');
      await done;
    }
    const count = (name: string) => {
      const line = this.out.split('\n').find((l) => l.includes(`sys_enter_${name},`) || l.endsWith(`sys_enter_${name}`));
      const n = line === undefined ? NaN : Number(line.split(',')[0]);
      return Number.isFinite(n) ? n : NaN;
    };
    const fdatasync = count('fdatasync') + count('fsync');
    if (!Number.isFinite(fdatasync)) return null;
    return { fdatasync, write: count('write') + count('writev') + count('pwrite64') };
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
