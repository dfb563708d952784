// The CLI's logger: every level to stderr, so `sluice server` prints its notices as Redis does
// (stdout stays for the lines scripts read, such as "ready on").
import type { Logger } from '../logger.js';

export const consoleLogger: Logger = Object.freeze({
  debug: (msg: string, ...args: unknown[]) => console.error(msg, ...args),
  info: (msg: string, ...args: unknown[]) => console.error(msg, ...args),
  warn: (msg: string, ...args: unknown[]) => console.error(msg, ...args),
  error: (msg: string, ...args: unknown[]) => console.error(msg, ...args),
});
