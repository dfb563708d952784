// Folds the writes of one MULTI into fewer commands: inside a transaction nobody sees the steps,
// so a HSET on a key merges into an earlier HSET on that key (a fast job's start and its
// completion become one write to its record) and plain ZADDs on one key into one (a batch's
// completed-index entries). Each command costs the client as much as a short job's own work
// (ioredis builds, queues and answers every one), so a batch of N short jobs goes from 5N+1
// commands to 3N+2.
//
// A merge moves the later command's effect back to the earlier one's place, which is sound only
// when nothing between them touches the key: a command naming the key (a DEL of a record, an
// XACK of the stream) closes it for merging, and a command whose keys this file cannot tell
// closes every key. Replies change shape (fewer of them), so only a caller that does not read
// the MULTI's replies one by one may fold (the acker only checks that it applied).
import type { Arg } from '../../client/connection.js';

/** Commands whose only key is their first argument. */
const FIRST_ARG_KEY = new Set(['HSET', 'ZADD', 'XADD', 'XACK', 'RPUSH', 'LTRIM', 'SET', 'HDEL', 'ZREM', 'EXPIRE', 'PEXPIRE']);

export function coalesce(commands: Arg[][]): Arg[][] {
  const out: Arg[][] = [];
  /** Key -> the HSET (or plain ZADD) in `out` that later ones of its kind on that key join. */
  const open = new Map<string, { name: string; command: Arg[] }>();
  for (const command of commands) {
    const name = String(command[0]).toUpperCase();
    const key = command.length > 1 ? String(command[1]) : '';
    if (foldable(name, command)) {
      const joined = open.get(key);
      if (joined !== undefined && joined.name === name) {
        if (name === 'HSET') joinHset(joined.command, command);
        else for (let i = 2; i < command.length; i++) joined.command.push(command[i]!);
        continue;
      }
      const copy = [...command];
      out.push(copy);
      open.set(key, { name, command: copy });
      continue;
    }
    out.push(command);
    if (FIRST_ARG_KEY.has(name)) open.delete(key);
    else if (name === 'DEL' || name === 'UNLINK') for (let i = 1; i < command.length; i++) open.delete(String(command[i]));
    else open.clear();
  }
  return out;
}

/**
 * Adds a later HSET's pairs to an earlier one: a field the earlier one sets takes the later
 * value where it is (HSET updates a field in place, so the hash ends the same), others follow.
 * A fast job's start and completion both set `state` and `attempts`: sent once each.
 */
function joinHset(into: Arg[], later: Arg[]): void {
  const fieldsBefore = into.length;
  for (let i = 2; i < later.length; i += 2) {
    const field = String(later[i]);
    let at = -1;
    for (let j = 2; j < fieldsBefore; j += 2) {
      if (String(into[j]) === field) {
        at = j;
        break;
      }
    }
    if (at === -1) into.push(later[i]!, later[i + 1]!);
    else into[at + 1] = later[i + 1]!;
  }
}

/** `HSET key field value [field value …]`, or a plain ZADD: what later ones on the key may join. */
function foldable(name: string, command: Arg[]): boolean {
  if (command.length < 4 || command.length % 2 !== 0) return false;
  return name === 'HSET' || (name === 'ZADD' && isPlainZadd(command));
}

/** `ZADD key score member [score member …]` without flags (NX, XX, GT, LT, CH, INCR). */
function isPlainZadd(command: Arg[]): boolean {
  for (let i = 2; i < command.length; i += 2) {
    const score = command[i]!;
    if (typeof score === 'number' || typeof score === 'bigint') continue;
    if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^[-+]?inf$/i.test(String(score))) return false;
  }
  return true;
}
