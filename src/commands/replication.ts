// The replication commands (Redis's replication.c). ROLE today; the links themselves (REPLICAOF,
// SYNC/PSYNC, REPLCONF, WAIT) come with src/replication/, which moves the state ROLE reads.
import type { Reply } from '../resp/reply.js';
import { command, type CommandSpec, type Context } from './types.js';

/** ROLE on a primary: ["master", offset, [[ip, port, offset] per replica]]. */
function role(ctx: Context): Reply {
  const r = ctx.instance.replication;
  return [r.role, r.offset, []];
}

export const commands: CommandSpec[] = [
  command('role', 1, ['noscript', 'loading', 'stale', 'fast'], null, role, {
    categories: ['admin', 'fast', 'dangerous'],
    summary: 'Returns the replication role',
    since: '2.8.12',
    group: 'server',
  }),
];
