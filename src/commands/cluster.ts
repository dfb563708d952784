// CLUSTER, READONLY, READWRITE and ASKING as Redis 7.0 has them without cluster mode (cluster-enabled no, which is all sluice
// server is): every subcommand replies "This instance has cluster support disabled"
// (clusterCommand's first check), after the table's own checks (an unknown subcommand, a wrong
// arity). The table is Redis 7.0.15's src/commands/cluster-*.json, so COMMAND INFO / DOCS show
// the same subcommands, and a script calling CLUSTER RESET (flagged noscript) is refused with
// "This Redis command is not allowed from script" rather than an unknown command.
import { ErrorReply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { command, type CommandFlag, type CommandSpec, container } from './types.js';

/** A subcommand: name, arity, flags (in COMMAND INFO's order), summary, since, and whether its output is nondeterministic (a tip). */
type Row = [string, number, CommandFlag[], string, string, boolean?];

const CONNECTION = { categories: ['fast', 'connection'], group: 'cluster' };
const ADMIN: CommandFlag[] = ['admin', 'stale', 'no_async_loading'];
const STALE: CommandFlag[] = ['stale'];

const SUBCOMMANDS: Row[] = [
  ['addslots', -3, ADMIN, 'Assign new hash slots to receiving node', '3.0.0'],
  ['addslotsrange', -4, ADMIN, 'Assign new hash slots to receiving node', '7.0.0'],
  ['bumpepoch', 2, ADMIN, 'Advance the cluster config epoch', '3.0.0', true],
  ['count-failure-reports', 3, ['admin', 'stale'], 'Return the number of failure reports active for a given node', '3.0.0', true],
  ['countkeysinslot', 3, STALE, 'Return the number of local keys in the specified hash slot', '3.0.0'],
  ['delslots', -3, ADMIN, 'Set hash slots as unbound in receiving node', '3.0.0'],
  ['delslotsrange', -4, ADMIN, 'Set hash slots as unbound in receiving node', '7.0.0'],
  ['failover', -2, ADMIN, 'Forces a replica to perform a manual failover of its master.', '3.0.0'],
  ['flushslots', 2, ADMIN, "Delete a node's own slots information", '3.0.0'],
  ['forget', 3, ADMIN, 'Remove a node from the nodes table', '3.0.0'],
  ['getkeysinslot', 4, STALE, 'Return local key names in the specified hash slot', '3.0.0', true],
  ['help', 2, ['loading', 'stale'], 'Show helpful text about the different subcommands', '5.0.0'],
  ['info', 2, STALE, 'Provides info about Redis Cluster node state', '3.0.0', true],
  ['keyslot', 3, STALE, 'Returns the hash slot of the specified key', '3.0.0'],
  ['links', 2, STALE, 'Returns a list of all TCP links to and from peer nodes in cluster', '7.0.0', true],
  ['meet', -4, ADMIN, 'Force a node cluster to handshake with another node', '3.0.0'],
  ['myid', 2, STALE, 'Return the node id', '3.0.0'],
  ['nodes', 2, STALE, 'Get Cluster config for the node', '3.0.0', true],
  ['replicas', 3, ['admin', 'stale'], 'List replica nodes of the specified master node', '5.0.0', true],
  ['replicate', 3, ADMIN, 'Reconfigure a node as a replica of the specified master node', '3.0.0'],
  ['reset', -2, ['admin', 'noscript', 'stale'], 'Reset a Redis Cluster node', '3.0.0'],
  ['saveconfig', 2, ADMIN, 'Forces the node to save cluster state on disk', '3.0.0'],
  ['set-config-epoch', 3, ADMIN, 'Set the configuration epoch in a new node', '3.0.0'],
  ['setslot', -4, ADMIN, 'Bind a hash slot to a specific node', '3.0.0'],
  ['shards', 2, STALE, 'Get array of cluster slots to node mappings', '7.0.0', true],
  ['slaves', 3, ['admin', 'stale'], 'List replica nodes of the specified master node', '3.0.0', true],
  ['slots', 2, STALE, 'Get array of Cluster slot to node mappings', '3.0.0', true],
];

/** The ACL categories Redis adds from the flags (setImplicitACLCategories): none of these is fast. */
function categories(flags: readonly CommandFlag[]): string[] {
  return flags.includes('admin') ? ['admin', 'slow', 'dangerous'] : ['slow'];
}

const disabled = (): ErrorReply => new ErrorReply(Errors.clusterDisabled);

export const commands: CommandSpec[] = [
  container(
    'cluster',
    -2,
    SUBCOMMANDS.map(([name, arity, flags, summary, since, nondeterministic]) =>
      command(name, arity, [...flags], null, disabled, {
        categories: categories(flags),
        ...(nondeterministic === true ? { tips: ['nondeterministic_output'] } : {}),
        summary,
        since,
        group: 'cluster',
      }),
    ),
    { categories: ['slow'], summary: 'A container for cluster commands', group: 'cluster', since: '3.0.0' },
  ),
  // The connection commands of cluster mode, refused likewise; there so that ACL rules can name
  // them (+readonly) and COMMAND and ACL CAT list them as Redis does.
  command('readonly', 1, ['loading', 'stale', 'fast'], null, disabled, { ...CONNECTION, since: '3.0.0', summary: 'Enables read queries for a connection to a cluster replica node' }),
  command('readwrite', 1, ['loading', 'stale', 'fast'], null, disabled, { ...CONNECTION, since: '3.0.0', summary: 'Disables read queries for a connection to a cluster replica node' }),
  command('asking', 1, ['fast'], null, disabled, { ...CONNECTION, since: '3.0.0', summary: 'Sent by cluster clients after an -ASK redirect' }),
];
