// `sluice server`: a RESP server on the command table, with the append-only file when --dir is given.
import type { Command } from 'commander';
import { DEFAULT_PARAMS } from '../commands/config.js';
import { consoleLogger } from './console-logger.js';
import { instanceBehind } from '../commands/core/instance-handles.js';
import type { HttpListener } from '../server/http-listen.js';
import { type Server, serve } from '../server/serve.js';
import { hideCommandLine, showListening } from './process-title.js';
import { holdYoungGeneration } from './young-generation.js';
import { rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeError } from '../persist/fs-layer.js';
import { AclStartupError } from '../commands/acl/acl-file.js';
import { ConfigFileError, ConfigFileUnreadable, KEPT_DIRECTIVES, type LoadedConfig, loadConfig, optionLines } from './config-file.js';
import { type RedisLog, redisLog } from './redis-log.js';

interface ServerFlags {
  port: string;
  bind: string;
  dir?: string;
  appendonly?: string;
  appendfsync: string;
  requirepass?: string;
  metricsPort?: string;
  metricsBind: string;
  metricsToken?: string;
  replicaof?: string;
  [flag: string]: string | undefined;
}

/** Config parameters settable as `--name value` flags, validated as CONFIG SET validates them. */
const CONFIG_FLAGS: Array<[string, string]> = [
  ['protected-mode', 'yes (default): refuse non-loopback clients while no password is set'],
  ['maxmemory', 'refuse denyoom writes past this memory (units as Redis: 100mb, 1gb); 0 = no limit'],
  ['maxmemory-policy', 'noeviction (default: refuse writes), allkeys-lru|lfu|random or volatile-lru|lfu|random|ttl (evict keys)'],
  ['client-output-buffer-limit', "Redis's '<class> <hard> <soft> <seconds>' groups (normal, replica, pubsub)"],
  ['client-query-buffer-limit', 'close a client whose unparsed input exceeds this (default 1gb)'],
  ['proto-max-bulk-len', 'largest bulk argument accepted (default 512mb)'],
  ['enable-debug-command', 'no (default), yes, or local (loopback clients only): allow the DEBUG command'],
  ['enable-protected-configs', 'no (default), yes, or local (loopback clients only): allow CONFIG SET dir / dbfilename'],
  ['propagation-error-behavior', 'ignore (default) or panic: what a command failing while the AOF loads does'],
  ['dbfilename', 'the RDB file SAVE/BGSAVE write in --dir and loaded at start without the AOF (default dump.rdb)'],
  ['masterauth', 'the password to AUTH with at the primary (with --replicaof)'],
  ['masteruser', 'the user to AUTH as at the primary (with --replicaof and --masterauth)'],
  ['replica-read-only', 'yes (default): a replica refuses writes from its clients with READONLY'],
  ['min-replicas-to-write', 'refuse writes with NOREPLICAS while fewer replicas are online and within min-replicas-max-lag (default 0: never)'],
  ['repl-diskless-sync-delay', 'seconds a diskless full sync waits for more replicas to share it (default 5)'],
  ['repl-backlog-size', 'bytes of replication stream kept for replicas to resume from with PSYNC (default 1mb)'],
];

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The validated values of the config flags given on the command line. */
function configFlags(flags: ServerFlags): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name] of CONFIG_FLAGS) {
    const raw = flags[camel(name)];
    if (raw === undefined) continue;
    const param = DEFAULT_PARAMS.find((p) => p.name === name)!;
    const result = param.validate?.(raw, param.defaultValue) ?? { ok: raw };
    if ('error' in result) throw new Error(`--${name}: ${result.error}`);
    out[name] = result.ok;
  }
  return out;
}

/** `--replicaof "host port"` (or "host:port"). */
function primaryAddress(value: string): { host: string; port: number } {
  const m = /^\s*(\S+?)(?:\s+|:)(\d+)\s*$/.exec(value);
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || port < 1 || port > 65535) throw new Error(`invalid --replicaof '${value}': give "host port"`);
  return { host: m[1]!, port };
}

function choice(name: string, value: string, allowed: string[]): string {
  const v = value.toLowerCase();
  if (!allowed.includes(v)) throw new Error(`--${name} must be one of ${allowed.join(', ')} (got '${value}')`);
  return v;
}

/** The server's metrics, answered only to the scrapes metrics-access.ts allows. */
async function startGuardedMetrics(server: Server, port: number, host: string, token: string | undefined): Promise<HttpListener> {
  const { config } = instanceBehind(server);
  const [{ createServer }, { metricsHandler, serverMetricsRegistry }, { guardedMetricsHandler }, { listenHttp }] = await Promise.all([
    import('node:http'),
    import('../server/metrics.js'),
    import('../server/metrics-access.js'),
    import('../server/http-listen.js'),
  ]);
  const handler = guardedMetricsHandler(metricsHandler(serverMetricsRegistry(server)), {
    token: () => token ?? config.get('requirepass'),
    protectedMode: () => config.get('protected-mode') === 'yes',
  });
  return listenHttp(createServer(handler), port, host);
}

export function register(program: Command): void {
  const command = program
    .command('server')
    .description('Run a RESP server (redis-cli, ioredis and node-redis connect unchanged)')
    .option('--port <port>', 'TCP port, 0 picks a free one', '6379')
    .option('--bind <host>', 'address to listen on', '127.0.0.1')
    .option('--dir <path>', 'directory of the append-only file (persistence is on when given)')
    .option('--appendonly <yes|no>', 'log writes to the append-only file (default: yes with --dir)')
    .option('--appendfsync <policy>', 'always, everysec or no', 'everysec')
    .option('--requirepass <password>', 'password clients must AUTH with')
    .option('--metrics-port <port>', 'serve Prometheus metrics on http://METRICS-BIND:PORT/metrics (0 picks a free one)')
    .option('--metrics-bind <host>', 'address the metrics listen on', '127.0.0.1')
    .option('--metrics-token <token>', 'bearer token scrapes must send (default: the requirepass, if set)')
    .option('--replicaof <"host port">', 'start as a replica of this primary (redis-server or sluice server), as redis.conf\'s replicaof');
  for (const [name, help] of CONFIG_FLAGS) command.option(`--${name} <value>`, help);
  command
    .argument('[config-file]', "a redis.conf to start from, as redis-server's first argument (flags after it override it)")
    .allowUnknownOption()
    .allowExcessArguments();
  command.action(async (configPath: string | undefined, flags: ServerFlags, cmd: Command) => {
      hideCommandLine('sluice server');
      holdYoungGeneration();
      const fromFile = configPath !== undefined && (configPath === '-' || !configPath.startsWith('-'));
      // Options of redis.conf without a file (`--user alice ...`): as redis-server, a
      // configuration made of the options alone.
      const started =
        fromFile || cmd.args.length > 0 ? await startFromConfigFile(fromFile ? configPath : null, flags, cmd) : await startFromFlags(flags);
      if (started === null) return;
      const { server, log } = started;
      let metricsUrl: string | null = null;
      if (flags.metricsPort !== undefined) {
        const mport = Number(flags.metricsPort);
        if (!Number.isInteger(mport) || mport < 0 || mport > 65535) throw new Error(`invalid --metrics-port '${flags.metricsPort}'`);
        const metrics = await startGuardedMetrics(server, mport, flags.metricsBind, flags.metricsToken);
        server.onShutdown(() => metrics.close());
        metricsUrl = `${metrics.origin}/metrics`;
      }

      let signalled = false;
      const onSignal = (): void => {
        if (signalled) return;
        signalled = true;
        server.close().then(
          () => process.exit(0),
          (err: unknown) => {
            console.error('sluice: shutdown failed:', err);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      showListening('sluice server', server.host, server.port);
      log?.notice('Ready to accept connections');
      console.log(`ready on ${server.host}:${server.port}`);
      if (metricsUrl !== null) console.log(`metrics on ${metricsUrl}`);
    });
}

interface Started {
  server: Server;
  /** The Redis-style log of a server started from a config file. */
  log: RedisLog | null;
}

async function startFromFlags(flags: ServerFlags): Promise<Started> {
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port '${flags.port}'`);
  const appendfsync = choice('appendfsync', flags.appendfsync, ['always', 'everysec', 'no']) as 'always' | 'everysec' | 'no';
  const appendonly = flags.appendonly === undefined ? null : choice('appendonly', flags.appendonly, ['yes', 'no']);
  const persistent = flags.dir !== undefined && appendonly !== 'no';
  const server = await serve({
    logger: consoleLogger,
    config: configFlags(flags),
    port,
    bind: flags.bind,
    appendfsync,
    appendonly: persistent,
    ...(flags.dir === undefined ? {} : { dir: flags.dir }),
    ...(flags.requirepass === undefined ? {} : { requirepass: flags.requirepass }),
    ...(flags.replicaof === undefined ? {} : { replicaof: primaryAddress(flags.replicaof) }),
    onShutdownComplete: () => process.exit(0),
  });
  return { server, log: null };
}

/** The flags given on the command line after a config file, as the lines redis-server appends to it. */
function commandLineOptions(flags: ServerFlags, cmd: Command, fromFile: boolean): string {
  const options: Array<[string, string[]]> = [];
  const flagNames = ['port', 'bind', 'dir', 'appendonly', 'appendfsync', 'requirepass', 'replicaof', ...CONFIG_FLAGS.map(([n]) => n)];
  for (const name of flagNames) {
    const key = camel(name);
    if (cmd.getOptionValueSource(key) !== 'cli') continue;
    const value = flags[key]!;
    options.push([name, name === 'replicaof' ? value.trim().split(/\s+|:/) : [value]]);
  }
  // Options commander does not know: `--name value value ...`, as redis-server reads them.
  for (const arg of cmd.args.slice(fromFile ? 1 : 0)) {
    if (arg.startsWith('--')) options.push([arg.slice(2), []]);
    else if (options.length > 0) options[options.length - 1]![1].push(arg);
    else throw new Error(`unexpected argument '${arg}' after the config file`);
  }
  return optionLines(options);
}

/** `sluice server redis.conf [...]`: Redis's loading, log, pidfile and failures. */
async function startFromConfigFile(configPath: string | null, flags: ServerFlags, cmd: Command): Promise<Started | null> {
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(configPath, commandLineOptions(flags, cmd, configPath !== null));
  } catch (err) {
    if (!(err instanceof ConfigFileError) && !(err instanceof ConfigFileUnreadable)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  let log: RedisLog;
  try {
    log = redisLog(loaded.logfile);
  } catch (err) {
    process.stderr.write(`${new ConfigFileError(`Can't open the log file: ${describeError(err)}`, null).message}\n`);
    process.exit(1);
  }
  log.notice(`sluice server (Redis 7.0.15 compatible), PID: ${process.pid}, port=${loaded.port}, just started`);
  log.notice(configPath === null ? 'Configuration loaded' : `Configuration loaded from ${resolve(configPath)}`);
  let server: Server;
  try {
    server = await serve({
      logger: log.logger,
      config: loaded.config,
      port: loaded.port,
      bind: loaded.bind,
      appendfsync: loaded.appendfsync,
      appendonly: loaded.appendonly,
      dir: loaded.dir,
      ...(loaded.requirepass === undefined ? {} : { requirepass: loaded.requirepass }),
      ...(loaded.replicaof === undefined ? {} : { replicaof: loaded.replicaof }),
      ...(configPath === '-' || configPath === null ? {} : { configFile: { path: resolve(configPath), keptDirectives: KEPT_DIRECTIVES } }),
      users: loaded.users,
      onShutdownComplete: () => process.exit(0),
    });
  } catch (err) {
    if (err instanceof AclStartupError) {
      for (const line of err.message.split('\n')) log.logger.warn(line);
      process.exit(1);
    }
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    log.logger.warn(`Warning: Could not create server TCP listening socket ${loaded.bind}:${loaded.port}: bind: Address already in use`);
    log.logger.warn(`Failed listening on port ${loaded.port} (TCP), aborting.`);
    process.exit(1);
  }
  if (loaded.pidfile !== '') writePidFile(loaded.pidfile, log, server);
  return { server, log };
}

/** As Redis: the pid in `pidfile` (a failure is only a warning), removed at shutdown. */
function writePidFile(path: string, log: RedisLog, server: Server): void {
  try {
    writeFileSync(path, `${process.pid}\n`);
  } catch (err) {
    log.logger.warn(`Failed to write PID file: ${describeError(err)}`);
    return;
  }
  server.onShutdown(() => rmSync(path, { force: true }));
}
