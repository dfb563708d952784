// SLOWLOG (GET, LEN, RESET, HELP) and the log behind it, as Redis 7.0's slowlog.c: a command that
// ran for at least slowlog-log-slower-than microseconds (never when it is negative) is logged
// with an id, the unix time, its duration, its arguments (at most 32, each cut at 128 bytes, as
// Redis trims them; passwords redacted), the client's address and name; the log keeps the
// newest slowlog-max-len entries. The execution core (core/instance.ts) calls `push` after a
// command ran; EXEC is not logged, the commands it ran are.
import { performance } from 'node:perf_hooks';
import { type Reply, OK, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import type { RequestArgs } from '../resp/request-args.js';
import type { ClientState } from './client-state.js';
import type { Config } from './config.js';
import { helpReply, subcommandSyntaxError } from './help.js';
import { redactedArgv } from './monitor.js';
import { type CommandSpec, type Context, command, container } from './types.js';

/** Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING. */
const MAX_ARGC = 32;
const MAX_STRING = 128;
const REDACTED = Buffer.from('(redacted)');
/** Redis's SENSITIVE_CONFIG parameters: CONFIG SET shows their values as (redacted). */
const SENSITIVE_CONFIGS = new Set(['masteruser', 'masterauth', 'requirepass']);

export interface SlowlogEntry {
  id: number;
  /** Unix time in seconds. */
  time: number;
  /** Microseconds. */
  duration: number;
  argv: Buffer[];
  peer: string;
  name: string;
}

/** The arguments as the log keeps them: at most MAX_ARGC, each at most MAX_STRING bytes. */
function trimmed(argv: Buffer[]): Buffer[] {
  const argc = Math.min(argv.length, MAX_ARGC);
  const out: Buffer[] = [];
  for (let j = 0; j < argc; j++) {
    const arg = argv[j]!;
    if (j === argc - 1 && argc !== argv.length) {
      out.push(Buffer.from(`... (${argv.length - argc + 1} more arguments)`));
    } else if (arg.length > MAX_STRING) {
      out.push(Buffer.concat([arg.subarray(0, MAX_STRING), Buffer.from(`... (${arg.length - MAX_STRING} more bytes)`)]));
    } else {
      // A copy: the request's Buffers may be views of a read buffer that is reused.
      out.push(Buffer.from(arg));
    }
  }
  return out;
}

/** As monitors see them (AUTH, HELLO AUTH), plus CONFIG SET's sensitive values and ACL SETUSER's user and rules. */
function redacted(fullName: string, argv: Buffer[]): Buffer[] {
  if (fullName === 'acl|setuser') return argv.map((a, i) => (i >= 2 ? REDACTED : a));
  if (fullName === 'config|set') {
    let out = argv;
    for (let i = 2; i + 1 < argv.length; i += 2) {
      if (SENSITIVE_CONFIGS.has(argv[i]!.toString('latin1').toLowerCase())) {
        if (out === argv) out = [...argv];
        out[i + 1] = REDACTED;
      }
    }
    return out;
  }
  return redactedArgv(fullName, argv);
}

export class SlowLog {
  /** Newest first, as Redis's list (pushed at the head). */
  private entries: SlowlogEntry[] = [];
  private nextId = 0;
  /** slowlog-log-slower-than: the execution core asks before it measures anything. */
  readonly threshold: () => number;
  private readonly maxLen: () => number;
  /** Inside a batch (one clock reading for its commands): which batch, and when its last command ended. */
  private batchAt = -1;
  private mark = 0;

  constructor(config: Config) {
    this.threshold = config.derived((c) => c.getNumber('slowlog-log-slower-than'));
    this.maxLen = config.derived((c) => c.getNumber('slowlog-max-len'));
  }

  /**
   * After a command ran, while the threshold is not negative: `started`/`ended` are its clock
   * readings, or, inside a batch (`batchStart` ≥ 0, when the core reads the clock once per
   * batch), it is timed from the end of the batch's previous command (one reading here). A
   * blocked command (a pending reply) is logged once it is served, with the time it ran.
   */
  afterCall(client: ClientState, fullName: string, args: RequestArgs, batchStart: number, started: number, ended: number, reply: unknown): void {
    let duration: number;
    if (batchStart >= 0) {
      const now = performance.now();
      duration = (now - (this.batchAt === batchStart ? this.mark : batchStart)) * 1000;
      this.batchAt = batchStart;
      this.mark = now;
    } else {
      duration = (ended - started) * 1000;
    }
    if (duration < this.threshold() || fullName === 'exec') return;
    const argv = args.toArgv();
    if (reply instanceof Promise) {
      const log = () => this.push(client, fullName, argv, duration, this.maxLen());
      reply.then(log, log);
    } else {
      this.push(client, fullName, argv, duration, this.maxLen());
    }
  }

  get length(): number {
    return this.entries.length;
  }

  /** Logs a command that took `duration` µs, keeping the newest `maxLen` entries. */
  push(client: ClientState, fullName: string, argv: Buffer[], duration: number, maxLen: number): void {
    this.entries.unshift({
      id: this.nextId++,
      time: Math.floor(Date.now() / 1000),
      duration: Math.max(0, Math.round(duration)),
      argv: trimmed(redacted(fullName, argv)),
      peer: client.addr,
      name: client.name,
    });
    if (this.entries.length > maxLen) this.entries.length = maxLen;
  }

  /** The newest `count` entries. */
  newest(count: number): SlowlogEntry[] {
    return this.entries.slice(0, count);
  }

  /** SLOWLOG RESET: the entries go, the ids go on. */
  reset(): void {
    this.entries = [];
  }
}

const SLOWLOG_HELP = [
  'GET [<count>]',
  '    Return top <count> entries from the slowlog (default: 10, -1 mean all).',
  '    Entries are made of:',
  '    id, timestamp, time in microseconds, arguments array, client IP and port,',
  '    client name',
  'LEN',
  '    Return the length of the slowlog.',
  'RESET',
  '    Reset the slowlog.',
];

function slowlogGet(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 3) fail(subcommandSyntaxError(argv[1]!, 'SLOWLOG'));
  const log = ctx.instance.slowlog;
  let count = 10;
  if (argv.length === 3) {
    const text = argv[2]!.toString('latin1');
    // getRangeLongFromObjectOrReply: any non-integer, or one below -1, gets the same error.
    if (!/^(0|-?[1-9][0-9]{0,18})$/.test(text) || BigInt(text) < -1n || BigInt(text) > 9223372036854775807n) fail(Errors.slowlogCount);
    count = text === '-1' ? log.length : Number(text);
  }
  return log.newest(count).map((e) => [e.id, e.time, e.duration, e.argv, Buffer.from(e.peer), Buffer.from(e.name)]);
}

const ADMIN_CATEGORIES = ['admin', 'slow', 'dangerous'];

export const commands: CommandSpec[] = [
  container(
    'slowlog',
    -2,
    [
      command('get', -2, ['admin', 'loading', 'stale'], null, slowlogGet, {
        categories: ADMIN_CATEGORIES,
        summary: "Get the slow log's entries",
        since: '2.2.12',
        group: 'server',
      }),
      command('len', 2, ['admin', 'loading', 'stale'], null, (ctx) => ctx.instance.slowlog.length, {
        categories: ADMIN_CATEGORIES,
        summary: "Get the slow log's length",
        since: '2.2.12',
        group: 'server',
      }),
      command('reset', 2, ['admin', 'loading', 'stale'], null, (ctx) => {
        ctx.instance.slowlog.reset();
        return OK;
      }, { categories: ADMIN_CATEGORIES, summary: 'Clear all entries from the slow log', since: '2.2.12', group: 'server' }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('SLOWLOG', SLOWLOG_HELP), {
        categories: ['slow'],
        summary: 'Show helpful text about the different subcommands',
        since: '6.2.0',
        group: 'server',
      }),
    ],
    { summary: 'A container for slow log commands', since: '2.2.12', group: 'server' },
  ),
];

