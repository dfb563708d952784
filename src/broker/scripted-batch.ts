// Scripted adds (idempotence.ts's 'script' mode, Redis / Valkey without XADD IDMP) of one stream
// and one producer id, sent as one script call instead of one per add. A script call costs Redis
// about as much as the adds it makes (the call's setup, two PEXPIREs), and costs the client one
// command, one promise and one reply to decode per add: batched, addMany's slice of 100 jobs is
// one command (`bench/adds.js`; docs/delivery.md has the figures).
//
// Each add keeps the meaning of its own script (the idempotent XADD, or jobs/add-script.ts's job
// add): an iid already remembered returns its first id and writes nothing, else the entry, its
// iid, and for a job its record and `added` event. The iids added are remembered in one HSET and
// appended to the order list in one RPUSH, the window's oldest evicted once, the two keys' ttls
// set once. A job's record takes its state in the same HSET (the single script's HSETNX guards a
// resend, which here found its iid and wrote nothing; these job ids are new, random ones). A
// resent batch (its reply lost to a reconnect) finds every iid it added, as InFlightWindow keeps
// no more than the window unanswered. A call that fails part way (an XADD refused: OOM,
// WRONGTYPE) keeps the adds before it, as a pipeline of single adds would; addMany rejects
// either way.
import { createHash } from 'node:crypto';
import type { Arg, Value } from '../client/connection.js';
import { IDEMPOTENT_XADD_SCRIPT, IDEMPOTENT_XADD_SHA1 } from './idempotence.js';
import { JOB_ADD_SCRIPT, JOB_ADD_SHA1 } from './jobs/add-script.js';
import { RecordField } from './jobs/record.js';
import { argsJson } from './lua-json.js';

/**
 * KEYS: stream, iid hash, iid order list, then (jobs) the events stream and each job's record.
 * ARGV: window, ttl ms, the number of adds, then per add: iid, its record's index in KEYS (0:
 * none), #record field/value args, #event args, #XADD args, the record's field/value pairs, the
 * event's XADD arguments after its key, the entry's XADD arguments after its key; or all of them
 * as one JSON array (lua-json.ts: one argument to write and parse, not thirty an add). Returns
 * the entry ids in order.
 */
export const ADD_BATCH_SCRIPT = `local ARGV = #ARGV == 1 and cjson.decode(ARGV[1]) or ARGV
local window = tonumber(ARGV[1])
local at = 4
local ids, fresh, remembered, seen = {}, {}, {}, {}
for j = 1, tonumber(ARGV[3]) do
  local iid, rk = ARGV[at], tonumber(ARGV[at + 1])
  local nr, ne, nx = tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  local r = at + 5
  local x = r + nr + ne
  local id = seen[iid] or redis.call('HGET', KEYS[2], iid)
  if not id then
    id = redis.call('XADD', KEYS[1], unpack(ARGV, x, x + nx - 1))
    seen[iid] = id
    fresh[#fresh + 1] = iid
    remembered[#remembered + 1] = iid
    remembered[#remembered + 1] = id
    if rk > 0 then
      redis.call('HSET', KEYS[rk], '${RecordField.entry}', id, '${RecordField.state}', 'waiting', unpack(ARGV, r, r + nr - 1))
      if ne > 0 then redis.call('XADD', KEYS[4], unpack(ARGV, r + nr, x - 1)) end
    end
  end
  ids[j] = id
  at = x + nx
end
if #fresh > 0 then
  redis.call('HSET', KEYS[2], unpack(remembered))
  local over = redis.call('RPUSH', KEYS[3], unpack(fresh)) - window
  if over > 0 then
    redis.call('HDEL', KEYS[2], unpack(redis.call('LRANGE', KEYS[3], 0, over - 1)))
    redis.call('LTRIM', KEYS[3], over, -1)
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return ids`;

export const ADD_BATCH_SHA1 = createHash('sha1').update(ADD_BATCH_SCRIPT).digest('hex');

/**
 * One add's parts, read from its single-add script command: its keys and arguments, and where
 * in the command its record's pairs, its event's arguments and its XADD's arguments lie (copied
 * from there into the batch, not sliced out first).
 */
interface ScriptedAdd {
  command: Arg[];
  stream: Arg;
  iids: Arg;
  order: Arg;
  window: Arg;
  ttl: Arg;
  iid: Arg;
  /** A job's record key and events key; null for a plain idempotent XADD. */
  record: Arg | null;
  events: Arg | null;
  recordAt: number;
  eventAt: number;
  xaddAt: number;
}

/** The parts of an idempotent XADD or a job add script (by SHA1 or with its text); null for any other command. */
function parse(c: Arg[]): ScriptedAdd | null {
  const script = c[0] === 'EVALSHA' ? c[1] : c[0] === 'EVAL' ? c[1] : null;
  if (script === IDEMPOTENT_XADD_SHA1 || script === IDEMPOTENT_XADD_SCRIPT) {
    // EVALSHA sha 3 stream iids order iid window ttl …xadd
    return { command: c, stream: c[3]!, iids: c[4]!, order: c[5]!, iid: c[6]!, window: c[7]!, ttl: c[8]!, record: null, events: null, recordAt: 9, eventAt: 9, xaddAt: 9 };
  }
  if (script === JOB_ADD_SHA1 || script === JOB_ADD_SCRIPT) {
    // EVALSHA sha 5 stream iids order record events iid window ttl nr ne …record …event …xadd
    const eventAt = 13 + Number(c[11]);
    return { command: c, stream: c[3]!, iids: c[4]!, order: c[5]!, iid: c[8]!, window: c[9]!, ttl: c[10]!, record: c[6]!, events: c[7]!, recordAt: 13, eventAt, xaddAt: eventAt + Number(c[12]) };
  }
  return null;
}

/** The one script call making these adds (all of one stream and iid hash), by SHA1 or with the text. */
function batchCommand(adds: ScriptedAdd[], withText: boolean): Arg[] {
  const first = adds[0]!;
  const keys: Arg[] = [first.stream, first.iids, first.order];
  const events = adds.find((a) => a.events !== null)?.events ?? null;
  if (events !== null) keys.push(events);
  const argv: Arg[] = [first.window, first.ttl, adds.length];
  for (const a of adds) {
    let rk = 0;
    if (a.record !== null) {
      keys.push(a.record);
      rk = keys.length;
    }
    const c = a.command;
    argv.push(a.iid, rk, a.eventAt - a.recordAt, a.xaddAt - a.eventAt, c.length - a.xaddAt);
    for (let i = a.recordAt; i < c.length; i++) argv.push(c[i]!);
  }
  const head: Arg[] = withText ? ['EVAL', ADD_BATCH_SCRIPT] : ['EVALSHA', ADD_BATCH_SHA1];
  head.push(keys.length);
  for (const k of keys) head.push(k);
  const json = argsJson(argv);
  if (json !== null) head.push(json);
  else for (const a of argv) head.push(a);
  return head;
}

/** Commands to send in place of some, and how to hand their replies back to the originals. */
export interface Batched {
  commands: Arg[][];
  /** The replies of `commands` → one per original command, in order. */
  spread(replies: Array<Value | Error>): Array<Value | Error>;
}

/**
 * Groups the scripted adds among `commands` by stream and producer id; a group of two or more
 * becomes one ADD_BATCH_SCRIPT call (with its text when the originals carry theirs: after a
 * NOSCRIPT), placed where its first add was. Other commands pass unchanged. A stream's entries
 * keep the order of the adds: an add joins its stream's group only when no other command for that
 * stream came between (another producer id's add starts a new group; any other command ends
 * every group); adds to other streams between them (partitions taken in turn) do not matter.
 */
export function batchScriptedAdds(commands: Arg[][]): Batched {
  const parsed = commands.map(parse);
  const groups: number[][] = [];
  /** Per stream, the group its next add may join. */
  const open = new Map<string, number[]>();
  parsed.forEach((p, i) => {
    if (p === null) {
      open.clear();
      return;
    }
    const stream = String(p.stream);
    const group = open.get(stream);
    if (group !== undefined && String(parsed[group[0]!]!.iids) === String(p.iids)) {
      group.push(i);
      return;
    }
    const started = [i];
    groups.push(started);
    open.set(stream, started);
  });
  // Which sent command answers each original, and at which index of its array reply (-1: whole).
  const source: Array<{ at: number; index: number }> = new Array(commands.length);
  const sent: Arg[][] = [];
  const batchOf = new Map<number, number[]>();
  for (const indexes of groups) if (indexes.length > 1) batchOf.set(indexes[0]!, indexes);
  const merged = new Set([...batchOf.values()].flatMap((g) => g.slice(1)));
  commands.forEach((c, i) => {
    if (merged.has(i)) return;
    const group = batchOf.get(i);
    if (group === undefined) {
      source[i] = { at: sent.length, index: -1 };
      sent.push(c);
      return;
    }
    group.forEach((g, k) => (source[g] = { at: sent.length, index: k }));
    sent.push(batchCommand(group.map((g) => parsed[g]!), c[0] === 'EVAL'));
  });
  return {
    commands: sent,
    spread: (replies) =>
      source.map(({ at, index }) => {
        const reply = replies[at]!;
        if (index < 0 || reply instanceof Error) return reply;
        return Array.isArray(reply) ? (reply[index] as Value) : new Error(`sluice: a batch of adds was answered with ${JSON.stringify(reply)}, not its ids`);
      }),
  };
}
