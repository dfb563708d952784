// A transaction under WATCH on one connection, for the broker's check-and-set moves (delayed
// jobs, schedules): no Lua, so it runs on sluice server, Redis 7, Valkey and Redis Cluster.
import { ClusterConnection } from '../client/cluster-connection.js';
import { type BlockingConnection, TransactionError, type Value } from '../client/connection.js';

/**
 * MULTI, the commands, EXEC on the link that sent the WATCH; null when EXEC was aborted (the
 * watched key changed). On a cluster client the keyless MULTI of a plain call would go to any
 * node, so its own multi() (routed by the commands' slot, to the node connection holding the
 * WATCH) is used; elsewhere the commands are sent as calls, back to back, on this link (the
 * embedded connection's multi() runs on a session of its own, without the WATCH).
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
  const replies = [link.call('MULTI'), ...commands.map((c) => link.call(...c)), link.call('EXEC')];
  const settled = await Promise.allSettled(replies);
  const failed = settled.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
  if (failed) throw failed.reason;
  return (settled[settled.length - 1] as PromiseFulfilledResult<Value>).value as Value[] | null;
}

