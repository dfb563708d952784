// Writes a waiting job's stream entry id into its record (`entry`, record.ts), after the MULTI
// that added the entry: a MULTI cannot feed XADD's reply to the HSET beside it, and sluice runs
// no Lua, so the id is known only once EXEC has answered. Until a worker starts the job
// (which writes `entry` too), this is the only place the record learns it, and a waiting job
// must be traceable to its entry (getJob().entryId; removing a waiting job deletes that entry).
//
// The write is HSETNX (a worker that started the job already wrote the same id, or a newer
// one), each followed by HLEN: if the job finished and its record was deleted meanwhile
// (removeOnComplete: true, or retention), HSETNX has just created a record holding `entry`
// alone (HLEN 1; a producer's record has at least data, added and state), and it is removed
// again with HDEL of that field, which leaves any record written since untouched but for it.
// No MULTI around them: another client's command between a HSETNX and its HLEN either deletes
// the record (HLEN 0: nothing left behind) or writes a finished job's record again, which only
// a second run of the job does, and that run's own writes make it a record. A MULTI would
// double the replies to parse (QUEUED each) for a write on every add.
// Not awaited by add(): it is sent on the same connection before add() resolves, so the
// caller's next command on that connection sees it (another connection may look first).
import type { Arg, Connection } from '../../client/connection.js';
import { jobKeys } from './keys.js';
import { RecordField } from './record.js';

/** Links each job to its entry; `onError` gets a failure (the record then lacks `entry` until a worker starts the job). */
export function linkEntries(conn: Connection, stream: string, links: Array<{ jobId: string; entryId: string }>, onError: (err: unknown) => void): void {
  if (links.length === 0) return;
  const keys = jobKeys(stream);
  const commands: Arg[][] = [];
  for (const { jobId, entryId } of links) commands.push(['HSETNX', keys.record(jobId), RecordField.entry, entryId], ['HLEN', keys.record(jobId)]);
  // One pipeline: every command leaves at once, in order, ahead of whatever the caller sends
  // next on this connection.
  conn
    .pipeline(commands)
    .then((replies) => {
      const failed = replies.find((r) => r instanceof Error);
      if (failed !== undefined) throw failed;
      const ghosts = links.filter((_, i) => Number(replies[2 * i]) === 1 && Number(replies[2 * i + 1]) === 1).map((l) => ['HDEL', keys.record(l.jobId), RecordField.entry]);
      if (ghosts.length > 0) return conn.pipeline(ghosts).then(() => {});
    })
    .catch(onError);
}
