// The commands that recreate one stream exactly, as Redis 7.0's rewriteStreamObject (aof.c):
// an XADD per entry (or XADD MAXLEN 0 for an empty stream, which still exists), XSETID with
// the last id, entries-added and max-deleted-id, then per group (in name order) XGROUP CREATE
// with its last id and ENTRIESREAD, and per consumer either XGROUP CREATECONSUMER (no pending
// entries) or one XCLAIM ... FORCE per pending entry, carrying its owner, delivery time and
// delivery count. Consumers' seen/active times are not kept, as in Redis. Redis 8 state
// follows: XNACKed (unowned) entries as XNACK ... FORCE, IDMP as XCFGSET + XIDMPRECORD.
import { INVALID_ENTRIES_READ } from '../engine/consumer-group.js';
import type { Stream } from '../engine/stream.js';
import { formatId, MAX_ID, MIN_ID } from '../engine/stream-id.js';

export type Argv = Array<Buffer | string>;

export function rewriteStream(key: Buffer, s: Stream): Argv[] {
  const out: Argv[] = [];
  if (s.length > 0) {
    for (const entry of s.range(MIN_ID, MAX_ID, 0, false)) {
      out.push(['XADD', key, formatId(entry.id), ...entry.fields]);
    }
  } else {
    // Adds and trims away one entry: the key then holds an empty stream.
    out.push(['XADD', key, 'MAXLEN', '0', '0-1', 'x', 'y']);
  }
  out.push(...rewriteStreamMeta(key, s));
  return out;
}

/**
 * The part after the entries: XSETID and the groups. Exported for the incremental rewrite,
 * which writes a big stream's entries in slices (src/persist/rewrite.ts).
 */
export function rewriteStreamMeta(key: Buffer, s: Stream): Argv[] {
  const out: Argv[] = [];
  out.push([
    'XSETID', key, formatId(s.lastId),
    'ENTRIESADDED', String(s.entriesAdded),
    'MAXDELETEDID', formatId(s.maxDeletedId),
  ]);
  const groups = [...s.groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const g of groups) {
    const entriesRead = g.entriesRead === INVALID_ENTRIES_READ ? '-1' : String(g.entriesRead);
    out.push(['XGROUP', 'CREATE', key, g.name, formatId(g.lastId), 'ENTRIESREAD', entriesRead]);
    for (const c of g.sortedConsumers()) {
      if (c.pel.size === 0) {
        out.push(['XGROUP', 'CREATECONSUMER', key, g.name, c.name]);
        continue;
      }
      for (const [id, nack] of c.pel.entries()) {
        out.push([
          'XCLAIM', key, g.name, c.name, '0', formatId(id),
          'TIME', String(nack.deliveryTime), 'RETRYCOUNT', String(nack.deliveryCount),
          'JUSTID', 'FORCE',
        ]);
      }
    }
    // Entries released by XNACK (owned by no consumer): XNACK ... FORCE recreates them
    // unowned, with delivery time 0 and their count (Redis 8.8 documents FORCE for this).
    for (const [id, nack] of g.unowned.pel.entries()) {
      out.push(['XNACK', key, g.name, 'FAIL', 'IDS', '1', formatId(id), 'RETRYCOUNT', String(nack.deliveryCount), 'FORCE']);
    }
  }
  if (s.idmp !== undefined) {
    // IDMP: the configuration (which also creates the empty state), then every remembered
    // pid/iid in recording order, so eviction order and expiry times come back the same.
    // The iids-added / iids-duplicates counters restart from what the records give.
    out.push(['XCFGSET', key, 'IDMP-DURATION', String(s.idmp.durationSec), 'IDMP-MAXSIZE', String(s.idmp.maxSize)]);
    for (const [pid, iids] of s.idmp.producers) {
      for (const [iid, rec] of iids) {
        out.push(['XIDMPRECORD', key, Buffer.from(pid, 'latin1'), Buffer.from(iid, 'latin1'), formatId(rec.id)]);
      }
    }
  }
  return out;
}
