// What the collection commands share (HDEL, SREM ...): removing members one by one and
// deleting the key as soon as it is empty, as Redis does (it stops at that point).
import { keyOf } from '../engine/keyspace.js';
import { lookupTyped } from './typed-lookup.js';
import type { CommandHandler, Context } from './types.js';

/** A collection value addressed by member name (a hash's fields, a set's members). */
export interface MemberCollection {
  delete(member: string): boolean;
  readonly size: number;
}

/**
 * HDEL / SREM / ZREM key member [member ...]: the handler removing members from the collection
 * of `type` at the key (none when missing, WRONGTYPE for another type); replies how many were there.
 */
export function removeMembersCommand(type: 'hash' | 'set' | 'zset'): CommandHandler {
  return (ctx, argv) => {
    const key = keyOf(argv[1]!);
    const value = lookupTyped(ctx.db, key, type);
    if (value === undefined) return 0;
    return removeMembers(ctx, key, value, argv.slice(2).map(keyOf));
  };
}

function removeMembers(ctx: Context, key: string, value: MemberCollection, members: string[]): number {
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
