// A MULTI's commands as one script call, on Redis and Valkey (where JobWriteSender found scripts
// cheaper than commands: job-write-sender.ts): the client encodes one command with one JSON text
// and decodes one reply, not a command, a QUEUED and a reply per command. The script runs the
// commands as EXEC would (in order, nothing between them, a failing one not stopping the others)
// and answers every command's reply, as EXEC does.
//
// A command may name a job record to link to its XADD's id (jobs/entry-link.ts: HSETNX `entry`,
// undone when the record held nothing else, so a record deleted meanwhile is not brought back).
// Done here, beside the XADD, it costs no round trip and no command of the client's: a fair
// key's move (fairness/taker.ts) links every job it moves.
//
// sluice (embedded, `sluice server`) keeps MULTI: its Lua costs more than its commands.
import { createHash } from 'node:crypto';
import type { Arg, BlockingConnection, Connection, Value } from '../client/connection.js';
import { TransactionError } from '../client/connection.js';
import { errorMessage } from './replies.js';
import { RecordField } from './jobs/record.js';
import { argsJson, rowsJson } from './lua-json.js';
import { execWatched } from './watched-multi.js';

/**
 * KEYS[1]: a key of the slot every command writes in. ARGV[1]: JSON [[command, arg…], …];
 * ARGV[2], optional: JSON [record or "", …], one per command: the record to link to that
 * command's reply (an XADD's id). Returns the commands' replies.
 */
export const MULTI_SCRIPT = `local commands = cjson.decode(ARGV[1])
local links = ARGV[2] and cjson.decode(ARGV[2])
local replies = {}
for i = 1, #commands do
  local reply = redis.pcall(unpack(commands[i]))
  replies[i] = reply
  local record = links and links[i]
  if record and record ~= '' and type(reply) == 'string' then
    if redis.call('HSETNX', record, '${RecordField.entry}', reply) == 1 and redis.call('HLEN', record) == 1 then redis.call('HDEL', record, '${RecordField.entry}') end
  end
end
return replies`;

export const MULTI_SHA1 = createHash('sha1').update(MULTI_SCRIPT).digest('hex');

/** The script call running `commands` (and their links); null when JSON cannot carry them (lua-json.ts). */
function scriptCall(slotKey: string, commands: readonly Arg[][], links: readonly string[] | undefined, withText: boolean): Arg[] | null {
  const json = rowsJson(commands);
  if (json === null) return null;
  const call: Arg[] = withText ? ['EVAL', MULTI_SCRIPT, 1, slotKey, json] : ['EVALSHA', MULTI_SHA1, 1, slotKey, json];
  if (links !== undefined) {
    const linked = argsJson(links);
    if (linked === null) return null;
    call.push(linked);
  }
  return call;
}

/** Rejects with the first failed command's error, as a MULTI's EXEC would (TransactionError). */
function checkedReplies(reply: Value): Value[] {
  const replies = reply as Value[];
  const failed = replies.find((r) => r instanceof Error);
  if (failed !== undefined) throw new TransactionError(errorMessage(failed));
  return replies;
}

const isNoScript = (err: unknown): boolean => errorMessage(err).startsWith('NOSCRIPT');

/**
 * `commands` as one script call (by SHA1, by its text after a NOSCRIPT); resolves to their
 * replies, or to null when JSON cannot carry them (the caller sends a MULTI instead).
 */
export async function scriptedMulti(conn: Connection, slotKey: string, commands: readonly Arg[][]): Promise<Value[] | null> {
  const call = scriptCall(slotKey, commands, undefined, false);
  if (call === null) return null;
  try {
    return checkedReplies(await conn.call(...call).catch((err: unknown) => (isNoScript(err) ? conn.call(...scriptCall(slotKey, commands, undefined, true)!) : Promise.reject(err))));
  } catch (err) {
    // A failed command's error (a client that throws on an error inside an array, as the
    // embedded one does, included): rejected as a MULTI's would be.
    throw err instanceof TransactionError ? err : new TransactionError(errorMessage(err));
  }
}

/**
 * `commands` (with their links) as one script call inside MULTI … EXEC on the link holding a
 * WATCH: null when EXEC was aborted (the watched key changed) or JSON cannot carry them
 * (`unsent` then says so: the caller sends them as a MULTI). After a NOSCRIPT, which ran
 * nothing, the script is loaded and the caller's next attempt (a new WATCH) finds it.
 */
export async function scriptedExecWatched(link: BlockingConnection, slotKey: string, commands: readonly Arg[][], links: readonly string[]): Promise<{ replies: Value[] | null; unsent: boolean }> {
  const call = scriptCall(slotKey, commands, links, false);
  if (call === null) return { replies: null, unsent: true };
  let exec: Array<Value | Error> | null;
  try {
    exec = await execWatched(link, [call.map(String)]);
  } catch (err) {
    // A client that throws on an error inside EXEC's array (the embedded one) gets here.
    if (!isNoScript(err)) throw err;
    exec = [err as Error];
  }
  if (exec === null) return { replies: null, unsent: false };
  const reply = exec[0]!;
  if (reply instanceof Error) {
    if (!isNoScript(reply)) throw reply;
    await link.call('SCRIPT', 'LOAD', MULTI_SCRIPT);
    return { replies: null, unsent: false };
  }
  return { replies: checkedReplies(reply), unsent: false };
}
