// A MULTI's commands as one script call, on Redis and Valkey (where JobWriteSender found scripts
// cheaper than commands: job-write-sender.ts): the client encodes one command with one JSON text
// and decodes one reply, not a command, a QUEUED and a reply per command. The script runs the
// commands as EXEC would (in order, nothing between them, a failing one not stopping the others)
// and answers every command's reply, as EXEC does.
//
// sluice (embedded, `sluice server`) keeps MULTI: its Lua costs more than its commands.
import { createHash } from 'node:crypto';
import type { Arg, Connection, Value } from '../client/connection.js';
import { TransactionError } from '../client/connection.js';
import { errorMessage, isNoScript } from './replies.js';
import { rowsJson } from './lua-json.js';

/** KEYS[1]: a key of the slot every command writes in. ARGV[1]: JSON [[command, arg…], …]. Returns the commands' replies. */
export const MULTI_SCRIPT = `local commands = cjson.decode(ARGV[1])
local replies = {}
for i = 1, #commands do
  replies[i] = redis.pcall(unpack(commands[i]))
end
return replies`;

export const MULTI_SHA1 = createHash('sha1').update(MULTI_SCRIPT).digest('hex');

/** The script call running `commands`; null when JSON cannot carry them (lua-json.ts). */
function scriptCall(slotKey: string, commands: readonly Arg[][], withText: boolean): Arg[] | null {
  const json = rowsJson(commands);
  if (json === null) return null;
  return withText ? ['EVAL', MULTI_SCRIPT, 1, slotKey, json] : ['EVALSHA', MULTI_SHA1, 1, slotKey, json];
}

/** Rejects with the first failed command's error, as a MULTI's EXEC would (TransactionError). */
function checkedReplies(reply: Value): Value[] {
  const replies = reply as Value[];
  const failed = replies.find((r) => r instanceof Error);
  if (failed !== undefined) throw new TransactionError(errorMessage(failed));
  return replies;
}

/**
 * `commands` as one script call (by SHA1, by its text after a NOSCRIPT); resolves to their
 * replies, or to null when JSON cannot carry them (the caller sends a MULTI instead).
 */
export async function scriptedMulti(conn: Connection, slotKey: string, commands: readonly Arg[][]): Promise<Value[] | null> {
  const call = scriptCall(slotKey, commands, false);
  if (call === null) return null;
  try {
    return checkedReplies(await conn.call(...call).catch((err: unknown) => (isNoScript(err) ? conn.call(...scriptCall(slotKey, commands, true)!) : Promise.reject(err))));
  } catch (err) {
    // A failed command's error (a client that throws on an error inside an array, as the
    // embedded one does, included): rejected as a MULTI's would be.
    throw err instanceof TransactionError ? err : new TransactionError(errorMessage(err));
  }
}
