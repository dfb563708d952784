// connect(urlOrClient): the one entry point that turns whatever the user has into a Connection.
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { CLUSTER_URL_PREFIX, ClusterConnection } from './cluster-connection.js';
import type { Connection } from './connection.js';
import { EmbeddedDatabase, open } from './embedded.js';
import { EmbeddedConnection } from './embedded-connection.js';
import { RedisConnection } from './redis-connection.js';
import type { Logger } from '../logger.js';

export interface ConnectOptions extends RedisOptions {
  /** For `embedded:` targets: where the database's notices go (AOF loading); silent by default. */
  logger?: Logger;
}

export type Connectable = string | Redis | Cluster | EmbeddedDatabase | Connection;

/**
 * - a `redis://` / `rediss://` URL: a new ioredis client (reconnecting with backoff);
 * - `embedded:` (or `embedded:/path/to/dir` for persistence): a fresh in-process database,
 *   closed with the connection;
 * - an ioredis client or an EmbeddedDatabase you own: wrapped, not closed by close();
 * - `redis+cluster://host:port,host:port` (seed nodes) or an ioredis Cluster: Redis Cluster,
 *   see cluster-connection.ts (`options` apply to every node);
 * - a Connection: returned as is.
 */
export async function connect(target: Connectable, options: ConnectOptions = {}): Promise<Connection> {
  const { logger, ...redisOptions } = options;
  if (typeof target === 'string') {
    if (target.startsWith(CLUSTER_URL_PREFIX)) return ClusterConnection.fromUrl(target, { redisOptions });
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
  return target;
}
