// `redis+sentinel://[user:pass@]sentinel:26379,sentinel:26380/<master name>[/<db>]`: a primary
// found through Redis Sentinel, so a Connection follows it across failovers. The credentials are
// the data servers' (the primary's and its replicas'); a Sentinel's own go in the options
// (sentinelUsername, sentinelPassword). Parsing only: the client is in sentinel-client.ts, so that
// the CLI checks a URL without loading ioredis.
import { type HostPort, parseMultiHostUrl } from './multi-host-url.js';

export const SENTINEL_URL_PREFIX = 'redis+sentinel://';

export interface SentinelTarget {
  sentinels: HostPort[];
  /** The name the Sentinels monitor the primary under (`sentinel monitor <name> …`). */
  name: string;
  db?: number;
  username?: string;
  password?: string;
}

export function parseSentinelUrl(url: string): SentinelTarget {
  const { nodes, path, ...auth } = parseMultiHostUrl(SENTINEL_URL_PREFIX, url, 26379);
  const [name, db, ...extra] = path;
  if (name === undefined) throw new TypeError(`no master name in ${url} (redis+sentinel://host:port,…/<name>)`);
  if (extra.length > 0 || (db !== undefined && !/^\d+$/.test(db))) throw new TypeError(`bad path in ${url}: /<name>[/<db>]`);
  return { sentinels: nodes, name, ...(db === undefined ? {} : { db: Number(db) }), ...auth };
}
