// IDMP (Redis 8.6 idempotent production): per stream, for each producer id (pid) the most
// recent idempotent ids (iid) it used and the stream id each one produced, so that an XADD
// resent after a lost reply gets the original id instead of adding a duplicate.
//
// - Each pid keeps at most `maxSize` iids (oldest evicted first) and an iid is forgotten
//   `durationSec` seconds after it was recorded (XCFGSET IDMP-DURATION / IDMP-MAXSIZE).
// - XADD records with the ms part of the id it produced as the record's time: IDMP only works
//   with "*" ids, so that is the time of the XADD, and replaying the AOF (XADD + XIDMPRECORD)
//   rebuilds the same expiry times. A client's own XIDMPRECORD records at the current time.
// - Expiry scans each producer's records from the oldest and stops at the first live one, so
//   a record is never forgotten early (the documented guarantee), at worst a little late.
// - Keys are latin1 strings of the raw bytes (as keyspace keys).
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { StreamId } from './stream-id.js';

export const IDMP_DEFAULT_DURATION = 100;
export const IDMP_DEFAULT_MAXSIZE = 100;
export const IDMP_MAX_DURATION = 86400;
export const IDMP_MAX_MAXSIZE = 10000;

export interface IdmpRecord {
  readonly id: StreamId;
  /** When it was recorded, ms since the epoch. */
  readonly at: number;
}

export class IdmpState {
  durationSec = IDMP_DEFAULT_DURATION;
  maxSize = IDMP_DEFAULT_MAXSIZE;
  /** iids that were recorded (XINFO iids-added). */
  iidsAdded = 0;
  /** XADDs answered with an existing id (XINFO iids-duplicates). */
  iidsDuplicates = 0;
  /** pid -> (iid -> record), each inner map in recording order (oldest first). */
  readonly producers = new Map<string, Map<string, IdmpRecord>>();

  /**
   * XCFGSET: new limits. Every producer's map is cleared when a value changes (Redis 8.6: setting
   * the same values keeps the history, so repeating a configuration at start-up is harmless).
   * Returns whether anything changed.
   */
  configure(durationSec: number, maxSize: number): boolean {
    if (durationSec === this.durationSec && maxSize === this.maxSize) return false;
    this.durationSec = durationSec;
    this.maxSize = maxSize;
    this.producers.clear();
    return true;
  }

  /** Drops the iids older than the duration. Records are in time order, so each map is cut from its head. */
  expire(now: number): void {
    const horizon = now - this.durationSec * 1000;
    for (const [pid, iids] of this.producers) {
      for (const [iid, rec] of iids) {
        if (rec.at > horizon) break;
        iids.delete(iid);
      }
      if (iids.size === 0) this.producers.delete(pid);
    }
  }

  /** The stream id recorded for pid/iid, if it is still remembered. */
  lookup(pid: string, iid: string): StreamId | undefined {
    return this.producers.get(pid)?.get(iid)?.id;
  }

  /** Records pid/iid -> id, evicting the producer's oldest iids beyond maxSize. */
  record(pid: string, iid: string, id: StreamId, at: number = Number(id.ms)): void {
    let iids = this.producers.get(pid);
    if (iids === undefined) {
      iids = new Map();
      this.producers.set(pid, iids);
    }
    iids.delete(iid);
    iids.set(iid, { id, at });
    this.iidsAdded++;
    while (iids.size > this.maxSize) iids.delete(iids.keys().next().value!);
  }

  iidsTracked(): number {
    let n = 0;
    for (const iids of this.producers.values()) n += iids.size;
    return n;
  }
}

/**
 * IDMPAUTO's iid: Redis XORs XXH128(name || value) over the pairs, so it does not depend on
 * their order. Node has no XXH128; sluice XORs the first 16 bytes of SHA-256 of each pair,
 * which has the same properties. The iid is internal: it is propagated explicitly
 * (XIDMPRECORD), so replay never recomputes it.
 */
export function autoIid(fields: Buffer[]): Buffer {
  const out = Buffer.alloc(16);
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const h = createHash('sha256');
    h.update(fields[i]!);
    h.update(fields[i + 1]!);
    const d = h.digest();
    for (let b = 0; b < 16; b++) out[b]! ^= d[b]!;
  }
  return out;
}
