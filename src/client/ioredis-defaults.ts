// The options sluice gives the ioredis clients it creates: RESP2, reconnecting with backoff,
// commands queued while the link is down (a worker should wait out a restart rather than fail).
// Typed as ioredis's own options, so this module stays out of the package's declarations.
import type { ClusterOptions, RedisOptions } from 'ioredis';

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
