// The replication commands (Redis's replication.c): a replica's SYNC / PSYNC and REPLCONF, WAIT,
// ROLE. They parse and answer in Redis's words; the links themselves are src/replication/'s,
// reached through the instance's ReplicationControl (installed by the TCP server: the embedded
// engine has none).
import { OK, Replies, type Reply, SimpleString, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { integerArg, lower } from './args.js';
import { command, type CommandSpec, type Context } from './types.js';

const NO_REPLY = new Replies([]);
/** Redis's NET_HOST_STR_LEN: REPLCONF ip-address is at most this long. */
const HOST_MAX = 256;

/** ROLE: ["master", offset, [[ip, port, acked offset] per replica]] or ["slave", host, port, state, offset]. */
function role(ctx: Context): Reply {
  const r = ctx.instance.replication;
  const link = r.primaryLink;
  if (r.role === 'slave' && link !== null) return ['slave', link.host, link.port, link.state, r.role === 'slave' && r.linkUp ? r.offset : -1];
  const replicas = ctx.instance.replicationControl?.replicas() ?? [];
  return [r.role, r.offset, replicas.map((s) => [s.ip, String(s.port), String(s.ackOffset)])];
}

/** REPLICAOF / SLAVEOF host port | NO ONE. */
function replicaof(ctx: Context, argv: Buffer[]): Reply {
  const control = ctx.instance.replicationControl;
  if (ctx.instance.replication.failoverState !== 'no-failover') fail(Errors.replicaofWhileFailingOver);
  if (lower(argv[1]!) === 'no' && lower(argv[2]!) === 'one') {
    if (control === null) return OK;
    control.replicaOfNoOne();
    return OK;
  }
  if (ctx.client.isReplica) fail(Errors.replicaofFromReplica);
  const port = integerArg(argv[2]!, Errors.invalidMasterPort);
  if (port < 0 || port > 65535) fail(Errors.invalidMasterPort);
  if (control === null) fail(Errors.noReplicationHere);
  return control.replicaOf(argv[1]!.toString('latin1'), port) ? OK : new SimpleString('OK Already connected to specified master');
}

function sync(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  // A replica already attached sends nothing more of this kind: ignored, as Redis does.
  if (ctx.client.isReplica) return NO_REPLY;
  const control = ctx.instance.replicationControl;
  if (control === null) fail(Errors.noReplicationHere);
  // PSYNC <replid> <offset> FAILOVER: sent by a primary failing over to this replica.
  if (argv.length > 3 && lower(argv[0]!) === 'psync' && lower(argv[3]!) === 'failover') {
    const refused = control.promoteForFailover(ctx.client, argv[1]!.toString('latin1'));
    if (refused !== null) fail(refused);
  }
  let psync: { replid: string; offset: number } | null = null;
  if (lower(argv[0]!) === 'psync') psync = { replid: argv[1]!.toString('latin1'), offset: integerArg(argv[2]!) };
  return control.sync(ctx.client, psync);
}

function replconf(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length % 2 === 0) fail(Errors.syntax);
  const control = ctx.instance.replicationControl;
  for (let j = 1; j < argv.length; j += 2) {
    const option = lower(argv[j]!);
    const value = argv[j + 1]!.toString('latin1');
    switch (option) {
      case 'listening-port':
        integerArg(argv[j + 1]!);
        break;
      case 'ip-address':
        if (argv[j + 1]!.length >= HOST_MAX) fail(Errors.replconfIpTooLong(argv[j + 1]!.length));
        break;
      case 'capa':
      case 'rdb-only':
        break;
      case 'ack':
        // From an attached replica only, and never answered (Redis's replconfCommand returns early).
        if (ctx.client.isReplica && control !== null) control.replconf(ctx.client, 'ack', String(integerArg(argv[j + 1]!)), argv.slice(j + 2).map((a) => a.toString('latin1')));
        return NO_REPLY;
      case 'getack':
        // Asked of a replica by its primary; a primary has nothing to answer.
        return NO_REPLY;
      default:
        fail(Errors.unrecognizedReplconf(argv[j]!.toString('latin1')));
    }
    control?.replconf(ctx.client, option, value, []);
  }
  return OK;
}

function wait(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const r = ctx.instance.replication;
  if (r.role === 'slave') fail(Errors.waitOnReplica);
  const count = integerArg(argv[1]!);
  const timeout = integerArg(argv[2]!, Errors.timeoutNotInteger);
  if (timeout < 0) fail(Errors.timeoutNegative);
  const control = ctx.instance.replicationControl;
  const offset = ctx.client.replOffset;
  const acked = control?.acknowledged(offset) ?? 0;
  if (acked >= count || ctx.noBlock) return acked;
  if (control === null) {
    // No replica can ever attach here: what Redis would answer once the timeout passes.
    return new Promise((resolve) => {
      if (timeout > 0) setTimeout(() => resolve(0), timeout);
    });
  }
  return control.waitFor(offset, count, timeout);
}

/** FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], parsed as Redis's failoverCommand. */
function failover(ctx: Context, argv: Buffer[]): Reply {
  const control = ctx.instance.replicationControl;
  if (argv.length === 2 && lower(argv[1]!) === 'abort') {
    if (control === null || !control.failoverAbort()) fail(Errors.noFailoverInProgress);
    return OK;
  }
  let timeoutMs = 0;
  let force = false;
  let host: string | null = null;
  let port = 0;
  for (let j = 1; j < argv.length; j++) {
    const word = lower(argv[j]!);
    if (word === 'timeout' && j + 1 < argv.length && timeoutMs === 0) {
      timeoutMs = integerArg(argv[j + 1]!);
      if (timeoutMs <= 0) fail(Errors.failoverTimeoutNotPositive);
      j++;
    } else if (word === 'to' && j + 2 < argv.length && host === null) {
      port = integerArg(argv[j + 2]!);
      host = argv[j + 1]!.toString('latin1');
      j += 2;
    } else if (word === 'force' && !force) {
      force = true;
    } else {
      fail(Errors.syntax);
    }
  }
  const r = ctx.instance.replication;
  // The embedded engine has no replicas: Redis's checks in order, down to "requires connected replicas".
  if (control === null) fail(r.role === 'slave' ? Errors.failoverOnReplica : Errors.failoverNoReplicas);
  const refused = control.failover({ host, port, force, timeoutMs });
  if (refused !== null) fail(refused);
  return OK;
}

const REPLICATION_ADMIN = { categories: ['admin', 'slow', 'dangerous'], group: 'server' };

export const commands: CommandSpec[] = [
  command('role', 1, ['noscript', 'loading', 'stale', 'fast'], null, role, {
    categories: ['admin', 'fast', 'dangerous'],
    summary: 'Returns the replication role',
    since: '2.8.12',
    group: 'server',
  }),
  command('sync', 1, ['admin', 'noscript', 'no_async_loading', 'no_multi'], null, sync, {
    ...REPLICATION_ADMIN,
    summary: 'An internal command used in replication',
    since: '1.0.0',
  }),
  command('psync', -3, ['admin', 'noscript', 'no_async_loading', 'no_multi'], null, sync, {
    ...REPLICATION_ADMIN,
    summary: 'An internal command used in replication',
    since: '2.8.0',
  }),
  command('replconf', -1, ['admin', 'noscript', 'loading', 'stale', 'allow_busy'], null, replconf, {
    ...REPLICATION_ADMIN,
    summary: 'An internal command for configuring the replication stream',
    since: '3.0.0',
  }),
  command('replicaof', 3, ['admin', 'noscript', 'stale', 'no_async_loading'], null, replicaof, {
    ...REPLICATION_ADMIN,
    summary: 'Configures a server as replica of another, or promotes it to a master',
    since: '5.0.0',
  }),
  command('slaveof', 3, ['admin', 'noscript', 'stale', 'no_async_loading'], null, replicaof, {
    ...REPLICATION_ADMIN,
    summary: 'Sets a Redis server as a replica of another, or promotes it to being a master',
    since: '1.0.0',
  }),
  command('failover', -1, ['admin', 'noscript', 'stale'], null, failover, {
    ...REPLICATION_ADMIN,
    summary: 'Start a coordinated failover between this server and one of its replicas.',
    since: '6.2.0',
  }),
  command('wait', 3, ['noscript'], null, wait, {
    categories: ['slow', 'connection'],
    summary: 'Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed',
    since: '3.0.0',
    group: 'generic',
  }),
];
