// The ioredis client behind a `redis+sentinel://` Connection: it asks the Sentinels for the
// primary at each (re)connect and reconnects as soon as they announce a failover.
import { Redis, type RedisOptions } from 'ioredis';
import { defaultRedisOptions } from './ioredis-defaults.js';
import type { RedisClientOptions } from './ioredis-types.js';
import { parseSentinelUrl } from './sentinel-url.js';

/** A server that was the primary and is now a replica answers writes with READONLY. */
function reconnectOnReadOnly(err: Error): 2 | false {
  // 2: reconnect (asking the Sentinels for the primary again) and resend the failed command.
  return err.message.startsWith('READONLY') ? 2 : false;
}

/** An ioredis client that asks the Sentinels for the primary at each (re)connect. */
export function sentinelClient(url: string, options: RedisClientOptions | RedisOptions = {}): Redis {
  const { sentinels, name, ...target } = parseSentinelUrl(url);
  return new Redis({
    ...defaultRedisOptions,
    sentinels,
    name,
    // Subscribe to the Sentinels' +switch-master: reconnect at once rather than at the next error.
    failoverDetector: true,
    reconnectOnError: reconnectOnReadOnly,
    sentinelRetryStrategy: defaultRedisOptions.retryStrategy as (attempt: number) => number,
    ...target,
    ...options,
  });
}
