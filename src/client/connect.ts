// connect(target): the one entry point that turns whatever the user has into a Connection.
import { Cluster, Redis } from 'ioredis';
import { CLUSTER_URL_PREFIX, ClusterConnection } from './cluster-connection.js';
import type { Connection } from './connection.js';
import { EmbeddedDatabase, open } from './embedded.js';
import { EmbeddedConnection } from './embedded-connection.js';
import type { IoredisClient, IoredisCluster, RedisClientOptions } from './ioredis-types.js';
import { RedisConnection } from './redis-connection.js';
import { sentinelClient } from './sentinel-client.js';
import { SENTINEL_URL_PREFIX } from './sentinel-url.js';
import type { Logger } from '../logger.js';

/** For a URL: the options of the ioredis client it creates (of every node's, on a cluster). */
export interface ConnectOptions extends RedisClientOptions {
  /** For `embedded:` targets: where the database's notices go (AOF loading); silent by default. */
  logger?: Logger;
}

/** What connect() takes: a URL, an embedded database, an ioredis client, or a Connection. */
export type Connectable = string | EmbeddedDatabase | IoredisClient | IoredisCluster | Connection;

/**
 * The way to get a Connection, whatever the backend (see docs/connections.md):
 * - a `redis://` / `rediss://` URL: Redis, Valkey or `sluice server`, through a new ioredis
 *   client (reconnecting with backoff, commands queued while the link is down);
 * - `redis+cluster://host:port,host:port` (seed nodes): Redis Cluster (`options` apply to every
 *   node; for cluster-wide options, connectCluster);
 * - `redis+sentinel://host:26379,host:26380/<name>[/<db>]`: the primary the Sentinels monitor as
 *   `<name>` (Redis, Valkey or `sluice server`), followed across failovers;
 * - `embedded:` (or `embedded:/path/to/dir` for persistence): a fresh in-process database,
 *   closed with the connection;
 * - an EmbeddedDatabase (from open()), or an ioredis `Redis` or `Cluster` you created: wrapped,
 *   and not closed by the connection's close();
 * - a Connection: returned as is.
 *
 * Every call makes a new link: share one Connection between producers and workers (a worker
 * duplicates it for its blocking reads).
 */
export async function connect(target: Connectable, options: ConnectOptions = {}): Promise<Connection> {
  const { logger, ...redisOptions } = options;
  if (typeof target === 'string') {
    if (target.startsWith(CLUSTER_URL_PREFIX)) return ClusterConnection.fromUrl(target, { redisOptions });
    if (target.startsWith(SENTINEL_URL_PREFIX)) return new RedisConnection(sentinelClient(target, redisOptions), true);
    if (target.startsWith('embedded:')) {
      const dir = target.slice('embedded:'.length);
      const db = await open({ ...(dir === '' ? {} : { dir }), ...(logger ? { logger } : {}) });
      return new EmbeddedConnection(db, true);
    }
    // No PING here: commands queue until the link is up, so a server that is still starting
    // (or restarting) is waited for rather than reported as an error.
    return RedisConnection.fromUrl(target, redisOptions);
  }
  if (target instanceof Cluster) return new ClusterConnection(target, false);
  if (target instanceof Redis) return new RedisConnection(target, false);
  if (target instanceof EmbeddedDatabase) return new EmbeddedConnection(target, false);
  return target as Connection;
}
