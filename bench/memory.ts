// Memory measurement shared by the *-memory benchmarks: Redis's own accounting (INFO
// used_memory) around a fill over a pipelined client, and this process's heap after a full GC.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { startRedis } from './servers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function usedMemory(info: string): number {
  const m = /^used_memory:(\d+)/m.exec(info);
  if (m === null) throw new Error('no used_memory in INFO');
  return Number(m[1]);
}

/** Bytes redis-server's used_memory grows by while `fill` runs against a fresh server. */
export async function redisMemoryGrowth(fill: (redis: Redis) => Promise<void>): Promise<number> {
  const server = await startRedis();
  const redis = new Redis({ port: server.port, lazyConnect: true });
  try {
    await redis.connect();
    const before = usedMemory(await redis.info('memory'));
    await fill(redis);
    return usedMemory(await redis.info('memory')) - before;
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

/** heapUsed + external after two full collections. */
export function heapInUse(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}
