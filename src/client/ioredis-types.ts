// What sluice's API takes of ioredis, declared here rather than imported from it: sluice's
// public declarations must not import ioredis's, which a strict consumer cannot compile without
// skipLibCheck (they import 'redis-errors', which ships no types: TS7016). The options are passed
// to ioredis as they are. An ioredis option not listed here: create the client yourself and
// pass it to connect().
import type { ConnectionOptions } from 'node:tls';

/** An ioredis `Redis` client (`new Redis(...)` from ioredis), created with `{ protocol: 2 }`. */
export interface IoredisClient {
  readonly status: string;
  /** Only a single-server client has one: it tells a `Redis` apart from a `Cluster`. */
  readonly mode: string;
  duplicate(): unknown;
}

/** An ioredis `Cluster` client (`new Cluster(...)` from ioredis). */
export interface IoredisCluster {
  readonly status: string;
  readonly slots: unknown[];
  nodes(role?: 'all' | 'master' | 'slave'): unknown[];
  duplicate(): unknown;
}

/** A cluster node to start from: any one reachable node is enough, the others are discovered. */
export interface ClusterSeed {
  host: string;
  port: number;
}

/** The options of each link to a server: credentials, TLS, timeouts. */
export interface RedisLinkOptions {
  username?: string;
  password?: string;
  /** The logical database to SELECT (not on a cluster). */
  db?: number;
  /** Connect over TLS with these options (a `rediss://` URL turns it on with the defaults). */
  tls?: ConnectionOptions;
  /** Milliseconds to establish the link before it is retried. */
  connectTimeout?: number;
  /** Milliseconds a command may wait for its reply before it rejects (unset: no limit). */
  commandTimeout?: number;
  /** Milliseconds of socket inactivity (while replies are due) before the link is dropped. */
  socketTimeout?: number;
  /** TCP keep-alive initial delay in milliseconds (0 turns keep-alive off). */
  keepAlive?: number;
  noDelay?: boolean;
  /** Sent as CLIENT SETNAME: what CLIENT LIST and the dashboard show. */
  connectionName?: string;
  /** 4 or 6 to resolve the host to that IP family only. */
  family?: number;
}

/** The options of the client sluice creates for one server (a `redis://` URL). */
export interface RedisClientOptions extends RedisLinkOptions {
  /**
   * Milliseconds to wait before reconnect attempt `attempt` (1-based); null stops reconnecting.
   * Default: 50 ms doubling up to 2 s, with jitter.
   */
  retryStrategy?: (attempt: number) => number | null;
  /** For a `redis+sentinel://` URL: the Sentinels' own credentials (the URL's are the servers'). */
  sentinelUsername?: string;
  sentinelPassword?: string;
}

/** The options of the client sluice creates for a Redis Cluster. */
export interface ClusterClientOptions {
  /** The options of the link to every node. */
  redisOptions?: RedisLinkOptions;
  /** Milliseconds before reconnect attempt `attempt` when no node answers; null gives up. */
  clusterRetryStrategy?: (attempt: number, reason?: Error) => number | null;
  /** Redirections (MOVED, ASK) a command follows before it fails. Default 64. */
  maxRedirections?: number;
  /** Milliseconds before a command is retried after its node dropped. Default 200. */
  retryDelayOnFailover?: number;
  /** Milliseconds before a command is retried after CLUSTERDOWN. Default 200. */
  retryDelayOnClusterDown?: number;
  /** Milliseconds before a command is retried after TRYAGAIN. Default 100. */
  retryDelayOnTryAgain?: number;
  /** Milliseconds to wait for the slot map (CLUSTER SLOTS). */
  slotsRefreshTimeout?: number;
  /** Milliseconds between slot map refreshes. */
  slotsRefreshInterval?: number;
  /** Addresses the nodes announce (`host:port`) → where to reach them, for NAT or containers. */
  natMap?: Record<string, { host: string; port: number }>;
}
