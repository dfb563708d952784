// What the RDB tests between redis-server and `sluice server` share: a temporary directory for
// a test's files, and an ioredis client of a started server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Spawned } from '../support/processes.js';

/** Runs `fn` with a fresh temporary directory, removed after. */
export async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-rdb-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An ioredis client of the server on `port`, connected, failing fast instead of retrying. */
export async function client(port: number): Promise<Redis> {
  const c = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
  await c.connect();
  return c;
}

/** Runs `fn` with a client of a started server, then disconnects and stops the server. */
export async function using(server: Spawned & { port: number }, fn: (c: Redis) => Promise<void>): Promise<void> {
  const c = await client(server.port);
  try {
    await fn(c);
  } finally {
    c.disconnect();
    await server.stop();
  }
}
