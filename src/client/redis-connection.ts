// Connection adapter over ioredis, for Redis, Valkey and sluice server. ioredis reconnects by
// itself; we give it an exponential backoff with jitter, keep commands queued while it is down
// (a worker should wait out a restart rather than fail), and report each re-established link
// so the worker can re-read its own pending entries.
import { Redis, type RedisOptions } from 'ioredis';
import type { Arg, Value } from './embedded.js';
import { type Connection, TransactionError } from './connection.js';

/** Delay before reconnect attempt `n` (1-based): 50ms doubling, capped at 2s, with jitter. */
export function reconnectDelay(attempt: number): number {
  const base = Math.min(2000, 50 * 2 ** Math.min(attempt - 1, 10));
  return Math.round(base / 2 + Math.random() * (base / 2));
}

export const defaultRedisOptions: RedisOptions = {
  // RESP2: the reply shapes the Connection contract promises (ioredis 6 defaults to RESP3,
  // whose XREAD map replies it reshapes only for its own xreadgroup method, not for `call`).
  protocol: 2,
  retryStrategy: reconnectDelay,
  maxRetriesPerRequest: null,
  enableOfflineQueue: true,
  autoResendUnfulfilledCommands: true,
  lazyConnect: false,
};

export class RedisConnection implements Connection {
  readonly kind = 'redis' as const;
  private readonly listeners = new Set<() => void>();
  private readyOnce = false;
  private closed = false;

  constructor(
    readonly client: Redis,
    /** Whether close() quits the client (false when the caller passed in their own client). */
    private readonly ownsClient = true,
  ) {
    const protocol = (client.options as { protocol?: number }).protocol ?? 3;
    if (protocol !== 2) throw new TypeError('sluice needs RESP2 reply shapes: create the ioredis client with { protocol: 2 }');
    if (client.status === 'ready') this.readyOnce = true;
    client.on('ready', () => {
      if (!this.readyOnce) {
        this.readyOnce = true;
        return;
      }
      for (const l of this.listeners) l();
    });
    // Without a listener ioredis prints every connection error; the broker handles them.
    client.on('error', () => {});
  }

  static fromUrl(url: string, options: RedisOptions = {}): RedisConnection {
    return new RedisConnection(new Redis(url, { ...defaultRedisOptions, ...options }), true);
  }

  call(...args: Arg[]): Promise<Value> {
    const [name, ...rest] = args;
    return this.client.call(String(name), ...(rest as Array<string | Buffer | number>)) as Promise<Value>;
  }

  async pipeline(commands: Arg[][]): Promise<Array<Value | Error>> {
    if (commands.length === 0) return [];
    const results = await this.client.pipeline(commands.map((c) => ['call', ...c.map(toWire)])).exec();
    return (results ?? []).map(([err, value]) => (err ?? (value as Value)));
  }

  async multi(commands: Arg[][]): Promise<Value[]> {
    return execMulti(() => this.client.multi(commands.map((c) => ['call', ...c.map(toWire)])).exec());
  }

  async duplicate(): Promise<Connection> {
    return new RedisConnection(this.client.duplicate(), true);
  }

  onReconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    if (!this.ownsClient) return;
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}

function toWire(a: Arg): string | Buffer | number {
  return typeof a === 'bigint' ? a.toString() : a;
}

/**
 * Runs an ioredis MULTI/EXEC and unwraps it: any failed command (or an aborted EXEC) rejects the
 * whole transaction with TransactionError. Shared by the single-node and cluster adapters.
 */
export async function execMulti(exec: () => Promise<Array<[Error | null, unknown]> | null>): Promise<Value[]> {
  let results: Array<[Error | null, unknown]> | null;
  try {
    results = await exec();
  } catch (err) {
    throw new TransactionError((err as Error).message);
  }
  if (results === null) throw new TransactionError('EXEC aborted');
  const failed = results.find(([err]) => err !== null);
  if (failed) throw new TransactionError((failed[0] as Error).message);
  return results.map(([, value]) => value as Value);
}
