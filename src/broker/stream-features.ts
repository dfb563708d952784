// Which Redis 8 stream features the server behind a Connection has, so the broker uses them
// where they exist and keeps the Redis 7 way elsewhere. Probed by COMMAND INFO (null for an
// unknown command) rather than by version, since sluice reports a Redis 7 version but
// implements them, and a version says nothing about a proxy or a fork:
// - XNACK (Redis 8.8): release entries for immediate redelivery;
// - XREADGROUP ... CLAIM (8.4): claimed with XNACK's presence, or a version of 8.4 or later;
// - XADD IDMP (8.6): with XCFGSET's presence;
// - deletion policies KEEPREF | DELREF | ACKED on XADD/XTRIM (8.2): with XDELEX's presence.
import type { Connection, Value } from '../client/connection.js';
import { parseEntry, type StreamEntry } from './replies.js';

export interface StreamFeatures {
  readClaim: boolean;
  xnack: boolean;
  idmp: boolean;
  deletionPolicies: boolean;
}

export const REDIS7_FEATURES: StreamFeatures = { readClaim: false, xnack: false, idmp: false, deletionPolicies: false };

async function hasCommand(conn: Connection, name: string): Promise<boolean> {
  try {
    const reply = (await conn.call('COMMAND', 'INFO', name)) as Value[];
    return Array.isArray(reply) && reply[0] !== null && reply[0] !== undefined;
  } catch {
    return false;
  }
}

async function serverVersion(conn: Connection): Promise<number[]> {
  try {
    const info = String(await conn.call('INFO', 'server'));
    const m = /redis_version:(\d+)\.(\d+)/.exec(info);
    return m ? [Number(m[1]), Number(m[2])] : [0, 0];
  } catch {
    return [0, 0];
  }
}

export async function probeStreamFeatures(conn: Connection): Promise<StreamFeatures> {
  const [xnack, idmp, deletionPolicies, [major, minor]] = await Promise.all([
    hasCommand(conn, 'XNACK'),
    hasCommand(conn, 'XCFGSET'),
    hasCommand(conn, 'XDELEX'),
    serverVersion(conn),
  ]);
  const readClaim = xnack || major! > 8 || (major === 8 && minor! >= 4);
  return { readClaim, xnack, idmp, deletionPolicies };
}

/** An entry of an XREADGROUP ... CLAIM reply: claimed ones carry the deliveries before this one. */
export interface ClaimReadEntry {
  entry: StreamEntry;
  /** Set for claimed pending entries: how many times it was delivered before. */
  previousDeliveries: number | undefined;
}

/** XREADGROUP ... CLAIM reply (RESP2) → entries of the first stream, claimed ones first. */
export function parseClaimReadReply(raw: Value): ClaimReadEntry[] {
  if (raw === null) return [];
  const streams = raw as Value[];
  if (streams.length === 0) return [];
  const [, entries] = streams[0] as [string, Value[]];
  return (entries ?? []).map((e) => {
    const row = e as Value[];
    return { entry: parseEntry(row), previousDeliveries: row.length >= 4 ? Number(row[3]) : undefined };
  });
}
