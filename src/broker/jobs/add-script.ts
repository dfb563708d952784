// A job's add in one script, on servers where adds are made idempotent by a script anyway
// (idempotence.ts's 'script' mode: Redis / Valkey without XADD IDMP). There the add would be
// MULTI, the idempotent-XADD script, HSET record, HSETNX state, the event, EXEC, and then a
// second write for the entry link (entry-link.ts: a MULTI cannot hand XADD's id to the HSET).
// As one script it is one command and one round trip, and the record learns its entry id in
// the same atomic step, so no link is needed. It is the idempotent-XADD script with the
// record and the event added after the XADD; a resent add (its reply lost) finds its iid and
// returns the first entry id without writing anything again.
//
// Servers with XADD IDMP (sluice, Redis 8.6+) keep the MULTI and the link: they need no script
// for idempotence, and adding one would make every add depend on scripting being allowed.
import { createHash } from 'node:crypto';
import type { Arg } from '../../client/connection.js';
import { IDEMPOTENT_XADD_SHA1, idempotentXaddLua } from '../idempotence.js';
import { RecordField } from './record.js';

/**
 * KEYS: stream, iid hash, iid order list, record, events.
 * ARGV: iid, window, ttl ms, #record fields, #event args, record field/value pairs, the event's
 * XADD arguments after its key (none: events off), the entry's XADD arguments after its key.
 */
export const JOB_ADD_SCRIPT = `local nr = tonumber(ARGV[4])
local ne = tonumber(ARGV[5])
${idempotentXaddLua('6 + nr + ne')}
redis.call('HSET', KEYS[4], '${RecordField.entry}', id, unpack(ARGV, 6, 5 + nr))
redis.call('HSETNX', KEYS[4], '${RecordField.state}', 'waiting')
if ne > 0 then redis.call('XADD', KEYS[5], unpack(ARGV, 6 + nr, 5 + nr + ne)) end
return id`;

export const JOB_ADD_SHA1 = createHash('sha1').update(JOB_ADD_SCRIPT).digest('hex');

/**
 * The one command adding a job, from the idempotent XADD the producer built (the script's
 * `EVALSHA sha 3 stream iids order iid window ttl …rest`), the record's HSET and the event's
 * XADD; null when `xadd` is not that script (IDMP or plain XADD: the caller sends a MULTI).
 */
export function scriptedJobAdd(xadd: Arg[], record: Arg[], eventsKey: string, event: Arg[] | undefined): Arg[] | null {
  if (xadd[0] !== 'EVALSHA' || xadd[1] !== IDEMPOTENT_XADD_SHA1) return null;
  const [, , , stream, iids, order, iid, window, ttl, ...rest] = xadd;
  const fields = record.slice(2);
  const eventArgs = event === undefined ? [] : event.slice(2);
  // The events key goes even with events off: every key in the stream's slot (a cluster).
  return ['EVALSHA', JOB_ADD_SHA1, 5, stream!, iids!, order!, record[1]!, eventsKey, iid!, window!, ttl!, fields.length, eventArgs.length, ...fields, ...eventArgs, ...rest];
}

/** The same commands with the script's text for its SHA1 (after a NOSCRIPT: a restart, another cluster node). */
export function withJobAddText(commands: Arg[][]): Arg[][] {
  return commands.map((c) => (c[0] === 'EVALSHA' && c[1] === JOB_ADD_SHA1 ? ['EVAL', JOB_ADD_SCRIPT, ...c.slice(2)] : c));
}

/** True for the command scriptedJobAdd made (its reply is the entry id, its record linked). */
export function isScriptedJobAdd(command: Arg[]): boolean {
  return command[1] === JOB_ADD_SHA1 && (command[0] === 'EVALSHA' || command[0] === 'EVAL');
}
