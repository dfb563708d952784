// Shared helpers for the persistence tests: temp dirs, the AOF files, and a dump of every key
// through public commands (so "state is identical" is checked the way a client would see it).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddedDatabase, Value } from '../../src/client/embedded.js';

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `sluice-${tag}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
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
        else if (type === 'set') value = ((await s.call('SMEMBERS', key)) as string[]).sort();
        else if (type === 'stream') value = [await s.call('XRANGE', key, '-', '+'), await s.call('XINFO', 'STREAM', key, 'FULL')];
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
export async function waitForRewrite(db: EmbeddedDatabase): Promise<Record<string, string>> {
  for (;;) {
    const info = persistenceInfo((await db.call('INFO', 'persistence')) as string);
    if (info.aof_rewrite_in_progress === '0' && info.aof_rewrite_scheduled === '0') return info;
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function persistenceInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}
