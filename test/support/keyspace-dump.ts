// Everything under a key prefix, by type, the prefix removed from the names: what two runs of
// the same writes (a MULTI and a script, two backends) must agree on.
import type { Connection, Value } from '../../src/client/connection.js';

/** `stream` reads a stream key (default: its entries); other types by their whole contents. */
export async function dumpPrefix(conn: Connection, prefix: string, stream: (key: string, name: string) => Promise<unknown> = (key) => conn.call('XRANGE', key, '-', '+')): Promise<Record<string, unknown>> {
  const keys = ((await conn.call('KEYS', `${prefix}*`)) as Value[]).map(String).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const type = String(await conn.call('TYPE', key));
    const name = key.slice(prefix.length);
    if (type === 'hash') out[name] = await conn.call('HGETALL', key);
    else if (type === 'zset') out[name] = await conn.call('ZRANGE', key, 0, -1, 'WITHSCORES');
    else if (type === 'list') out[name] = await conn.call('LRANGE', key, 0, -1);
    else if (type === 'string') out[name] = await conn.call('GET', key);
    else if (type === 'stream') out[name] = await stream(key, name);
    else out[name] = type;
  }
  return out;
}
