// Connection adapter over ioredis, for Redis, Valkey and sluice server. ioredis reconnects by
// itself; we give it an exponential backoff with jitter, keep commands queued while it is down
// (a worker should wait out a restart rather than fail), and report each re-established link
// so the worker can re-read its own pending entries.
import { Redis, type RedisOptions } from 'ioredis';
import type { Arg, Value } from './embedded.js';
import type { BlockingConnection } from './connection.js';
import { IoredisConnection, toCalls } from './ioredis-connection.js';

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

export class RedisConnection extends IoredisConnection<Redis> {
  /** This link's CLIENT ID, read at every (re)connect, for interrupt(). */
  private clientId: number | null = null;

  constructor(
    client: Redis,
    ownsClient = true,
    /** The connection this one was duplicated from: interrupt() sends CLIENT UNBLOCK on it. */
    private readonly parent: RedisConnection | null = null,
  ) {
    const protocol = (client.options as { protocol?: number }).protocol ?? 3;
    if (protocol !== 2) throw new TypeError('sluice needs RESP2 reply shapes: create the ioredis client with { protocol: 2 }');
    super(client, ownsClient);
    if (parent !== null) {
      const readId = (): void => void this.call('CLIENT', 'ID').then((id) => (this.clientId = Number(id)), () => {});
      readId();
      this.onReconnect(readId);
    }
  }

  static fromUrl(url: string, options: RedisOptions = {}): RedisConnection {
    return new RedisConnection(new Redis(url, { ...defaultRedisOptions, ...options }), true);
  }

  async pipeline(commands: Arg[][]): Promise<Array<Value | Error>> {
    if (commands.length === 0) return [];
    const results = await this.client.pipeline(toCalls(commands)).exec();
    return (results ?? []).map(([err, value]) => (err ?? (value as Value)));
  }

  async duplicate(): Promise<BlockingConnection> {
    return new RedisConnection(this.client.duplicate(), true, this);
  }

  async interrupt(): Promise<void> {
    // Closing the socket instead could lose a reply already on its way.
    if (this.parent === null || this.clientId === null) return;
    await this.parent.call('CLIENT', 'UNBLOCK', this.clientId).catch(() => {});
  }
}
