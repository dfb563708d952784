// One-line CLI errors: whatever a command throws becomes `sluice: <message>` on stderr and a
// non-zero exit. Stack traces only with --debug (an operator wants the cause, not our frames).
import { StreamKeyError, streamKeyError } from '../broker/stream-key-error.js';
import { parseSentinelUrl } from '../client/sentinel-url.js';

/** An error whose message is already written for the operator. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
};

/** The one line printed for an error (without the `sluice: ` prefix). */
export function describeError(err: unknown): string {
  if (err instanceof CliError) return err.message;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== undefined && NETWORK_CODES[code] !== undefined) {
      const e = err as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
      const where = e.address !== undefined ? `${e.address}:${e.port ?? ''}` : e.hostname ?? '';
      return `${NETWORK_CODES[code]}${where === '' ? '' : ` (${where})`}`;
    }
    // Never more than one line: the first line of a multi-line message carries the cause.
    return (err.message || err.name).split('\n')[0]!;
  }
  return String(err).split('\n')[0]!;
}

/** Prints the error (one line, or the stack with --debug) and exits non-zero. */
export function exitWithError(err: unknown, argv: string[] = process.argv): never {
  const debug = argv.includes('--debug');
  const line = `sluice: ${describeError(err)}`;
  process.stderr.write(debug && err instanceof Error && err.stack ? `${line}\n${err.stack}\n` : `${line}\n`);
  process.exit(err instanceof CliError ? err.exitCode : 1);
}

/** Turns a Redis error reply about a stream key into the operator's wording. */
export function keyError(err: unknown, key: string): Error {
  const e = err instanceof StreamKeyError ? err : streamKeyError(err, key);
  return e instanceof StreamKeyError ? new CliError(e.message) : e;
}

/** Default server of the operator commands, as redis-cli's. */
export const DEFAULT_URL = 'redis://127.0.0.1:6379';

/** Checks a --url before anything connects, so a typo is reported as such. */
/** A redis+sentinel:// URL, checked without loading ioredis (see operator-connection.ts). */
export function checkSentinelUrl(url: string): string {
  try {
    parseSentinelUrl(url);
  } catch (err) {
    throw new CliError(`invalid --url '${url}' (${(err as Error).message})`);
  }
  return url;
}

export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`invalid --url '${url}' (expected redis://HOST:PORT)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new CliError(`invalid --url '${url}' (scheme must be redis:// or rediss://)`);
  }
  if (parsed.hostname === '') throw new CliError(`invalid --url '${url}' (no host)`);
  return url;
}
