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
  /** Key -> the HSET (or plain ZADD) in `out` that later ones on that key join. */
  const openHset = new Map<string, Arg[]>();
  const openZadd = new Map<string, Arg[]>();
  for (const command of commands) {
    const name = String(command[0]).toUpperCase();
    const key = command.length > 1 ? String(command[1]) : '';
    if (name === 'HSET' && command.length >= 4 && command.length % 2 === 0) {
      const open = openHset.get(key);
      if (open !== undefined) {
        for (let i = 2; i < command.length; i++) open.push(command[i]!);
        continue;
      }
      closeKey(key, openHset, openZadd);
      const copy = [...command];
      out.push(copy);
      openHset.set(key, copy);
      continue;
    }
    if (name === 'ZADD' && command.length >= 4 && command.length % 2 === 0 && isPlainZadd(command)) {
      const open = openZadd.get(key);
      if (open !== undefined) {
        for (let i = 2; i < command.length; i++) open.push(command[i]!);
        continue;
      }
      closeKey(key, openHset, openZadd);
      const copy = [...command];
      out.push(copy);
      openZadd.set(key, copy);
      continue;
    }
    out.push(command);
    if (FIRST_ARG_KEY.has(name)) closeKey(key, openHset, openZadd);
    else if (name === 'DEL' || name === 'UNLINK') for (let i = 1; i < command.length; i++) closeKey(String(command[i]), openHset, openZadd);
    else {
      openHset.clear();
      openZadd.clear();
    }
  }
  return out;
}

function closeKey(key: string, ...maps: Array<Map<string, Arg[]>>): void {
  for (const m of maps) m.delete(key);
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
