// Finds the streams to show: SCAN ... TYPE stream over the whole keyspace, on a Redis Cluster
// over every master (a SCAN reaches one node only). Capped, so a huge keyspace cannot make
// one page load walk millions of keys.
import type { Redis } from 'ioredis';
import { ClusterConnection } from '../client/cluster-connection.js';
import { clusterClientOf } from '../client/ioredis-link.js';
import type { Connection, Value } from '../client/connection.js';

type Scanner = (cursor: string) => Promise<[string, string[]]>;

const SCAN_COUNT = 1000;

function scanner(call: (...args: Array<string | number>) => Promise<unknown>): Scanner {
  return async (cursor) => {
    const [next, keys] = (await call('SCAN', cursor, 'COUNT', SCAN_COUNT, 'TYPE', 'stream')) as [Value, Value[]];
    return [String(next), keys.map(String)];
  };
}

function scannersOf(conn: Connection): Scanner[] {
  if (conn instanceof ClusterConnection) {
    return clusterClientOf(conn).nodes('master').map((node: Redis) => scanner((...args) => node.call(String(args[0]), ...args.slice(1))));
  }
  return [scanner((...args) => conn.call(...args))];
}

/** Names of streams, sorted, at most `limit` (the result says whether it stopped there). */
export async function findStreams(conn: Connection, limit: number): Promise<{ names: string[]; truncated: boolean }> {
  const found = new Set<string>();
  for (const scan of scannersOf(conn)) {
    let cursor = '0';
    do {
      const [next, keys] = await scan(cursor);
      for (const k of keys) found.add(k);
      cursor = next;
      if (found.size >= limit) {
        const names = [...found].sort().slice(0, limit);
        return { names, truncated: true };
      }
    } while (cursor !== '0');
  }
  return { names: [...found].sort(), truncated: false };
}
