// Server commands: INFO, CONFIG, COMMAND, TIME, SHUTDOWN and DEBUG SLEEP, as Redis 7.0.
import * as os from 'node:os';
import {
  ErrorReply,
  Errors,
  MapReply,
  type Reply,
  SetReply,
  SimpleString,
  VerbatimReply,
  OK,
  fail,
} from '../resp/reply.js';
import { isKeyword, lower, parseDouble, text } from './args.js';
import { REDIS_VERSION, helpReply } from './connection.js';
import type { Instance } from './instance.js';
import { type CommandSpec, type Context, command, container } from './types.js';

// --- INFO --------------------------------------------------------------------------------

const DEFAULT_SECTIONS = [
  'server', 'clients', 'memory', 'persistence', 'stats', 'replication', 'cpu', 'modules',
  'errorstats', 'cluster', 'keyspace',
];
const ALL_SECTIONS = [...DEFAULT_SECTIONS.slice(0, 7), 'commandstats', ...DEFAULT_SECTIONS.slice(7)];

/** Redis's bytesToHuman. */
function human(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  const units = ['K', 'M', 'G', 'T', 'P'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(2)}${units[i]}`;
}

let peakMemory = 0;
const RUN_ID = Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');

function sectionLines(instance: Instance, name: string): string[] | null {
  const provided = instance.infoProviders.get(name);
  if (provided !== undefined) return provided();
  const now = Date.now();
  const stats = instance.stats;
  switch (name) {
    case 'server': {
      const uptime = Math.floor((now - instance.startedAt) / 1000);
      return [
        `redis_version:${REDIS_VERSION}`,
        'redis_git_sha1:00000000',
        'redis_git_dirty:0',
        'redis_build_id:0',
        'redis_mode:standalone',
        `os:${os.type()} ${os.release()} ${os.arch()}`,
        `arch_bits:${process.arch.includes('64') ? 64 : 32}`,
        'multiplexing_api:libuv',
        `process_id:${process.pid}`,
        'process_supervised:no',
        `run_id:${RUN_ID}`,
        `tcp_port:${instance.config.get('port')}`,
        `server_time_usec:${now * 1000}`,
        `uptime_in_seconds:${uptime}`,
        `uptime_in_days:${Math.floor(uptime / 86400)}`,
        `hz:${instance.config.get('hz')}`,
        `configured_hz:${instance.config.get('hz')}`,
        `executable:${process.argv[1] ?? ''}`,
        'config_file:',
        'io_threads_active:0',
        `sluice_node_version:${process.version}`,
      ];
    }
    case 'clients': {
      let connected = 0;
      for (const c of instance.clients.values()) if (c.kind === 'tcp') connected++;
      return [
        `connected_clients:${connected}`,
        'cluster_connections:0',
        `maxclients:${instance.config.get('maxclients')}`,
        'client_recent_max_input_buffer:0',
        'client_recent_max_output_buffer:0',
        `blocked_clients:${instance.blockedClientCount()}`,
        'tracking_clients:0',
        'clients_in_timeout_table:0',
      ];
    }
    case 'memory': {
      const mem = process.memoryUsage();
      const used = mem.heapUsed + mem.external;
      peakMemory = Math.max(peakMemory, used);
      const maxmemory = instance.config.getNumber('maxmemory');
      return [
        `used_memory:${used}`,
        `used_memory_human:${human(used)}`,
        `used_memory_rss:${mem.rss}`,
        `used_memory_rss_human:${human(mem.rss)}`,
        `used_memory_peak:${peakMemory}`,
        `used_memory_peak_human:${human(peakMemory)}`,
        `total_system_memory:${os.totalmem()}`,
        `total_system_memory_human:${human(os.totalmem())}`,
        `maxmemory:${maxmemory}`,
        `maxmemory_human:${human(maxmemory)}`,
        `maxmemory_policy:${instance.config.get('maxmemory-policy')}`,
        `mem_fragmentation_ratio:${(mem.rss / Math.max(used, 1)).toFixed(2)}`,
        'mem_allocator:v8',
      ];
    }
    case 'persistence':
      return [
        'loading:0',
        'async_loading:0',
        `rdb_changes_since_last_save:${instance.dirty}`,
        'rdb_bgsave_in_progress:0',
        `rdb_last_save_time:${instance.lastSaveTime}`,
        'rdb_last_bgsave_status:ok',
        `aof_enabled:${instance.persistence !== null ? 1 : 0}`,
        'aof_rewrite_in_progress:0',
        'aof_rewrite_scheduled:0',
        'aof_last_rewrite_time_sec:-1',
        'aof_current_rewrite_time_sec:-1',
        'aof_last_bgrewrite_status:ok',
        'aof_rewrites:0',
        `aof_last_write_status:${instance.persistence?.writeError() ? 'err' : 'ok'}`,
      ];
    case 'stats':
      return [
        `total_connections_received:${stats.connectionsReceived}`,
        `total_commands_processed:${stats.commandsProcessed}`,
        'instantaneous_ops_per_sec:0',
        `total_net_input_bytes:${stats.netInputBytes}`,
        `total_net_output_bytes:${stats.netOutputBytes}`,
        `rejected_connections:${stats.rejectedConnections}`,
        `expired_keys:${stats.expiredKeys}`,
        'evicted_keys:0',
        'evicted_clients:0',
        `keyspace_hits:${stats.keyspaceHits}`,
        `keyspace_misses:${stats.keyspaceMisses}`,
        'pubsub_channels:0',
        'pubsub_patterns:0',
        'latest_fork_usec:0',
        'total_forks:0',
        'unexpected_error_replies:0',
        `total_error_replies:${stats.totalErrorReplies}`,
      ];
    case 'replication':
      return [
        'role:master',
        'connected_slaves:0',
        'master_failover_state:no-failover',
        `master_replid:${RUN_ID}`,
        'master_replid2:0000000000000000000000000000000000000000',
        'master_repl_offset:0',
        'second_repl_offset:-1',
        'repl_backlog_active:0',
        'repl_backlog_size:1048576',
        'repl_backlog_first_byte_offset:0',
        'repl_backlog_histlen:0',
      ];
    case 'cpu': {
      const cpu = process.cpuUsage();
      const secs = (us: number) => (us / 1e6).toFixed(6);
      return [
        `used_cpu_sys:${secs(cpu.system)}`,
        `used_cpu_user:${secs(cpu.user)}`,
        'used_cpu_sys_children:0.000000',
        'used_cpu_user_children:0.000000',
        `used_cpu_sys_main_thread:${secs(cpu.system)}`,
        `used_cpu_user_main_thread:${secs(cpu.user)}`,
      ];
    }
    case 'modules':
    case 'cluster':
      return name === 'cluster' ? ['cluster_enabled:0'] : [];
    case 'commandstats': {
      const lines: string[] = [];
      for (const [cmd, s] of stats.perCommand) {
        if (s.calls === 0 && s.rejectedCalls === 0 && s.failedCalls === 0) continue;
        const usec = Math.round(s.usec);
        const perCall = s.calls === 0 ? 0 : usec / s.calls;
        lines.push(
          `cmdstat_${cmd}:calls=${s.calls},usec=${usec},usec_per_call=${perCall.toFixed(2)},` +
            `rejected_calls=${s.rejectedCalls},failed_calls=${s.failedCalls}`,
        );
      }
      return lines;
    }
    case 'errorstats':
      // Redis keeps them in a radix tree: listed in byte order of the code.
      return [...stats.errorCodes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([code, n]) => `errorstat_${code}:count=${n}`);
    case 'keyspace': {
      const lines: string[] = [];
      for (const db of instance.keyspace.dbs) {
        if (db.size === 0) continue;
        lines.push(`db${db.index}:keys=${db.size},expires=${db.expires.size},avg_ttl=0`);
      }
      return lines;
    }
    default:
      return null;
  }
}

const SECTION_TITLES: Record<string, string> = { cpu: 'CPU' };

/** The INFO text for the requested sections (Redis's genRedisInfoString). */
export function infoText(instance: Instance, requested: string[]): string {
  let names: string[];
  if (requested.length === 0 || requested.includes('default')) names = DEFAULT_SECTIONS;
  else if (requested.includes('all') || requested.includes('everything')) names = ALL_SECTIONS;
  else names = requested;
  const extra = [...instance.infoProviders.keys()].filter((k) => !ALL_SECTIONS.includes(k));
  if (requested.includes('all') || requested.includes('everything')) names = [...names, ...extra];
  const parts: string[] = [];
  for (const name of new Set(names)) {
    const lines = sectionLines(instance, name);
    if (lines === null) continue;
    const title = SECTION_TITLES[name] ?? name[0]!.toUpperCase() + name.slice(1);
    parts.push(`# ${title}\r\n${lines.map((l) => `${l}\r\n`).join('')}`);
  }
  return parts.join('\r\n');
}

function info(ctx: Context, argv: Buffer[]): Reply {
  return new VerbatimReply('txt', infoText(ctx.instance, argv.slice(1).map((a) => lower(a))));
}

// --- CONFIG ------------------------------------------------------------------------------

function configGet(ctx: Context, argv: Buffer[]): Reply {
  const seen = new Map<string, string>();
  for (const pattern of argv.slice(2)) {
    for (const [name, value] of ctx.instance.config.match(text(pattern))) seen.set(name, value);
  }
  return new MapReply([...seen].map(([k, v]) => [k, v] as [Reply, Reply]));
}

function configSet(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length % 2 !== 0) fail(Errors.wrongArity('config|set'));
  const config = ctx.instance.config;
  const changes = new Map<string, string>();
  // Validate every pair first: CONFIG SET of several parameters is all or nothing.
  for (let i = 2; i < argv.length; i += 2) {
    const name = lower(argv[i]!);
    const param = config.param(name);
    if (param === undefined) fail(`ERR Unknown option or number of arguments for CONFIG SET - '${text(argv[i]!)}'`);
    const failed = (why: string) => fail(`ERR CONFIG SET failed (possibly related to argument '${name}') - ${why}`);
    if (changes.has(name)) failed('duplicate parameter');
    if (!param.mutable) failed("can't set immutable config");
    let value = text(argv[i + 1]!);
    if (param.validate !== undefined) {
      const result = param.validate(value, config.get(name));
      if ('error' in result) failed(result.error);
      else value = result.ok;
    }
    changes.set(name, value);
  }
  for (const [name, value] of changes) config.setRaw(name, value);
  return OK;
}

/** CONFIG RESETSTAT: zeroes the counters INFO stats/commandstats/errorstats report. */
function resetStats(instance: Instance): void {
  const s = instance.stats;
  s.commandsProcessed = 0;
  s.connectionsReceived = 0;
  s.rejectedConnections = 0;
  s.expiredKeys = 0;
  s.keyspaceHits = 0;
  s.keyspaceMisses = 0;
  s.totalErrorReplies = 0;
  s.netInputBytes = 0;
  s.netOutputBytes = 0;
  s.perCommand.clear();
  s.errorCodes.clear();
}

const CONFIG_HELP = [
  'GET <pattern>',
  '    Return parameters matching the glob-like <pattern> and their values.',
  'SET <directive> <value>',
  '    Set the configuration <directive> to <value>.',
  'RESETSTAT',
  '    Reset statistics reported by the INFO command.',
  'REWRITE',
  '    Rewrite the configuration file.',
];

// --- COMMAND -----------------------------------------------------------------------------

function fullName(spec: CommandSpec, parent?: CommandSpec): string {
  return parent === undefined ? spec.name : `${parent.name}|${spec.name}`;
}

function commandEntry(spec: CommandSpec, parent?: CommandSpec): Reply {
  const categories = spec.categories ?? parent?.categories ?? [];
  return [
    fullName(spec, parent),
    spec.arity,
    new SetReply(spec.flags.map((f) => new SimpleString(f))),
    spec.firstKey,
    spec.lastKey,
    spec.step,
    new SetReply(categories.map((c) => new SimpleString(`@${c}`))),
    [],
    [],
    (spec.subcommands ?? []).map((sub) => commandEntry(sub, spec)),
  ];
}

function commandDocs(spec: CommandSpec, parent?: CommandSpec): Reply {
  const fields: Array<[Reply, Reply]> = [
    ['summary', spec.summary ?? ''],
    ['since', spec.since ?? parent?.since ?? '1.0.0'],
    ['group', spec.group ?? parent?.group ?? 'generic'],
  ];
  if (spec.subcommands !== undefined && spec.subcommands.length > 0) {
    fields.push([
      'subcommands',
      new MapReply(spec.subcommands.map((sub) => [fullName(sub, spec), commandDocs(sub, spec)] as [Reply, Reply])),
    ]);
  }
  return new MapReply(fields);
}

interface Found {
  spec: CommandSpec;
  parent?: CommandSpec;
}

/** The specs COMMAND INFO/DOCS name (all when none is named); undefined for unknown names. */
function requestedSpecs(instance: Instance, argv: Buffer[]): Array<Found | undefined> {
  if (argv.length === 2) return instance.table.all().map((spec) => ({ spec }));
  return argv.slice(2).map((a) => lookup(instance, text(a)));
}

/** Looks up "name" or "name|sub" as COMMAND INFO/DOCS accept it. */
function lookup(instance: Instance, name: string): Found | undefined {
  const [base, sub] = name.toLowerCase().split('|', 2) as [string, string | undefined];
  const spec = instance.table.get(base);
  if (spec === undefined) return undefined;
  if (sub === undefined) return { spec };
  const child = spec.subcommands?.find((s) => s.name === sub);
  return child === undefined ? undefined : { spec: child, parent: spec };
}

function commandList(ctx: Context, argv: Buffer[]): Reply {
  let filter: (spec: CommandSpec, name: string) => boolean = () => true;
  if (argv.length === 5 && isKeyword(argv[2], 'filterby')) {
    const kind = lower(argv[3]!);
    const value = text(argv[4]!);
    if (kind === 'module') filter = () => false;
    else if (kind === 'aclcat') filter = (spec) => (spec.categories ?? []).includes(value.toLowerCase());
    else if (kind === 'pattern') {
      const re = globToRegExp(value);
      filter = (_spec, name) => re.test(name);
    } else fail(Errors.syntax);
  } else if (argv.length !== 2) {
    fail(Errors.syntax);
  }
  const names: Reply[] = [];
  for (const spec of ctx.instance.table.all()) {
    if (filter(spec, spec.name)) names.push(spec.name);
    for (const sub of spec.subcommands ?? []) {
      const name = fullName(sub, spec);
      if (filter(sub, name)) names.push(name);
    }
  }
  return names;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.toLowerCase().replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** The key positions of a full command line, as COMMAND GETKEYS. */
function commandGetKeys(ctx: Context, argv: Buffer[]): Reply {
  const line = argv.slice(2);
  let spec = ctx.instance.table.get(lower(line[0]!));
  if (spec?.subcommands !== undefined && line.length >= 2) {
    spec = spec.subcommands.find((s) => s.name === lower(line[1]!));
  }
  if (spec === undefined) fail('ERR Invalid command specified');
  if (spec.keys === undefined && spec.firstKey === 0) fail('ERR The command has no key arguments');
  if ((spec.arity > 0 && line.length !== spec.arity) || line.length < -spec.arity) {
    fail('ERR Invalid number of arguments specified for command');
  }
  let positions: number[];
  if (spec.keys !== undefined) {
    positions = spec.keys(line);
  } else {
    const last = spec.lastKey < 0 ? line.length + spec.lastKey : spec.lastKey;
    positions = [];
    for (let i = spec.firstKey; i <= last && i < line.length; i += Math.max(spec.step, 1)) positions.push(i);
  }
  if (positions.length === 0) fail('ERR Invalid arguments specified for command');
  return positions.map((i) => line[i]!);
}

const COMMAND_HELP = [
  '(no subcommand)',
  '    Return details about all Redis commands.',
  'COUNT',
  '    Return the total number of commands in this Redis server.',
  'LIST',
  '    Return a list of all commands in this Redis server.',
  'INFO [<command-name> ...]',
  '    Return details about multiple Redis commands.',
  '    If no command names are given, documentation details for all',
  '    commands are returned.',
  'DOCS [<command-name> ...]',
  '    Return documentation details about multiple Redis commands.',
  '    If no command names are given, documentation details for all',
  '    commands are returned.',
  'GETKEYS <full-command>',
  '    Return the keys from a full Redis command.',
];

// --- SHUTDOWN, TIME, DEBUG ---------------------------------------------------------------

async function shutdown(ctx: Context, argv: Buffer[]): Promise<Reply> {
  let nosave = false;
  let save = false;
  let other = false;
  let abort = false;
  for (const arg of argv.slice(1)) {
    const opt = lower(arg);
    if (opt === 'nosave') nosave = true;
    else if (opt === 'save') save = true;
    else if (opt === 'now' || opt === 'force') other = true;
    else if (opt === 'abort') abort = true;
    else fail(Errors.syntax);
  }
  if ((abort && (nosave || save || other)) || (nosave && save)) fail(Errors.syntax);
  // sluice shuts down at once, so there is never a shutdown in progress to abort.
  if (abort) fail('ERR No shutdown in progress.');
  const handler = ctx.instance.shutdownHandler;
  if (handler === null) fail('ERR SHUTDOWN is not available in this process');
  const error = await handler({ save: nosave ? false : save ? true : null });
  // On success the transport closes every connection before this reply could be written.
  return error === null ? OK : new ErrorReply(error);
}

function time(): Reply {
  const micros = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
  return [String(micros / 1_000_000n), String(micros % 1_000_000n)];
}

function debugSleep(_ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const seconds = parseDouble(argv[2]!);
  if (seconds === undefined) fail(Errors.notFloat);
  if (seconds <= 0) return OK;
  // Only this connection waits; sluice does not freeze other clients as Redis would.
  return new Promise((resolve) => setTimeout(() => resolve(OK), seconds * 1000));
}

const SERVER = ['slow', 'dangerous'];

export const commands: CommandSpec[] = [
  command('info', -1, ['loading', 'stale'], null, info, {
    categories: ['slow', 'dangerous'],
    summary: 'Get information and statistics about the server',
    group: 'server',
  }),
  container(
    'config',
    -2,
    [
      command('get', -3, ['admin', 'noscript', 'loading', 'stale'], null, configGet, { categories: SERVER }),
      command('set', -4, ['admin', 'noscript', 'loading', 'stale'], null, configSet, { categories: SERVER }),
      command('resetstat', 2, ['admin', 'noscript', 'loading', 'stale'], null, (ctx) => {
        resetStats(ctx.instance);
        return OK;
      }, { categories: SERVER }),
      command('rewrite', 2, ['admin', 'noscript', 'loading', 'stale'], null, () =>
        fail('ERR The server is running without a config file'), { categories: SERVER }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('CONFIG', CONFIG_HELP), {
        categories: ['slow'],
      }),
    ],
    { summary: 'A container for server configuration commands', group: 'server' },
  ),
  container(
    'command',
    -1,
    [
      command('count', 2, ['loading', 'stale'], null, (ctx) => ctx.instance.table.size, { categories: ['slow', 'connection'] }),
      command('list', -2, ['loading', 'stale'], null, commandList, { categories: ['slow', 'connection'] }),
      command('info', -2, ['loading', 'stale'], null, (ctx, argv) => {
        const specs = requestedSpecs(ctx.instance, argv);
        return specs.map((found) => (found === undefined ? null : commandEntry(found.spec, found.parent)));
      }, { categories: ['slow', 'connection'] }),
      command('docs', -2, ['loading', 'stale'], null, (ctx, argv) => {
        const specs = requestedSpecs(ctx.instance, argv);
        const entries: Array<[Reply, Reply]> = [];
        for (const found of specs) {
          if (found !== undefined) entries.push([fullName(found.spec, found.parent), commandDocs(found.spec, found.parent)]);
        }
        return new MapReply(entries);
      }, { categories: ['slow', 'connection'] }),
      command('getkeys', -4, ['loading', 'stale'], null, commandGetKeys, { categories: ['slow', 'connection'] }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('COMMAND', COMMAND_HELP), {
        categories: ['slow', 'connection'],
      }),
    ],
    {
      flags: ['loading', 'stale'],
      categories: ['slow', 'connection'],
      summary: 'Get array of Redis command details',
      group: 'server',
      handler: (ctx) => ctx.instance.table.all().map((spec) => commandEntry(spec)),
    },
  ),
  command('time', 1, ['loading', 'stale', 'fast'], null, time, {
    categories: ['fast'],
    summary: 'Return the current server time',
    group: 'server',
  }),
  command('shutdown', -1, ['admin', 'noscript', 'loading', 'stale', 'no_multi', 'allow_busy'], null, shutdown, {
    categories: ['admin', 'slow', 'dangerous'],
    summary: 'Synchronously save the dataset to disk and then shut down the server',
    group: 'server',
  }),
  container(
    'debug',
    -2,
    [
      command('sleep', 3, ['admin', 'noscript', 'loading', 'stale'], null, debugSleep, { categories: ['admin', 'slow', 'dangerous'] }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('DEBUG', ['SLEEP <seconds>', '    Stop the server for <seconds>. Decimals allowed.']), {
        categories: ['slow'],
      }),
    ],
    { flags: ['admin', 'noscript', 'loading', 'stale'], summary: 'A container for debugging commands', group: 'server' },
  ),
];
