// What the collection commands share (HDEL, SREM ...): removing members one by one and
// deleting the key as soon as it is empty, as Redis does (it stops at that point).
import { NOTIFY_GENERIC, NOTIFY_HASH, NOTIFY_SET, NOTIFY_ZSET } from './keyspace-events.js';
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
    return removeMembers(ctx, key, value, argv.slice(2).map(keyOf), type);
  };
}

const REMOVE_EVENTS = { hash: [NOTIFY_HASH, 'hdel'], set: [NOTIFY_SET, 'srem'], zset: [NOTIFY_ZSET, 'zrem'] } as const;

function removeMembers(ctx: Context, key: string, value: MemberCollection, members: string[], type: 'hash' | 'set' | 'zset'): number {
  let removed = 0;
  for (const member of members) {
    if (value.delete(member)) removed++;
    if (value.size === 0) {
      ctx.db.delete(key);
      break;
    }
  }
  if (removed > 0) {
    ctx.modified(key);
    const [cls, event] = REMOVE_EVENTS[type];
    ctx.notify(cls, event, key);
    if (value.size === 0) ctx.notify(NOTIFY_GENERIC, 'del', key);
  }
  return removed;
}
