// Connection adapter over ioredis's Cluster, for Redis Cluster and Valkey Cluster. ioredis keeps
// the slot map, follows MOVED (refreshing the map) and ASK (one-off redirect), and after a master
// fails it retries until the replica that took over answers; we keep commands queued meanwhile
// (maxRetriesPerRequest: null), so a worker waits out a failover rather than failing.
//
//   connectCluster('redis+cluster://127.0.0.1:7000,127.0.0.1:7001')   seeds; any one node will do
//   connectCluster([{ host: '127.0.0.1', port: 7000 }], clusterOptions)
//
// Cluster rules the broker relies on: a MULTI's keys must share a slot (partition streams and
// their dead-letter streams share a hash tag, see broker/partitions.ts). Keyless commands go to
// an arbitrary node, so CLIENT ID / CLIENT UNBLOCK are refused here: a worker on a cluster ends a
// blocking read at its BLOCK timeout on close() instead of unblocking some other node's client.
import { Cluster, type ClusterNode, type ClusterOptions } from 'ioredis';
import type { Arg, Value } from './embedded.js';
import type { Connection } from './connection.js';
import { defaultRedisOptions, execMulti, reconnectDelay } from './redis-connection.js';

export const CLUSTER_URL_PREFIX = 'redis+cluster://';

/** `redis+cluster://[user:pass@]h:p,h:p,...` → seed nodes plus credentials for every node. */
export function parseClusterUrl(url: string): { nodes: Array<{ host: string; port: number }>; username?: string; password?: string } {
  if (!url.startsWith(CLUSTER_URL_PREFIX)) throw new TypeError(`cluster URL must start with ${CLUSTER_URL_PREFIX}`);
  let rest = url.slice(CLUSTER_URL_PREFIX.length).replace(/\/.*$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    const cred = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = cred.indexOf(':');
    if (colon === -1) password = decodeURIComponent(cred);
    else {
      username = decodeURIComponent(cred.slice(0, colon)) || undefined;
      password = decodeURIComponent(cred.slice(colon + 1));
    }
  }
  const nodes = rest.split(',').filter((s) => s !== '').map((hp) => {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hp);
    if (!m) throw new TypeError(`bad cluster node "${hp}" in ${url}`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port: m[2] === undefined ? 6379 : Number(m[2]) };
  });
  if (nodes.length === 0) throw new TypeError(`no nodes in ${url}`);
  return { nodes, ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
}

export const defaultClusterOptions: ClusterOptions = {
  redisOptions: {
    protocol: defaultRedisOptions.protocol,
    maxRetriesPerRequest: null,
  },
  clusterRetryStrategy: reconnectDelay,
  // After a node drops, commands wait this long before the slot map is refreshed and they are
  // retried: about the time a replica needs to be promoted (cluster-node-timeout plus election).
  retryDelayOnFailover: 200,
  retryDelayOnClusterDown: 200,
  retryDelayOnTryAgain: 100,
  // Redirections are cheap and a failover can take several: keep retrying rather than failing.
  maxRedirections: 64,
  enableOfflineQueue: true,
  enableAutoPipelining: true,
};

export class ClusterConnection implements Connection {
  readonly kind = 'redis' as const;
  private readonly listeners = new Set<() => void>();
  private readyOnce = false;
  private closed = false;

  constructor(
    readonly cluster: Cluster,
    /** Whether close() quits the client (false when the caller passed in their own Cluster). */
    private readonly ownsClient = true,
  ) {
    if (cluster.status === 'ready') this.readyOnce = true;
    const onReady = (): void => {
      if (!this.readyOnce) {
        this.readyOnce = true;
        return;
      }
      for (const l of this.listeners) l();
    };
    cluster.on('ready', onReady);
    // A failover: the worker re-reads its pending entries, as after any reconnect.
    cluster.on('+node', () => {
      if (this.readyOnce) for (const l of this.listeners) l();
    });
    cluster.on('error', () => {});
    cluster.on('node error', () => {});
  }

  static fromNodes(nodes: ClusterNode[], options: ClusterOptions = {}): ClusterConnection {
    const redisOptions = { ...defaultClusterOptions.redisOptions, ...options.redisOptions };
    return new ClusterConnection(new Cluster(nodes, { ...defaultClusterOptions, ...options, redisOptions }), true);
  }

  static fromUrl(url: string, options: ClusterOptions = {}): ClusterConnection {
    const { nodes, username, password } = parseClusterUrl(url);
    const auth = { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
    return ClusterConnection.fromNodes(nodes, { ...options, redisOptions: { ...auth, ...options.redisOptions } });
  }

  call(...args: Arg[]): Promise<Value> {
    const [name, ...rest] = args;
    const cmd = String(name).toUpperCase();
    if (cmd === 'CLIENT' && ['ID', 'UNBLOCK'].includes(String(rest[0]).toUpperCase())) {
      return Promise.reject(new Error(`ERR CLIENT ${String(rest[0]).toUpperCase()} is not routable through a cluster connection`));
    }
    return this.cluster.call(String(name), ...(rest.map(toWire) as Array<string | Buffer | number>)) as Promise<Value>;
  }

  /**
   * Pipelined (auto-pipelining batches them per node in one write); commands to one node are
   * sent in order, so per-slot order is kept. A pipeline whose commands share one slot (e.g. an
   * XADD then WAIT) goes out as one ioredis cluster pipeline, so keyless commands in it reach
   * the same node as the key.
   */
  async pipeline(commands: Arg[][]): Promise<Array<Value | Error>> {
    if (commands.length === 0) return [];
    if (commands.some((c) => String(c[0]).toUpperCase() === 'WAIT')) {
      const results = await this.cluster.pipeline(commands.map((c) => ['call', ...c.map(toWire)])).exec();
      return (results ?? []).map(([err, value]) => err ?? (value as Value));
    }
    const settled = await Promise.allSettled(commands.map((c) => this.call(...c)));
    return settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error)));
  }

  async multi(commands: Arg[][]): Promise<Value[]> {
    return execMulti(() => this.cluster.multi(commands.map((c) => ['call', ...c.map(toWire)])).exec());
  }

  async duplicate(): Promise<Connection> {
    return new ClusterConnection(this.cluster.duplicate(), true);
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
    if (this.cluster.status === 'ready') await this.cluster.quit().catch(() => this.cluster.disconnect());
    else this.cluster.disconnect();
  }
}

/** Connects to a Redis Cluster from a `redis+cluster://` URL or a list of seed nodes. */
export async function connectCluster(target: string | ClusterNode[], options: ClusterOptions = {}): Promise<Connection> {
  return typeof target === 'string' ? ClusterConnection.fromUrl(target, options) : ClusterConnection.fromNodes(target, options);
}

function toWire(a: Arg): string | Buffer | number {
  return typeof a === 'bigint' ? a.toString() : a;
}
