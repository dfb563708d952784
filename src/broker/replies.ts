// Parsing of stream command replies (RESP2 shapes, as every Connection returns them).
import type { Value } from '../client/connection.js';

export interface StreamEntry {
  id: string;
  /** Null when the entry was deleted while pending (XREADGROUP history, XCLAIM in Redis 6). */
  fields: Record<string, string> | null;
  /** Field/value pairs in stream order, for copying an entry verbatim. */
  pairs: string[];
}

export function parseEntry(raw: Value): StreamEntry {
  const [id, list] = raw as [string, Value[] | null];
  if (list === null || list === undefined) return { id: String(id), fields: null, pairs: [] };
  const fields: Record<string, string> = {};
  const pairs = list.map(String);
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
  return { id: String(id), fields, pairs };
}

export function parseEntries(raw: Value): StreamEntry[] {
  return raw === null ? [] : (raw as Value[]).map(parseEntry);
}

/** XREAD/XREADGROUP reply → entries of the first (only) stream. */
export function parseReadReply(raw: Value): StreamEntry[] {
  if (raw === null) return [];
  const streams = raw as Value[];
  if (streams.length === 0) return [];
  const [, entries] = streams[0] as [string, Value];
  return parseEntries(entries);
}

/** A flat [k1, v1, k2, v2...] reply (XINFO under RESP2) → object. */
export function pairsToObject(raw: Value): Record<string, Value> {
  const out: Record<string, Value> = {};
  const list = raw as Value[];
  for (let i = 0; i + 1 < list.length; i += 2) out[String(list[i])] = list[i + 1]!;
  return out;
}

/** Compares stream ids "ms-seq" numerically. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  const d = BigInt(am!) - BigInt(bm!);
  if (d !== 0n) return d < 0n ? -1 : 1;
  const e = BigInt(as ?? '0') - BigInt(bs ?? '0');
  return e === 0n ? 0 : e < 0n ? -1 : 1;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A NOSCRIPT error: the server does not have the script (a restart, another node); nothing ran. */
export function isNoScript(err: unknown): boolean {
  return errorMessage(err).startsWith('NOSCRIPT');
}
