// What the collection commands share (HDEL, SREM ...): removing members one by one and
// deleting the key as soon as it is empty, as Redis does (it stops at that point).
import type { Context } from './types.js';

/** A collection value addressed by member name (a hash's fields, a set's members). */
export interface MemberCollection {
  delete(member: string): boolean;
  readonly size: number;
}

/** Removes `members` from the collection at `key`; returns how many were there. */
export function removeMembers(ctx: Context, key: string, value: MemberCollection, members: string[]): number {
  let removed = 0;
  for (const member of members) {
    if (value.delete(member)) removed++;
    if (value.size === 0) {
      ctx.db.delete(key);
      break;
    }
  }
  if (removed > 0) ctx.modified(key);
  return removed;
}
