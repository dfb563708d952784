// Redis 8.2's deletion policies towards consumer groups' PELs (XDELEX, XACKDEL, XADD/XTRIM):
// KEEPREF deletes entries and leaves PEL references dangling (the Redis 7 behaviour), DELREF
// also removes every group's reference, ACKED deletes only entries no group still needs.
import type { Stream } from './stream.js';
import { compareIds, type StreamId } from './stream-id.js';

export type RefPolicy = 'keepref' | 'delref' | 'acked';

export function policyKeyword(opt: string): RefPolicy | undefined {
  return opt === 'keepref' || opt === 'delref' || opt === 'acked' ? opt : undefined;
}

/**
 * True when some group still needs the entry: it is pending in the group's PEL, or the group
 * has not read that far yet (it could still deliver it). A stream without groups references
 * nothing, so ACKED deletes freely there (as Redis's streamEntryIsReferenced).
 */
export function isReferenced(s: Stream, id: StreamId): boolean {
  for (const g of s.groups.values()) {
    if (g.pel.has(id)) return true;
    if (compareIds(id, g.lastId) > 0) return true;
  }
  return false;
}

/** DELREF: removes the id from every group's PEL (and its owner's); returns how many held it. */
export function dropReferences(s: Stream, id: StreamId): number {
  let dropped = 0;
  for (const g of s.groups.values()) if (g.ack(id)) dropped++;
  return dropped;
}

/** The ids pending in any group that are live entries now (DELREF trimming checks which went away). */
export function livePendingIds(s: Stream): StreamId[] {
  const out: StreamId[] = [];
  for (const g of s.groups.values()) {
    for (const [id] of g.pel.entries()) if (s.get(id) !== undefined) out.push(id);
  }
  return out;
}
