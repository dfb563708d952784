// What the single-node (ioredis Redis) and cluster (ioredis Cluster) adapters share: calls,
// MULTI unwrapping, reconnect notification and closing. RedisConnection and ClusterConnection
// each hold one in a private field and add what differs: pipelines and how a blocking read is
// interrupted. The ioredis client behind an adapter is reached through redisClientOf and
// clusterClientOf (the CLI, the dashboard): the adapters' declared types do not show it.
import type { Buffer } from 'node:buffer';
import type { Cluster, Redis } from 'ioredis';
import { type Arg, type CloseConnectionOptions, TransactionError, type Value } from './connection.js';
import type { ClusterConnection } from './cluster-connection.js';
import type { RedisConnection } from './redis-connection.js';

export class IoredisLink<C extends Redis | Cluster> {
  private readonly listeners = new Set<() => void>();
  private readyOnce = false;
  private closed = false;

  constructor(
    readonly client: C,
    /** Whether close() quits the client (false when the caller passed in their own client). */
    private readonly ownsClient: boolean,
  ) {
    if (client.status === 'ready') this.readyOnce = true;
    client.on('ready', () => {
      if (!this.readyOnce) {
        this.readyOnce = true;
        return;
      }
      this.reconnected();
    });
    // Without a listener ioredis prints every connection error; the broker handles them.
    client.on('error', () => {});
  }

  call(args: Arg[]): Promise<Value> {
    const [name, ...rest] = args;
    return (this.client.call as (...a: Array<string | Buffer | number>) => Promise<unknown>)(ioredisName(name!), ...rest.map(toWire)) as Promise<Value>;
  }

  async multi(commands: Arg[][]): Promise<Value[]> {
    return execMulti(() => this.client.multi(toCalls(commands)).exec());
  }

  onReconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the listeners the link was established again. */
  reconnected(): void {
    for (const l of this.listeners) l();
  }

  async close(options: CloseConnectionOptions = {}): Promise<void> {
    if (this.closed && !options.force) return;
    this.closed = true;
    this.listeners.clear();
    if (!this.ownsClient) return;
    // QUIT waits for the replies to what was sent: a server that stopped answering (frozen, or
    // cut off with the socket still open) would keep it waiting for ever.
    if (this.client.status === 'ready' && !options.force) {
      await this.client.quit().catch(() => this.client.disconnect());
      // A Sentinel client's failover detector keeps its Sentinel subscriptions after QUIT.
      if ((this.client.options as { sentinels?: unknown }).sentinels) this.client.disconnect();
    } else this.client.disconnect();
  }
}

const links = new WeakMap<RedisConnection | ClusterConnection, IoredisLink<Redis> | IoredisLink<Cluster>>();

/** Called by the adapters' constructors. */
export function bindLink(conn: RedisConnection, link: IoredisLink<Redis>): void;
export function bindLink(conn: ClusterConnection, link: IoredisLink<Cluster>): void;
export function bindLink(conn: RedisConnection | ClusterConnection, link: IoredisLink<Redis> | IoredisLink<Cluster>): void {
  links.set(conn, link);
}

/** The ioredis client a RedisConnection runs on. */
export function redisClientOf(conn: RedisConnection): Redis {
  return (links.get(conn) as IoredisLink<Redis>).client;
}

/** The ioredis Cluster client a ClusterConnection runs on. */
export function clusterClientOf(conn: ClusterConnection): Cluster {
  return (links.get(conn) as IoredisLink<Cluster>).client;
}

/**
 * A command's name as ioredis is to see it. ioredis remembers the database a SELECT chose (to
 * select it again after reconnecting) only when the name is exactly `select`: sent as `SELECT`,
 * a reconnected link silently went back to db 0 and wrote there. Other names keep their case:
 * in lower case, some (HGETALL, XREAD…) would get ioredis's reply transformers, and their replies
 * another shape than RESP2's.
 */
export function ioredisName(name: Arg): string {
  const text = String(name);
  return text.length === 6 && text.toLowerCase() === 'select' ? 'select' : text;
}

export function toWire(a: Arg): string | Buffer | number {
  return typeof a === 'bigint' ? a.toString() : a;
}

/** Commands in the shape ioredis's pipeline() and multi() take. */
export function toCalls(commands: Arg[][]): Array<Array<string | Buffer | number>> {
  return commands.map(([name, ...args]) => ['call', ioredisName(name!), ...args.map(toWire)]);
}

/**
 * Runs an ioredis MULTI/EXEC and unwraps it: any failed command (or an aborted EXEC) rejects the
 * whole transaction with TransactionError.
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
