// MONITOR: clients that receive a line for every command the server runs, formatted as Redis's
// replicationFeedMonitors (`+<sec>.<usec> [<db> <addr>] "ARG" ...`, arguments quoted as
// sdscatrepr), with passwords redacted as Redis 7.0 redacts them.
import { performance } from 'node:perf_hooks';
import { type Reply, Replies, SimpleString, OK, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword } from './args.js';
import { MAY_REPLICATE } from './core/resolved.js';
import type { ClientState } from './client-state.js';
import type { CommandSpec, Context } from './types.js';
import { command } from './types.js';
import { wallClockMicros } from './core/wall-clock.js';

const REDACTED = Buffer.from('(redacted)');

/** Quotes bytes as Redis's sdscatrepr: printable ASCII as is, C escapes, \xNN otherwise. */
export function reprArg(arg: Buffer): string {
  let out = '"';
  for (const c of arg) {
    if (c === 0x5c || c === 0x22) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c >= 0x20 && c <= 0x7e) out += String.fromCharCode(c);
    else out += `\\x${c.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/**
 * The arguments as monitors see them: AUTH's and HELLO AUTH's credentials replaced by
 * "(redacted)" the way Redis 7.0 does it, i.e. only once the command got as far as reading them.
 * (CONFIG SET and ACL SETUSER, which Redis also redacts, are admin commands monitors never see.)
 */
export function redactedArgv(fullName: string, argv: Buffer[]): Buffer[] {
  if (fullName === 'auth' && argv.length <= 3) {
    return argv.map((a, i) => (i === 0 ? a : REDACTED));
  }
  // HELLO reads the credentials only after a valid protocol version.
  if (fullName === 'hello' && argv.length >= 2 && /^[23]$/.test(argv[1]!.toString('latin1'))) {
    const out = [...argv];
    for (let j = 2; j < argv.length; j++) {
      const more = argv.length - 1 - j;
      if (isKeyword(argv[j], 'auth') && more >= 2) {
        out[j + 1] = REDACTED;
        out[j + 2] = REDACTED;
        j += 2;
      } else if (isKeyword(argv[j], 'setname') && more >= 1) {
        j++;
      } else {
        break;
      }
    }
    return out;
  }
  if (fullName === 'migrate') return migrateRedacted(argv);
  return argv;
}

/** MIGRATE's AUTH password and AUTH2 username and password, as its option parser redacts them. */
function migrateRedacted(argv: Buffer[]): Buffer[] {
  const out = [...argv];
  for (let j = 6; j < argv.length; j++) {
    const more = argv.length - 1 - j;
    if (isKeyword(argv[j], 'copy') || isKeyword(argv[j], 'replace')) continue;
    if (isKeyword(argv[j], 'auth') && more >= 1) out[++j] = REDACTED;
    else if (isKeyword(argv[j], 'auth2') && more >= 2) {
      out[++j] = REDACTED;
      out[++j] = REDACTED;
    } else break;
  }
  return out;
}

/** One monitor line for a command `client` just ran. */
export function monitorLine(client: ClientState, argv: Buffer[]): SimpleString {
  const micros = wallClockMicros();
  const sec = Math.floor(micros / 1_000_000);
  const usec = micros % 1_000_000;
  const args = argv.map(reprArg).join(' ');
  // A script's commands show as the script's (Redis's CLIENT_SCRIPT: `[db lua]`).
  const addr = client.fromScript ? 'lua' : client.addr;
  return new SimpleString(`${sec}.${String(Math.min(usec, 999_999)).padStart(6, '0')} [${client.db} ${addr}] ${args}`);
}

/**
 * A MONITOR client is a replica to Redis, and replicas may not touch the keyspace: Redis's
 * error for a read, write or may-replicate command from one, or null.
 */
export function monitorRejection(client: ClientState, spec: CommandSpec, fullName: string): string | null {
  if (!client.monitor) return null;
  const touches = spec.flags.includes('write') || spec.flags.includes('readonly') || MAY_REPLICATE.has(fullName);
  return touches ? Errors.replicaKeyspace : null;
}

function monitor(ctx: Context): Reply {
  const { client, instance } = ctx;
  if (client.push === null) fail(Errors.monitorEmbedded);
  if (ctx.noBlock) fail(Errors.monitorDenyBlocking);
  // A second MONITOR is ignored without a reply, as Redis does.
  if (client.monitor) return new Replies([]);
  client.monitor = true;
  instance.monitors.add(client);
  return OK;
}

export const commands: CommandSpec[] = [
  command('monitor', 1, ['admin', 'noscript', 'loading', 'stale'], null, monitor, {
    categories: ['admin', 'slow', 'dangerous'],
    group: 'server',
    summary: 'Listen for all requests received by the server in real time',
    since: '1.0.0',
  }),
];
