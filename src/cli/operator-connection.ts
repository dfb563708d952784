// The connection of a one-shot operator command (stats, dlq, pause). Kept apart from errors.ts,
// which every subcommand loads, so that `sluice server` does not load ioredis (~10 MB of RSS).
import { Redis } from 'ioredis';
import type { Connection } from '../client/connection.js';
import { defaultRedisOptions } from '../client/ioredis-defaults.js';
import { RedisConnection } from '../client/redis-connection.js';
import { sentinelClient } from '../client/sentinel-client.js';
import { SENTINEL_URL_PREFIX } from '../client/sentinel-url.js';
import { checkSentinelUrl, checkUrl } from './errors.js';

/**
 * Connects for a one-shot operator command: unlike the broker's connection (which waits out
 * restarts), a refused or dropped link fails at once, so the CLI exits with one line.
 */
export async function connectOrFail(url: string): Promise<Connection> {
  const failFast = {
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    lazyConnect: true,
    connectTimeout: 5000,
  };
  const client = url.startsWith(SENTINEL_URL_PREFIX)
    ? sentinelClient(checkSentinelUrl(url), failFast)
    : new Redis(checkUrl(url), { ...defaultRedisOptions, ...failFast });
  // connect() rejects with a bare "Connection is closed."; the socket's error says why.
  let socketError: Error | null = null;
  client.on('error', (err: Error) => { socketError ??= err; });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw socketError ?? err;
  }
  return new RedisConnection(client, true);
}
