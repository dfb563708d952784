// SSCAN, as scanGenericCommand does it for sets. An intset is returned whole in one call with
// cursor 0, in ascending order, as Redis does for encodings that are not hash tables. A
// hashtable set is walked like SCAN walks the keyspace (scan-cursors.ts): the cursor names a
// parked live iterator over the members, so every member present for the whole scan is
// returned once; an unknown cursor restarts the scan.
import { memberScanOptions, scanStep } from './scan-cursors.js';
import { keyBytes } from '../engine/keyspace.js';
import type { SetValue } from '../engine/set.js';
import type { Reply } from '../resp/reply.js';
import { globMatch } from './glob.js';
import type { Context } from './types.js';

/** SSCAN's reply for the set at argv[1] (already parsed `cursor`, looked up `set`). */
export function sscanReply(ctx: Context, argv: Buffer[], cursor: string, set: SetValue | undefined): Reply {
  if (set === undefined) return ['0', []];
  // Options are read after the key lookup, as Redis does (a missing key ignores bad ones).
  const { count, pattern } = memberScanOptions(argv);
  const found: Reply[] = [];
  const emit = (member: string): void => {
    if (pattern === null || globMatch(pattern, member)) found.push(keyBytes(member));
  };
  if (set.isIntset) {
    for (const member of set.list()) emit(member);
    return ['0', found];
  }
  const next = scanStep(ctx.instance, cursor, set, () => set.members, count, emit);
  return [next, found];
}
