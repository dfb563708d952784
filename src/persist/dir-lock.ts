// An exclusive lock on a data directory, so two processes (an embedded open() and a
// `sluice server --dir`, say) never append to the same AOF. The lock is a file created
// atomically with its content (written aside, then hard-linked into place: link(2) fails if
// it exists), naming the holder: pid, host, its start time, what it is. A lock whose holder is
// gone (same host, pid not running, or running but started at another time: pid reused) is
// stale and taken over; a process killed with -9 therefore does not block the next start.
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { type Logger, silentLogger } from '../logger.js';

export const LOCK_FILE = 'sluice.lock';

interface Holder {
  pid: number;
  host: string;
  /** The process's start time as /proc/<pid>/stat gives it ('' where unknown). */
  processStart: string;
  since: string;
  by: string;
}

export class DirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: Holder,
  ) {
    super(
      `The data directory ${dir} is in use by pid ${holder.pid} on host ${holder.host} (${holder.by}, since ${holder.since}). ` +
        `Stop that process first; if it is gone for good, remove ${join(dir, LOCK_FILE)}.`,
    );
    this.name = 'DirLockedError';
  }
}

function processStart(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Field 22 (starttime), counted after the command name, which may contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

function alive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true; // cannot tell: assume it is
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const start = processStart(holder.pid);
  return start === '' || holder.processStart === '' || start === holder.processStart;
}

function readHolder(path: string): Holder | null {
  try {
    return JSON.parse(fs.readFileSync(path, 'utf8')) as Holder;
  } catch {
    return null;
  }
}

export interface DirLock {
  release(): void;
}

/** Takes the lock of `dir` (created if needed) or throws DirLockedError naming the holder. */
export function lockDir(dir: string, by: string, logger: Logger = silentLogger): DirLock {
  fs.mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), processStart: processStart(process.pid), since: new Date().toISOString(), by };
  const temp = join(dir, `${LOCK_FILE}.${process.pid}.${Date.now()}`);
  fs.writeFileSync(temp, JSON.stringify(me) + '\n');
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(temp, path);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readHolder(path);
      if (holder !== null && (attempt > 0 || alive(holder))) throw new DirLockedError(dir, holder);
      // Stale (or unreadable): take it over, once; a racing process taking it first wins.
      logger.warn(`sluice: removing the stale lock ${path}${holder !== null ? ` of pid ${holder.pid}` : ''}`);
      fs.rmSync(path, { force: true });
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      // Only our own lock: never one a later holder took over.
      if (readHolder(path)?.pid === me.pid && readHolder(path)?.since === me.since) fs.rmSync(path, { force: true });
    },
  };
}
