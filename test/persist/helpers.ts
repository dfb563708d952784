// Shared helpers for the persistence tests: temp dirs, the AOF files, and a dump of every key
// through public commands (so "state is identical" is checked the way a client would see it).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedDatabase, open, type Value } from '../../src/client/embedded.js';
import type { FsyncPolicy } from '../../src/persist/writer.js';
import { pollFor, WAIT_LIMIT_MS } from '../support/wait.js';

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `sluice-${tag}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * For a crash simulated inside the test process: a dead process's lock is stale and taken over
 * by the next opener, but this process is alive, so the lock is removed as its death would.
 */
export function releaseLockOfDeadProcess(dir: string): void {
  rmSync(join(dir, 'sluice.lock'), { force: true });
}

export function aofDir(dir: string): string {
  return join(dir, 'appendonlydir');
}

/** The path of the (single) incr file, where new commands are appended. */
export function incrFile(dir: string): string {
  const names = readdirSync(aofDir(dir)).filter((n) => n.endsWith('.incr.aof'));
  if (names.length !== 1) throw new Error(`expected one incr file, found ${names.join(', ')}`);
  return join(aofDir(dir), names[0]!);
}

export function baseFiles(dir: string): string[] {
  return readdirSync(aofDir(dir)).filter((n) => n.includes('.base.'));
}

/** Every key of every database with its type, value and absolute expiry. */
export async function dump(db: EmbeddedDatabase): Promise<Record<string, unknown>> {
  const s = db.session();
  const out: Record<string, unknown> = {};
  try {
    for (let i = 0; i < 16; i++) {
      await s.call('SELECT', i);
      const keys = ((await s.call('KEYS', '*')) as string[]).sort();
      for (const key of keys) {
        const type = (await s.call('TYPE', key)) as string;
        let value: Value;
        if (type === 'string') value = await s.call('GET', key);
        else if (type === 'hash') value = await s.call('HGETALL', key);
        else if (type === 'list') value = await s.call('LRANGE', key, 0, -1);
        else if (type === 'set') value = ((await s.call('SMEMBERS', key)) as string[]).sort();
        else if (type === 'stream') value = scrubTimes(await s.call('XINFO', 'STREAM', key, 'FULL'));
        else value = type;
        out[`${i}:${key}`] = { type, value, expireAt: await s.call('PEXPIRETIME', key) };
      }
    }
  } finally {
    s.close();
  }
  return out;
}

/** Polls INFO persistence until a rewrite is neither running nor scheduled. */
export function waitForRewrite(db: EmbeddedDatabase): Promise<Record<string, string>> {
  return pollFor(async () => {
    const info = persistenceInfo((await db.call('INFO', 'persistence')) as string);
    return info.aof_rewrite_in_progress === '0' && info.aof_rewrite_scheduled === '0' ? info : undefined;
  }, 'the AOF rewrite to finish', WAIT_LIMIT_MS, 5);
}

export function persistenceInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/**
 * Blanks what Redis 7.0's AOF does not carry, so comparisons check everything else:
 * consumers' seen-time/active-time (wall-clock time of their last command), and a group's
 * entries-read/lag, which XREADGROUP propagates as XCLAIM ... LASTID without ENTRIESREAD
 * (redis-server 7.0.15 also replies nil for both after replaying such a log); and the node
 * counts (radix-tree-keys/nodes), which depend on the history of deletions, not on the data.
 */
const SCRUBBED = new Set(['seen-time', 'active-time', 'entries-read', 'lag', 'radix-tree-keys', 'radix-tree-nodes']);

export function scrubTimes(v: Value): Value {
  // Embedded replies give 64-bit integers as bigint where ioredis gives numbers.
  if (typeof v === 'bigint') return Number(v);
  if (!Array.isArray(v)) return v;
  const out: Value[] = [];
  for (let i = 0; i < v.length; i++) {
    out.push(scrubTimes(v[i]!));
    if (SCRUBBED.has(v[i] as string)) {
      out.push(0);
      i++;
    }
  }
  return out;
}

/** Runs `fn` with a fresh temporary directory, removed afterwards whatever happens. */
export async function withTempDir<T>(tag: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir(tag);
  try {
    return await fn(dir);
  } finally {
    removeDir(dir);
  }
}

/** Opens the directory as a fresh process would, dumps every key (see dump) and closes it. */
export async function reopenedDump(dir: string, appendfsync: FsyncPolicy): Promise<Record<string, unknown>> {
  const db = await open({ dir, appendfsync });
  try {
    return await dump(db);
  } finally {
    await db.close();
  }
}
