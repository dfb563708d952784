// Connection commands: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET and CLIENT, as Redis 7.0
// (plus CLIENT SETINFO from 7.2, which node-redis sends on connect).
import { clientReply } from './client-reply.js';
import { clientCaching, clientGetRedir, clientTracking, clientTrackingInfo } from './client-tracking.js';
import { DATABASE_COUNT } from '../engine/keyspace.js';
import { ErrorReply, MapReply, OK, PONG, type Reply, SimpleString, VerbatimReply, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, integerArg, isKeyword, lower, parseInt64, text } from './args.js';
import type { ClientState } from './client-state.js';
import { REDIS_VERSION } from './core/identity.js';
import { helpReply } from './help.js';
import { clientInfoLine } from './client-info.js';
import { aclOf, latin1 } from './acl/acl-users.js';
import type { InstanceView } from './types.js';
import type { RequestArgs } from '../resp/request-args.js';
import { type CommandSpec, type Context, command, container, inPlaceCommand } from './types.js';

/** Client names and library names may not contain spaces or special characters. */
function validName(arg: Buffer): boolean {
  for (const c of arg) if (c < 33 || c > 126) return false;
  return true;
}

function setName(client: ClientState, arg: Buffer): void {
  if (!validName(arg)) fail(Errors.clientName);
  client.name = text(arg);
}

function ping(ctx: Context, args: RequestArgs): Reply {
  if (args.length > 2) fail(Errors.wrongArity('ping'));
  // A subscribed RESP2 client gets a Pub/Sub-shaped answer, as in Redis.
  if (ctx.client.resp === 2 && ctx.client.subscriptions.active) return ['pong', args.length === 2 ? args.buffer(1) : ''];
  return args.length === 2 ? args.buffer(1) : PONG;
}

function hello(ctx: Context, argv: Buffer[]): Reply {
  const { client, instance } = ctx;
  let version: number | null = null;
  if (argv.length >= 2) {
    const v = parseInt64(argv[1]!);
    if (v === undefined) fail(Errors.protocolVersionNotInteger);
    if (v < 2n || v > 3n) fail(Errors.unsupportedProtocol);
    version = Number(v);
  }
  let auth: [string, Buffer] | null = null;
  let name: Buffer | null = null;
  for (let j = 2; j < argv.length; j++) {
    const more = argv.length - 1 - j;
    if (isKeyword(argv[j], 'auth') && more >= 2) {
      auth = [latin1(argv[j + 1]!), argv[j + 2]!];
      j += 2;
    } else if (isKeyword(argv[j], 'setname') && more >= 1) {
      name = argv[j + 1]!;
      j++;
    } else {
      fail(Errors.helloSyntax(text(argv[j]!)));
    }
  }
  if (auth !== null) {
    if (!aclOf(instance).authenticate(client, auth[0], auth[1], latin1(argv[0]!))) fail(Errors.wrongPass);
  }
  if (!client.authenticated) {
    fail(Errors.helloNoAuth);
  }
  if (name !== null) setName(client, name);
  if (version !== null) client.resp = version as 2 | 3;
  return new MapReply([
    ['server', 'redis'],
    ['version', REDIS_VERSION],
    ['proto', client.resp],
    ['id', client.id],
    ['mode', 'standalone'],
    ['role', ctx.instance.replication.role],
    ['modules', []],
  ]);
}

function auth(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 3) fail(Errors.syntax);
  const acl = aclOf(ctx.instance);
  if (argv.length === 2 && acl.defaultUser.nopass) {
    fail(Errors.authWithoutPassword);
  }
  const user = argv.length === 3 ? latin1(argv[1]!) : 'default';
  if (!acl.authenticate(ctx.client, user, argv[argv.length - 1]!, latin1(argv[0]!))) fail(Errors.wrongPass);
  return OK;
}

function select(ctx: Context, argv: Buffer[]): Reply {
  const index = integerArg(argv[1]!);
  if (index < 0 || index >= DATABASE_COUNT) fail(Errors.dbIndexOutOfRange);
  ctx.client.db = index;
  return OK;
}

function quit(ctx: Context): Reply {
  ctx.client.closeAfterReply = true;
  return OK;
}

/** RESET: back to a fresh connection's state, keeping the connection. */
function reset(ctx: Context): Reply {
  const { client, instance } = ctx;
  client.multi = null;
  client.multiAborted = false;
  instance.unwatchAll(client);
  instance.tracking.disable(client);
  client.db = 0;
  client.resp = 2;
  client.name = '';
  client.noEvict = false;
  // clientSetDefaultAuth: back to the default user, authenticated if it needs no password.
  const acl = aclOf(instance);
  client.user = acl.defaultUser;
  client.authenticated = !acl.authRequired();
  // Subscriptions and MONITOR end silently (Redis's clearClientConnectionState).
  instance.pubsub.forget(client);
  instance.monitors.delete(client);
  client.monitor = false;
  client.replyOff = false;
  client.replySkip = 'none';
  return new SimpleString('RESET');
}

// --- CLIENT ------------------------------------------------------------------------------

/** CLIENT LIST TYPE: monitors count as normal clients, subscribed ones as pubsub (getClientType). */
function clientType(client: ClientState): string {
  if (client.isReplica) return 'slave';
  if (client.kind === 'primary') return 'master';
  return client.subscriptions.active ? 'pubsub' : 'normal';
}

/** CLIENT LIST/KILL TYPE: 'replica' and 'slave' name the same class, as getClientTypeByName. */
function isOfType(client: ClientState, type: string): boolean {
  return (type === 'replica' ? 'slave' : type) === clientType(client);
}

const CLIENT_TYPES = new Set(['normal', 'master', 'replica', 'slave', 'pubsub']);

function clientList(ctx: Context, argv: Buffer[]): Reply {
  const now = Date.now();
  let ids: Set<number> | null = null;
  let type: string | null = null;
  if (argv.length === 4 && isKeyword(argv[2], 'type')) {
    type = lower(argv[3]!);
    if (!CLIENT_TYPES.has(type)) fail(Errors.unknownClientType(text(argv[3]!)));
  } else if (argv.length >= 4 && isKeyword(argv[2], 'id')) {
    ids = new Set();
    for (const arg of argv.slice(3)) {
      const id = parseInt64(arg);
      if (id === undefined || id < 1n) fail(Errors.invalidClientId);
      ids.add(Number(id));
    }
  } else if (argv.length !== 2) {
    fail(Errors.syntax);
  }
  let out = '';
  for (const client of ctx.instance.clients.values()) {
    if (client.kind === 'aof') continue;
    if (ids !== null && !ids.has(client.id)) continue;
    if (type !== null && !isOfType(client, type)) continue;
    out += clientInfoLine(client, now, client === ctx.client ? 'client|list' : undefined) + '\n';
  }
  return new VerbatimReply('txt', out);
}

function clientKill(ctx: Context, argv: Buffer[]): Reply {
  const { instance, client: self } = ctx;
  if (argv.length === 3) {
    // Old form: CLIENT KILL addr:port.
    const addr = text(argv[2]!);
    const target = [...instance.clients.values()].find((c) => c.addr === addr);
    if (target === undefined) fail(Errors.noSuchClient);
    killClient(self, target);
    return OK;
  }
  if (argv.length % 2 !== 0) fail(Errors.syntax);
  const filters: Array<(c: ClientState) => boolean> = [];
  let skipMe = true;
  for (let i = 2; i < argv.length; i += 2) {
    const opt = lower(argv[i]!);
    const value = argv[i + 1]!;
    if (opt === 'id') {
      const id = parseInt64(value);
      if (id === undefined || id < 1n) fail(Errors.clientIdNotPositive);
      filters.push((c) => c.id === Number(id));
    } else if (opt === 'addr') {
      filters.push((c) => c.addr === text(value));
    } else if (opt === 'laddr') {
      filters.push((c) => c.laddr === text(value));
    } else if (opt === 'type') {
      const type = lower(value);
      if (!CLIENT_TYPES.has(type)) fail(Errors.unknownClientType(text(value)));
      filters.push((c) => isOfType(c, type));
    } else if (opt === 'user') {
      const user = aclOf(instance).get(latin1(value));
      if (user === undefined) fail(Errors.noSuchUser(text(value)));
      filters.push((c) => c.user === user);
    } else if (opt === 'skipme') {
      if (isKeyword(value, 'yes')) skipMe = true;
      else if (isKeyword(value, 'no')) skipMe = false;
      else fail(Errors.syntax);
    } else {
      fail(Errors.syntax);
    }
  }
  let killed = 0;
  for (const c of [...instance.clients.values()]) {
    if (c.kind === 'aof' || (skipMe && c === self)) continue;
    if (!filters.every((f) => f(c))) continue;
    killClient(self, c);
    killed++;
  }
  return killed;
}

/** The caller itself is closed after its reply is written; others are dropped at once. */
function killClient(self: ClientState, target: ClientState): void {
  if (target === self) target.closeAfterReply = true;
  else target.kill();
}

function clientUnblock(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 4) fail(Errors.syntax);
  const id = integerArg(argv[2]!);
  let asError = false;
  if (argv.length === 4) {
    if (isKeyword(argv[3], 'error')) asError = true;
    else if (!isKeyword(argv[3], 'timeout')) fail(Errors.unblockReason);
  }
  const target = ctx.instance.clients.get(id);
  if (target === undefined || target.blocked === null || target.blocked.postponed === true) return 0;
  const blocked = target.blocked;
  blocked.finish(asError ? new ErrorReply(Errors.unblocked) : blocked.timeoutReply ?? undefined);
  return 1;
}

/** CLIENT PAUSE timeout [WRITE|ALL]: as Redis, the mode is checked before the timeout. */
function clientPause(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 4) fail(Errors.unknownSubcommandOrArity(text(argv[1]!), 'CLIENT'));
  let type: 'write' | 'all' = 'all';
  if (argv.length === 4) {
    if (isKeyword(argv[3], 'write')) type = 'write';
    else if (!isKeyword(argv[3], 'all')) fail(Errors.clientPauseMode);
  }
  const ms = Number(int64Arg(argv[2]!, Errors.timeoutNotInteger));
  if (ms < 0) fail(Errors.timeoutNegative);
  // getTimeoutFromObjectOrReply: 0 stays 0 (a pause already over), else now + timeout.
  ctx.instance.pause.pause('client', ms > 0 ? Date.now() + ms : 0, type);
  return OK;
}

function onOff(arg: Buffer): boolean {
  if (isKeyword(arg, 'on')) return true;
  if (isKeyword(arg, 'off')) return false;
  fail(Errors.syntax);
}

function clientSetInfo(ctx: Context, argv: Buffer[]): Reply {
  const attr = lower(argv[2]!);
  const value = argv[3]!;
  if (attr !== 'lib-name' && attr !== 'lib-ver') fail(Errors.unrecognizedOption(text(argv[2]!)));
  if (!validName(value) && value.length > 0) {
    fail(Errors.clientInfoValue(attr));
  }
  if (attr === 'lib-name') ctx.client.libName = text(value);
  else ctx.client.libVersion = text(value);
  return OK;
}

const CLIENT_HELP = [
  'CACHING (YES|NO)',
  '    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.',
  'GETREDIR',
  '    Return the client ID we are redirecting to when tracking is enabled.',
  'GETNAME',
  '    Return the name of the current connection.',
  'ID',
  '    Return the ID of the current connection.',
  'INFO',
  '    Return information about the current client connection.',
  'KILL <ip:port>',
  '    Kill connection made from <ip:port>.',
  'KILL <option> <value> [<option> <value> [...]]',
  '    Kill connections. Options are:',
  '    * ADDR (<ip:port>|<unixsocket>:0)',
  '      Kill connections made from the specified address',
  '    * LADDR (<ip:port>|<unixsocket>:0)',
  '      Kill connections made to specified local address',
  '    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)',
  '      Kill connections by type.',
  '    * USER <username>',
  '      Kill connections authenticated by <username>.',
  '    * SKIPME (YES|NO)',
  '      Skip killing current connection (default: yes).',
  'LIST [options ...]',
  '    Return information about client connections. Options:',
  '    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)',
  '      Return clients of specified type.',
  'UNPAUSE',
  '    Stop the current client pause, resuming traffic.',
  'PAUSE <timeout> [WRITE|ALL]',
  '    Suspend all, or just write, clients for <timeout> milliseconds.',
  'SETINFO <option> <value>',
  '    Set client meta attr. Options are:',
  '    * LIB-NAME: the client lib name.',
  '    * LIB-VER: the client lib version.',
  'SETNAME <name>',
  '    Assign the name <name> to the current connection.',
  'UNBLOCK <clientid> [TIMEOUT|ERROR]',
  '    Unblock the specified blocked client.',
  'TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]',
  '         [OPTIN] [OPTOUT] [NOLOOP]',
  '    Control server assisted client side caching.',
  'TRACKINGINFO',
  '    Report tracking status for the current connection.',
  'NO-EVICT (ON|OFF)',
  '    Protect current client connection from eviction.',
];

const CONN = ['connection'];
const clientSub = (
  name: string,
  arity: number,
  flags: CommandSpec['flags'],
  handler: CommandSpec['handler'] & object,
): CommandSpec => command(name, arity, flags, null, handler, { categories: ['slow', ...CONN] });

export const commands: CommandSpec[] = [
  inPlaceCommand('ping', -1, ['fast'], null, ping, { categories: ['fast', ...CONN], summary: 'Ping the server' }),
  command('echo', 2, ['fast'], null, (_ctx, argv) => argv[1]!, {
    categories: ['fast', ...CONN],
    summary: 'Echo the given string',
  }),
  command('hello', -1, ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'], null, hello, {
    categories: ['fast', ...CONN],
    summary: 'Handshake with Redis',
  }),
  command('auth', -2, ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'], null, auth, {
    categories: ['fast', ...CONN],
    summary: 'Authenticate to the server',
  }),
  command('select', 2, ['loading', 'stale', 'fast'], null, select, {
    categories: ['fast', ...CONN],
    summary: 'Change the selected database for the current connection',
  }),
  command('quit', -1, ['allow_busy', 'noscript', 'loading', 'stale', 'fast', 'no_auth'], null, quit, {
    categories: ['fast', ...CONN],
    summary: 'Close the connection',
  }),
  command('reset', 1, ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'], null, reset, {
    categories: ['fast', ...CONN],
    summary: 'Reset the connection',
  }),
  container(
    'client',
    -2,
    [
      clientSub('id', 2, ['noscript', 'loading', 'stale'], (ctx) => ctx.client.id),
      clientSub('setname', 3, ['noscript', 'loading', 'stale'], (ctx, argv) => {
        setName(ctx.client, argv[2]!);
        return OK;
      }),
      clientSub('getname', 2, ['noscript', 'loading', 'stale'], (ctx) =>
        ctx.client.name === '' ? null : ctx.client.name,
      ),
      clientSub('list', -2, ['admin', 'noscript', 'loading', 'stale'], clientList),
      clientSub('info', 2, ['noscript', 'loading', 'stale'], (ctx) =>
        new VerbatimReply('txt', clientInfoLine(ctx.client, Date.now(), 'client|info') + '\n'),
      ),
      clientSub('kill', -3, ['admin', 'noscript', 'loading', 'stale'], clientKill),
      clientSub('no-evict', 3, ['admin', 'noscript', 'loading', 'stale'], (ctx, argv) => {
        ctx.client.noEvict = onOff(argv[2]!);
        return OK;
      }),
      clientSub('setinfo', 4, ['noscript', 'loading', 'stale'], clientSetInfo),
      clientSub('unblock', -3, ['admin', 'noscript', 'loading', 'stale'], clientUnblock),
      clientSub('pause', -3, ['admin', 'noscript', 'loading', 'stale'], clientPause),
      clientSub('unpause', 2, ['admin', 'noscript', 'loading', 'stale'], (ctx) => {
        ctx.instance.pause.unpause('client');
        return OK;
      }),
      clientSub('reply', 3, ['noscript', 'loading', 'stale'], clientReply),
      clientSub('tracking', -3, ['noscript', 'loading', 'stale'], clientTracking),
      clientSub('caching', 3, ['noscript', 'loading', 'stale'], clientCaching),
      clientSub('getredir', 2, ['noscript', 'loading', 'stale'], clientGetRedir),
      clientSub('trackinginfo', 2, ['noscript', 'loading', 'stale'], clientTrackingInfo),
      clientSub('help', 2, ['loading', 'stale'], () => helpReply('CLIENT', CLIENT_HELP)),
    ],
    { summary: 'A container for client connection commands' },
  ),
];
