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
// an arbitrary node, so interrupt() cannot CLIENT UNBLOCK the node a read blocks on: a worker on
// a cluster ends a blocking read at its BLOCK timeout on close().
import { Cluster } from 'ioredis';
import type { Arg, BlockingConnection, CloseConnectionOptions, Connection, Value } from './connection.js';
import { defaultClusterOptions } from './ioredis-defaults.js';
import { bindLink, IoredisLink, toCalls } from './ioredis-link.js';
import type { ClusterClientOptions, ClusterSeed, IoredisCluster } from './ioredis-types.js';
import { type HostPort, parseMultiHostUrl } from './multi-host-url.js';

export const CLUSTER_URL_PREFIX = 'redis+cluster://';

/** `redis+cluster://[user:pass@]h:p,h:p,...` → seed nodes plus credentials for every node. */
export function parseClusterUrl(url: string): { nodes: HostPort[]; username?: string; password?: string } {
  const { path: _ignored, ...seeds } = parseMultiHostUrl(CLUSTER_URL_PREFIX, url, 6379);
  return seeds;
}

/**
 * A Connection to a Redis Cluster (or Valkey Cluster), over ioredis's Cluster client.
 * `connect('redis+cluster://…')` or `connectCluster(seeds, options)` return one; construct it
 * yourself only to wrap an ioredis Cluster you configured and want close() to quit.
 */
export class ClusterConnection implements BlockingConnection {
  // TypeScript-private, not #private: wrappers made with Object.create(conn) or a Proxy work.
  private readonly link: IoredisLink<Cluster>;

  /** Wraps `cluster`; close() quits it unless `ownsClient` is false (as connect(cluster) does). */
  constructor(cluster: IoredisCluster, ownsClient = true) {
    const client = cluster as Cluster;
    this.link = new IoredisLink(client, ownsClient);
    bindLink(this, this.link);
    // A failover: the worker re-reads its pending entries, as after any reconnect.
    let ready = client.status === 'ready';
    client.on('ready', () => (ready = true));
    client.on('+node', () => {
      if (ready) this.link.reconnected();
    });
    client.on('node error', () => {});
  }

  /** A new ioredis Cluster client from seed nodes. */
  static fromNodes(nodes: ClusterSeed[], options: ClusterClientOptions = {}): ClusterConnection {
    const redisOptions = { ...defaultClusterOptions.redisOptions, ...options.redisOptions };
    return new ClusterConnection(new Cluster(nodes, { ...defaultClusterOptions, ...options, redisOptions }), true);
  }

  /** A new ioredis Cluster client from a `redis+cluster://[user:pass@]host:port,host:port` URL. */
  static fromUrl(url: string, options: ClusterClientOptions = {}): ClusterConnection {
    const { nodes, username, password } = parseClusterUrl(url);
    const auth = { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
    return ClusterConnection.fromNodes(nodes, { ...options, redisOptions: { ...auth, ...options.redisOptions } });
  }

  call(...args: Arg[]): Promise<Value> {
    return this.link.call(args);
  }

  /**
   * Pipelined (auto-pipelining batches them per node in one write); commands to one node are
   * sent in order, so per-slot order is kept. A pipeline with a WAIT (an XADD then WAIT, which
   * must reach the XADD's master) goes out as one ioredis cluster pipeline, routed by its key.
   */
  async pipeline(commands: Arg[][]): Promise<Array<Value | Error>> {
    if (commands.length === 0) return [];
    if (commands.some((c) => String(c[0]).toUpperCase() === 'WAIT')) {
      const results = await this.link.client.pipeline(toCalls(commands)).exec();
      return (results ?? []).map(([err, value]) => err ?? (value as Value));
    }
    const settled = await Promise.allSettled(commands.map((c) => this.call(...c)));
    return settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error)));
  }

  multi(commands: Arg[][]): Promise<Value[]> {
    return this.link.multi(commands);
  }

  async duplicate(): Promise<BlockingConnection> {
    return new ClusterConnection(this.link.client.duplicate(), true);
  }

  /** No CLIENT UNBLOCK through a cluster (see the top of this file): the read ends at its timeout. */
  async interrupt(): Promise<void> {}

  onReconnect(listener: () => void): () => void {
    return this.link.onReconnect(listener);
  }

  close(options?: CloseConnectionOptions): Promise<void> {
    return this.link.close(options);
  }
}

/**
 * Connects to a Redis Cluster from a `redis+cluster://` URL or a list of seed nodes, with
 * cluster-wide options (natMap, retry delays). Without those, `connect('redis+cluster://…')` does
 * the same (docs/connections.md).
 */
export async function connectCluster(target: string | ClusterSeed[], options: ClusterClientOptions = {}): Promise<Connection> {
  return typeof target === 'string' ? ClusterConnection.fromUrl(target, options) : ClusterConnection.fromNodes(target, options);
}
