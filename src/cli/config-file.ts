// `sluice server /path/redis.conf [--name value ...]`: reads a redis.conf as Redis 7.0's config.c
// does (loadServerConfigFromString: sdssplitargs words, comments, blank lines, `include`,
// case-insensitive directive names, a later line overriding an earlier one, the command line's
// `--name value` options appended as further lines) and maps it onto serve()'s options. A
// directive sluice does not act on is accepted where ignoring it is harmless (IGNORED) and
// refused where ignoring it would surprise; anything else fails with Redis's FATAL CONFIG FILE
// ERROR text and exit code 1.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Config } from '../commands/config.js';
import { repr, splitArgs } from '../commands/config-syntax.js';
import { globMatch } from '../commands/glob.js';
import { AclCommandSet } from '../commands/acl/acl-commands.js';
import { checkUserDeclaration } from '../commands/acl/acl-file.js';
import { allCommands } from '../commands/index.js';
import { CommandTable } from '../commands/table.js';

/** The command table, for checking the rules of `user` lines. */
function tableOf(specs: typeof allCommands): CommandTable {
  const table = new CommandTable();
  table.register(specs);
  return table;
}

/** Redis's loaderr: printed on stderr, then exit 1. */
export class ConfigFileError extends Error {
  constructor(reason: string, at: { line: number; text: string } | null) {
    const where = at === null ? '' : `Reading the configuration file, at line ${at.line}\n>>> '${at.text}'\n`;
    super(`\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n${where}${reason}`);
    this.name = 'ConfigFileError';
  }
}

/** Redis's "can't open config file" (logged, exit 1). */
export class ConfigFileUnreadable extends Error {
  constructor(path: string, err: NodeJS.ErrnoException) {
    const why = err.code === 'ENOENT' ? 'No such file or directory' : err.code === 'EACCES' ? 'Permission denied' : err.message;
    super(`Fatal error, can't open config file '${path}': ${why}`);
    this.name = 'ConfigFileUnreadable';
  }
}

type Check = (args: string[]) => string | null;

/** Accepted only with one of these values (case-insensitive): another would be ignored, and surprise. */
const only = (allowed: string[], why: string): Check => (args) =>
  allowed.includes((args[0] ?? '').toLowerCase()) ? null : why;

/**
 * Redis directives sluice accepts without acting on them (docs/server.md lists them): tuning of
 * things sluice does not have (fork, jemalloc, defrag, I/O threads, eviction sampling), logging
 * style, cluster and TLS settings while those are off, test-only delays. A check refuses the
 * values whose effect a user would miss. CONFIG REWRITE keeps their lines as written.
 */
export const IGNORED: Record<string, Check | null> = {
  daemonize: only(['no'], 'sluice server does not daemonize: run it under a supervisor (systemd, Docker) with daemonize no'),
  supervised: only(['no', 'auto'], 'sluice server does not notify a supervisor: use supervised no (and a simple systemd unit)'),
  'always-show-logo': null,
  'set-proc-title': null,
  'proc-title-template': null,
  'syslog-enabled': only(['no'], 'sluice server does not log to syslog: use logfile (or stdout)'),
  'syslog-ident': null,
  'syslog-facility': null,
  'crash-log-enabled': null,
  'crash-memcheck-enabled': null,
  'use-exit-on-panic': null,
  'disable-thp': null,
  'jemalloc-bg-thread': null,
  activerehashing: null,
  activedefrag: null,
  'active-defrag-cycle-max': null,
  'active-defrag-cycle-min': null,
  'active-defrag-ignore-bytes': null,
  'active-defrag-max-scan-fields': null,
  'active-defrag-threshold-lower': null,
  'active-defrag-threshold-upper': null,
  'active-expire-effort': null,
  'rdb-del-sync-files': null,
  'rdb-save-incremental-fsync': null,
  'aof-rewrite-incremental-fsync': null,
  'no-appendfsync-on-rewrite': null,
  'aof-load-truncated': null,
  'aof-timestamp-enabled': only(['no'], 'sluice server writes no timestamp annotations in the AOF: use aof-timestamp-enabled no'),
  'aof-disable-auto-gc': null,
  'stop-writes-on-bgsave-error': null,
  'tcp-backlog': null,
  'tcp-keepalive': null,
  'io-threads': null,
  'io-threads-do-reads': null,
  'oom-score-adj': null,
  'oom-score-adj-values': null,
  'enable-module-command': null,
  'watchdog-period': null,
  'latency-tracking': null,
  'latency-tracking-info-percentiles': null,
  'replica-lazy-flush': null,
  'slave-lazy-flush': null,
  'replica-ignore-maxmemory': null,
  'slave-ignore-maxmemory': null,
  'replica-announced': null,
  'replica-announce-ip': only([''], 'sluice server does not announce another address to its primary'),
  'slave-announce-ip': only([''], 'sluice server does not announce another address to its primary'),
  'replica-announce-port': only(['0'], 'sluice server does not announce another port to its primary'),
  'slave-announce-port': only(['0'], 'sluice server does not announce another port to its primary'),
  'replica-ignore-disk-write-errors': null,
  'sanitize-dump-payload': null,
  'shutdown-on-sigint': null,
  'shutdown-on-sigterm': null,
  'socket-mark-id': null,
  'bind-source-addr': null,
  unixsocket: null,
  unixsocketperm: null,
  'cluster-enabled': only(['no'], 'sluice server does not run in cluster mode'),
  'cluster-config-file': null,
  'cluster-node-timeout': null,
  'cluster-port': null,
  'cluster-announce-ip': null,
  'cluster-announce-port': null,
  'cluster-announce-bus-port': null,
  'cluster-announce-tls-port': null,
  'cluster-announce-hostname': null,
  'cluster-preferred-endpoint-type': null,
  'cluster-replica-validity-factor': null,
  'cluster-slave-validity-factor': null,
  'cluster-migration-barrier': null,
  'cluster-allow-replica-migration': null,
  'cluster-require-full-coverage': null,
  'cluster-replica-no-failover': null,
  'cluster-slave-no-failover': null,
  'cluster-allow-reads-when-down': null,
  'cluster-allow-pubsubshard-when-down': null,
  'cluster-link-sendbuf-limit': null,
  'tls-port': only(['0'], 'sluice server does not speak TLS: use tls-port 0 (and a TLS proxy)'),
  'tls-replication': only(['no'], 'sluice server does not speak TLS'),
  'tls-cluster': null,
  'tls-cert-file': null,
  'tls-key-file': null,
  'tls-key-file-pass': null,
  'tls-client-cert-file': null,
  'tls-client-key-file': null,
  'tls-client-key-file-pass': null,
  'tls-dh-params-file': null,
  'tls-ca-cert-file': null,
  'tls-ca-cert-dir': null,
  'tls-auth-clients': null,
  'tls-protocols': null,
  'tls-ciphers': null,
  'tls-ciphersuites': null,
  'tls-prefer-server-ciphers': null,
  'tls-session-caching': null,
  'tls-session-cache-size': null,
  'tls-session-cache-timeout': null,
  'ignore-warnings': null,
};

/** Redis's directives that take several words (the others take exactly one). */
const MULTI_ARG = new Set(['replicaof', 'save', 'bind', 'client-output-buffer-limit', 'oom-score-adj-values', 'latency-tracking-info-percentiles']);

/** Redis 7.0's deprecated directives, accepted and ignored (loadServerConfigFromString). */
const DEPRECATED = new Set(['list-max-ziplist-entries', 'list-max-ziplist-value', 'lua-replicate-commands']);

/** Values sluice's serve() and CLI take from the file. */
export interface LoadedConfig {
  /** The CONFIG parameters that differ from sluice's defaults (CONFIG GET's forms). */
  config: Record<string, string>;
  port: number;
  /** The address listened on (the first of the bind line). */
  bind: string;
  dir: string;
  appendonly: boolean;
  appendfsync: 'always' | 'everysec' | 'no';
  requirepass?: string;
  replicaof?: { host: string; port: number };
  logfile: string;
  pidfile: string;
  /** ACL users of `user` lines: each a name and its rules. */
  users: string[][];
}

class Loader {
  readonly config = new Config();
  replicaof: { host: string; port: number } | null = null;
  logfile = '';
  pidfile = '';
  private saveLoaded = false;
  private depth = 0;

  /** One text (a file, or the command line's options after it): Redis's loadServerConfigFromString. */
  load(text: string): void {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
      if (line.startsWith('#') || line === '') continue;
      const fail = (reason: string): never => {
        throw new ConfigFileError(reason, { line: i + 1, text: line });
      };
      const argv = splitArgs(line);
      if (argv === null) fail('Unbalanced quotes in configuration line');
      if (argv!.length === 0) continue;
      const reason = this.directive(argv![0]!.toLowerCase(), argv!.slice(1));
      if (reason !== null) fail(reason);
    }
  }

  /** Applies one directive; returns the reason it is refused, or null. */
  private directive(name: string, args: string[]): string | null {
    const known = this.config.nameOf(name) ?? (name === 'slaveof' ? 'replicaof' : name);
    const param = this.config.param(known);
    const isConfig = param !== undefined || known === 'replicaof' || known in IGNORED;
    if (isConfig) {
      if (!MULTI_ARG.has(known) && args.length !== 1) return 'wrong number of arguments';
      // A multi-word directive given as one word ("--save '900 1'") is split again.
      if (MULTI_ARG.has(known) && args.length === 1 && args[0] !== '') args = splitArgs(args[0]!) ?? args;
    }
    if (known in IGNORED) return IGNORED[known]?.(args) ?? null;
    switch (known) {
      case 'replicaof':
        return this.replicaOf(args);
      case 'save':
        return this.save(args);
      case 'bind':
        return this.set('bind', args.join(' '));
      case 'port': {
        const n = Number(args[0]);
        if (!/^\d+$/.test(args[0]!) || n > 65535) return 'argument must be between 0 and 65535 inclusive';
        return this.set('port', String(n));
      }
      case 'databases':
        return args[0] === '16' ? null : 'sluice server has 16 databases: use databases 16';
      case 'logfile':
        this.logfile = args[0]!;
        return null;
      case 'pidfile':
        this.pidfile = args[0]!;
        return null;
    }
    if (param !== undefined) {
      const value = args.join(' ');
      const result = param.validate?.(value, this.config.get(known)) ?? { ok: value };
      return 'error' in result ? result.error : this.set(known, result.ok);
    }
    if (DEPRECATED.has(name) && args.length === 1) return null;
    if (name === 'include' && args.length === 1) return this.include(args[0]!);
    if (name === 'rename-command' && args.length === 2) return 'sluice server does not rename commands';
    if (name === 'user' && args.length >= 1) return this.user(args);
    if (name === 'loadmodule' && args.length >= 1) return 'sluice server loads no modules';
    if (name === 'sentinel') return args.length === 0 ? null : 'sentinel directive while not in sentinel mode';
    if (name.includes('.')) return args.length === 0 ? 'Module config specified without value' : 'sluice server loads no modules';
    return 'Bad directive or wrong number of arguments';
  }

  /** A `user name rules...` line, checked as Redis's ACLAppendUserForLoading; applied at start. */
  private user(args: string[]): string | null {
    this.aclCommands ??= new AclCommandSet(tableOf(allCommands));
    const checked = checkUserDeclaration(this.aclCommands, args, new Set(this.users.map((u) => u[0]!)));
    if ('error' in checked) return checked.error;
    this.users.push([args[0]!, ...checked.rules]);
    return null;
  }

  /** The users the file declares (each a name and its rules), loaded at start. */
  readonly users: string[][] = [];
  private aclCommands: AclCommandSet | null = null;

  private set(name: string, value: string): null {
    this.config.setRaw(name, value);
    return null;
  }

  /** replicaof <host> <port> | no one. */
  private replicaOf(args: string[]): string | null {
    if (args.length !== 2) return 'wrong number of arguments';
    if (args[0]!.toLowerCase() === 'no' && args[1]!.toLowerCase() === 'one') {
      this.replicaof = null;
      return null;
    }
    const port = /^\d+$/.test(args[1]!) ? Number(args[1]) : NaN;
    if (!(port >= 0 && port <= 65535)) return 'Invalid master port';
    this.replicaof = { host: args[0]!, port };
    return null;
  }

  /** save <seconds> <changes> ... | "": the file's first save line replaces the default, later ones add. */
  private save(args: string[]): string | null {
    if (args.length === 1 && args[0] === '') args = [];
    if (args.length % 2 === 1) return 'Invalid save parameters';
    for (let j = 0; j < args.length; j++) {
      if (!/^-?\d+$/.test(args[j]!) || Number(args[j]) < (j % 2 === 0 ? 1 : 0)) return 'Invalid save parameters';
    }
    const before = this.saveLoaded ? this.config.get('save') : '';
    this.saveLoaded = true;
    const pairs = args.map((a) => String(Number(a))).join(' ');
    return this.set('save', args.length === 0 ? '' : [before, pairs].filter((s) => s !== '').join(' '));
  }

  /** include <path>: a glob includes every match (none is fine), a plain path must open. */
  private include(path: string): string | null {
    if (++this.depth > 32) return 'include nesting too deep';
    try {
      if (/[*?[]/.test(path)) {
        const dir = dirname(path);
        let names: string[] = [];
        try {
          names = readdirSync(dir).filter((n) => globMatch(basename(path), n)).sort();
        } catch {
          names = [];
        }
        for (const n of names) this.load(readConfigText(join(dir, n)));
      } else {
        this.load(readConfigText(path));
      }
    } finally {
      this.depth--;
    }
    return null;
  }
}

/** A config file's text; `-` reads stdin, as redis-server. */
export function readConfigText(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new ConfigFileUnreadable(path, err as NodeJS.ErrnoException);
  }
}

/** The command line's `--name value ...` options as Redis appends them to the file: one line each, values quoted. */
export function optionLines(options: Array<[name: string, values: string[]]>): string {
  return options.map(([name, values]) => [name, ...values.map((v) => repr(v))].join(' ')).join('\n');
}

/** The listen address of a bind line: its first address, '*' as every IPv4 one, '-' (optional) dropped. */
function listenAddress(bind: string): string {
  const first = (bind.split(' ').find((a) => a !== '') ?? '127.0.0.1').replace(/^-/, '');
  return first === '*' ? '0.0.0.0' : first === '::*' ? '::' : first;
}

/** Reads `path` (and what it includes), then the command line's option lines; throws ConfigFileError. */
/** `path` null: no file, the options alone (redis-server started with options and no file). */
export function loadConfig(path: string | null, options: string): LoadedConfig {
  const loader = new Loader();
  // As Redis: the options continue the file's text (an error names their line after the file's).
  const text = path === null ? '' : readConfigText(path);
  loader.load(options === '' ? text : `${text}\n${options}`);
  const { config } = loader;
  if (loader.logfile !== '') {
    try {
      statSync(dirname(resolve(loader.logfile))).isDirectory();
    } catch (err) {
      throw new ConfigFileError(`Can't open the log file: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (err as Error).message}`, null);
    }
  }
  const changed: Record<string, string> = {};
  for (const p of config.declared()) {
    const value = config.get(p.name);
    if (value !== p.defaultValue && !['port', 'dir', 'appendonly', 'appendfsync', 'requirepass'].includes(p.name)) changed[p.name] = value;
  }
  const requirepass = config.get('requirepass');
  return {
    config: changed,
    port: config.getNumber('port'),
    bind: listenAddress(config.get('bind')),
    dir: config.get('dir'),
    appendonly: config.get('appendonly') === 'yes',
    appendfsync: config.get('appendfsync') as LoadedConfig['appendfsync'],
    ...(requirepass === '' ? {} : { requirepass }),
    ...(loader.replicaof === null ? {} : { replicaof: loader.replicaof }),
    logfile: loader.logfile,
    pidfile: loader.pidfile,
    users: loader.users,
  };
}

/** The directive names whose lines CONFIG REWRITE keeps as written (accepted, not acted on). */
export const KEPT_DIRECTIVES: readonly string[] = [...Object.keys(IGNORED), 'logfile', 'pidfile', 'databases'];
