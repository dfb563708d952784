// Writes a waiting job's stream entry id into its record (`entry`, record.ts), after the MULTI
// that added the entry: a MULTI cannot feed XADD's reply to the HSET beside it, and sluice runs
// no Lua, so the id is known only once EXEC has answered. Until a worker starts the job
// (which writes `entry` too), this is the only place the record learns it, and a waiting job
// must be traceable to its entry (getJob().entryId; removing a waiting job deletes that entry).
//
// The write is HSETNX (a worker that started the job already wrote the same id, or a newer
// one), sent in a MULTI with HLEN: if the job finished and its record was deleted meanwhile
// (removeOnComplete: true, or retention), HSETNX has just created a record holding `entry`
// alone (HLEN 1; a producer's record has at least data, added and state), and it is removed
// again with HDEL of that field, which leaves any record written since untouched but for it.
// Not awaited by add(): it is sent on the same connection before add() resolves, so the
// caller's next command on that connection sees it (another connection may look first).
import type { Arg, Connection, Value } from '../../client/connection.js';
import { jobKeys } from './keys.js';
import { RecordField } from './record.js';

/** Links each job to its entry; `onError` gets a failure (the record then lacks `entry` until a worker starts the job). */
export function linkEntries(conn: Connection, stream: string, links: Array<{ jobId: string; entryId: string }>, onError: (err: unknown) => void): void {
  if (links.length === 0) return;
  const keys = jobKeys(stream);
  const commands: Arg[][] = [];
  for (const { jobId, entryId } of links) commands.push(['HSETNX', keys.record(jobId), RecordField.entry, entryId], ['HLEN', keys.record(jobId)]);
  // MULTI … EXEC as one pipeline, not conn.multi(): every command leaves at once, in order,
  // ahead of whatever the caller sends next on this connection (the embedded engine's multi()
  // runs on a session of its own, which a later call on the connection could overtake).
  conn
    .pipeline([['MULTI'], ...commands, ['EXEC']])
    .then((all) => {
      const exec = all[all.length - 1];
      const failed = all.find((r) => r instanceof Error);
      if (failed !== undefined) throw failed;
      if (exec === null || !Array.isArray(exec)) throw new Error('EXEC aborted');
      const replies = exec as Value[];
      const ghosts = links.filter((_, i) => Number(replies[2 * i]) === 1 && Number(replies[2 * i + 1]) === 1).map((l) => ['HDEL', keys.record(l.jobId), RecordField.entry]);
      if (ghosts.length > 0) return conn.pipeline(ghosts).then(() => {});
    })
    .catch(onError);
}
