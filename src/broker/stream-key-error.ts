// The operator's wording of a Redis error about a stream key ("no such key", WRONGTYPE), shared
// by the read model (broker/stream-stats.ts), the CLI and the dashboard. No imports: every CLI
// subcommand loads it through cli/errors.ts.

/** The stream an operator asked about does not exist, or the key holds another type. */
export class StreamKeyError extends Error {
  constructor(
    readonly key: string,
    readonly reason: 'missing' | 'not-a-stream',
  ) {
    super(reason === 'missing' ? `stream '${key}' does not exist` : `key '${key}' is not a stream`);
    this.name = 'StreamKeyError';
  }
}

/** A Redis error reply about `key` (XINFO's "no such key", WRONGTYPE) as a StreamKeyError; others unchanged. */
export function streamKeyError(err: unknown, key: string): Error {
  const msg = err instanceof Error ? err.message : String(err);
  if (/^ERR no such key/i.test(msg)) return new StreamKeyError(key, 'missing');
  if (/^WRONGTYPE/.test(msg)) return new StreamKeyError(key, 'not-a-stream');
  return err instanceof Error ? err : new Error(msg);
}
