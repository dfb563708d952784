// The log of `sluice server` started from a config file, as redis-server writes its own: lines
// "pid:M 05 Dec 2026 11:33:53.123 * message" on stdout, or appended to `logfile` when one is
// set, so tools that read a Redis log (Redis's own test framework among them) read sluice's.
import { appendFileSync, openSync, closeSync } from 'node:fs';
import type { Logger } from '../logger.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function stamp(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(d.getDate())} ${MONTHS[d.getMonth()]} ${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

export interface RedisLog {
  logger: Logger;
  /** A notice-level line ('*'), for the start-up lines. */
  notice(message: string): void;
}

/** Opens the log (checking that `logfile` can be appended to, as Redis does before starting). */
export function redisLog(logfile: string, role: () => 'M' | 'S' = () => 'M'): RedisLog {
  if (logfile !== '') closeSync(openSync(logfile, 'a'));
  const write = (level: string, message: string, args: unknown[]): void => {
    const text = [message, ...args.map((a) => (a instanceof Error ? a.message : String(a)))].join(' ');
    const line = `${process.pid}:${role()} ${stamp(new Date())} ${level} ${text}\n`;
    if (logfile === '') process.stdout.write(line);
    else appendFileSync(logfile, line);
  };
  return {
    logger: Object.freeze({
      debug: (m: string, ...a: unknown[]) => write('.', m, a),
      info: (m: string, ...a: unknown[]) => write('*', m, a),
      warn: (m: string, ...a: unknown[]) => write('#', m, a),
      error: (m: string, ...a: unknown[]) => write('#', m, a),
    }),
    notice: (m) => write('*', m, []),
  };
}
