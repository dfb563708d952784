// A transaction under WATCH on one connection, for the broker's check-and-set moves (delayed
// jobs, schedules): no Lua, so it runs on sluice server, Redis 7, Valkey and Redis Cluster.
import { ClusterConnection } from '../client/cluster-connection.js';
import { type BlockingConnection, TransactionError, type Value } from '../client/connection.js';

/**
 * MULTI, the commands, EXEC on the link that sent the WATCH; null when EXEC was aborted (the
 * watched key changed). On a cluster client the keyless MULTI of a plain call would go to any
 * node, so its own multi() (routed by the commands' slot, to the node connection holding the
 * WATCH) is used; elsewhere the commands are sent as one pipeline on this link (the embedded
 * connection's multi() runs on a session of its own, without the WATCH).
 */
export async function execWatched(link: BlockingConnection, commands: string[][]): Promise<Value[] | null> {
  if (link instanceof ClusterConnection) {
    try {
      return await link.multi(commands);
    } catch (err) {
      if (err instanceof TransactionError && err.message === 'EXEC aborted') return null;
      throw err;
    }
  }
  // One pipeline: one write to the socket, not one per command (a compaction's MULTI of 1,500
  // commands written call by call spent a third of its CPU in the socket's writes).
  const replies = await link.pipeline([['MULTI'], ...commands, ['EXEC']]);
  const failed = replies.find((r) => r instanceof Error);
  if (failed) throw failed;
  return replies[replies.length - 1] as Value[] | null;
}

