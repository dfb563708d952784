// Server configuration as CONFIG GET/SET see it. Parameters are declared with a default and an
// optional validator; values are kept as the strings CONFIG GET returns.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { globMatch } from './glob.js';
import { formatEventFlags, INVALID_EVENT_CLASS, parseEventFlags } from './keyspace-events.js';
import { type ConfigParam, memoryBytes, memoryParam, strictInteger, validateOutputBufferLimits } from './config-values.js';

export type { ConfigParam } from './config-values.js';

const yesNo = (value: string) => {
  const v = value.toLowerCase();
  return v === 'yes' || v === 'no' ? { ok: v } : { error: 'argument must be \'yes\' or \'no\'' };
};

const oneOf = (allowed: string[]) => (value: string) => {
  const v = value.toLowerCase();
  return allowed.includes(v) ? { ok: v } : { error: `argument(s) must be one of the following: ${allowed.join(', ')}` };
};

/**
 * As Redis's setConfigDirOption (a chdir): an existing directory, relative to the current one,
 * kept as an absolute path (CONFIG GET dir shows getcwd()).
 */
const existingDirectory = (value: string, current: string) => {
  const path = resolve(current, value);
  try {
    if (!statSync(path).isDirectory()) return { error: 'Not a directory' };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (err as Error).message };
  }
  return { ok: path };
};

const nonNegativeInt = (value: string) =>
  /^\d+$/.test(value) ? { ok: String(Number(value)) } : { error: 'argument couldn\'t be parsed into an integer' };

/** An integer within Redis's bounds for the parameter, with its error text. */
const intBetween = (min: number, max: number) => (value: string) => {
  if (!/^-?\d+$/.test(value)) return { error: 'argument couldn\'t be parsed into an integer' };
  const n = Number(value);
  return n < min || n > max ? { error: `argument must be between ${min} and ${max} inclusive` } : { ok: String(n) };
};


/** maxmemory-policy's values, in Redis's order (its error lists them so); eviction.ts acts on them. */
export const EVICTION_POLICIES = [
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'noeviction',
] as const;
export type EvictionPolicy = (typeof EVICTION_POLICIES)[number];

export function isLfuPolicy(policy: string): boolean {
  return policy.endsWith('-lfu');
}

export const DEFAULT_PARAMS: ConfigParam[] = [
  // The listener stays where it started: CONFIG SET to the current value (as tools that write
  // back every parameter do) succeeds, another value is refused rather than ignored.
  {
    name: 'port',
    defaultValue: '6379',
    mutable: true,
    validate: (v, current) => {
      const parsed = nonNegativeInt(v);
      if ('error' in parsed || parsed.ok === current) return parsed;
      return { error: 'sluice server cannot move its listener while running: restart it with --port' };
    },
  },
  {
    name: 'bind',
    defaultValue: '127.0.0.1',
    mutable: true,
    validate: (v, current) =>
      v.trim().split(/\s+/).join(' ') === current.trim().split(/\s+/).join(' ')
        ? { ok: current }
        : { error: 'sluice server cannot move its listener while running: restart it with --bind' },
  },
  // Protected, with dbfilename: together with SAVE they would write a file anywhere.
  { name: 'dir', defaultValue: process.cwd(), mutable: true, protected: true, validate: existingDirectory },
  { name: 'requirepass', defaultValue: '', mutable: true },
  // ACL LOG's length, and the channels a new user or selector starts with (commands/acl/).
  // The ACL file (ACL LOAD / SAVE, read at start); set at start only, as in Redis.
  { name: 'aclfile', defaultValue: '' },
  { name: 'acllog-max-len', defaultValue: '128', validate: nonNegativeInt, mutable: true },
  { name: 'acl-pubsub-default', defaultValue: 'resetchannels', validate: oneOf(['allchannels', 'resetchannels']), mutable: true },
  // Turned on or off at run time through the instance's DatasetControl (CONFIG SET in server.ts).
  { name: 'appendonly', defaultValue: 'no', validate: yesNo, mutable: true },
  // sluice writes only command AOFs, never an RDB preamble; 'no' is accepted for compatibility.
  {
    name: 'aof-use-rdb-preamble',
    defaultValue: 'no',
    mutable: true,
    validate: (v) => {
      const parsed = yesNo(v);
      if ('error' in parsed || parsed.ok === 'no') return parsed;
      return { error: 'sluice writes the AOF as commands only (no RDB preamble)' };
    },
  },
  // Redis 7: DEBUG is refused unless this allows it (immutable: set at start-up only).
  { name: 'enable-debug-command', defaultValue: 'no', validate: oneOf(['no', 'yes', 'local']) },
  // Redis 7: CONFIG SET of a protected config is refused unless this allows it (immutable too).
  { name: 'enable-protected-configs', defaultValue: 'no', validate: oneOf(['no', 'yes', 'local']) },
  {
    name: 'dbfilename',
    defaultValue: 'dump.rdb',
    mutable: true,
    protected: true,
    validate: (v) => (v.includes('/') || v.includes('\\') ? { error: "dbfilename can't be a path, just a filename" } : { ok: v }),
  },
  { name: 'rdbchecksum', defaultValue: 'yes', validate: yesNo },
  { name: 'appendfilename', defaultValue: 'appendonly.aof' },
  { name: 'appenddirname', defaultValue: 'appendonlydir' },
  {
    name: 'appendfsync',
    defaultValue: 'everysec',
    mutable: true,
    validate: (v) => {
      const l = v.toLowerCase();
      return l === 'always' || l === 'everysec' || l === 'no' ? { ok: l } : { error: 'argument(s) must be one of the following: everysec, always, no' };
    },
  },
  { name: 'auto-aof-rewrite-percentage', defaultValue: '100', validate: nonNegativeInt, mutable: true },
  { name: 'auto-aof-rewrite-min-size', defaultValue: '67108864', validate: nonNegativeInt, mutable: true },
  { name: 'databases', defaultValue: '16' },
  { name: 'maxclients', defaultValue: '10000', validate: nonNegativeInt, mutable: true },
  { name: 'timeout', defaultValue: '0', validate: nonNegativeInt, mutable: true },
  memoryParam('proto-max-bulk-len', 536870912, 1024 * 1024),
  // Past this many bytes a sparse HyperLogLog becomes dense (hyperloglog.c).
  memoryParam('hll-sparse-max-bytes', 3000, 0),
  memoryParam('client-query-buffer-limit', 1073741824, 1024 * 1024),
  {
    name: 'client-output-buffer-limit',
    defaultValue: 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
    mutable: true,
    validate: validateOutputBufferLimits,
  },
  { name: 'protected-mode', defaultValue: 'yes', validate: yesNo, mutable: true },
  { name: 'stream-node-max-bytes', defaultValue: '4096', validate: nonNegativeInt, mutable: true },
  { name: 'stream-node-max-entries', defaultValue: '100', validate: nonNegativeInt, mutable: true },
  { name: 'save', defaultValue: '', mutable: true },
  memoryParam('maxmemory', 0, 0),
  memoryParam('repl-backlog-size', 1024 * 1024, 1),
  // Replication (src/replication/), Redis 7.0's defaults and its slave-* aliases.
  { name: 'repl-ping-replica-period', alias: 'repl-ping-slave-period', defaultValue: '10', validate: intBetween(1, 2147483647), mutable: true },
  { name: 'repl-timeout', defaultValue: '60', validate: intBetween(1, 2147483647), mutable: true },
  { name: 'repl-backlog-ttl', defaultValue: '3600', validate: intBetween(0, 2147483647), mutable: true },
  { name: 'repl-diskless-sync', defaultValue: 'yes', validate: yesNo, mutable: true },
  { name: 'repl-diskless-sync-delay', defaultValue: '5', validate: intBetween(0, 2147483647), mutable: true },
  { name: 'repl-diskless-sync-max-replicas', defaultValue: '0', validate: intBetween(0, 2147483647), mutable: true },
  { name: 'repl-disable-tcp-nodelay', defaultValue: 'no', validate: yesNo, mutable: true },
  { name: 'min-replicas-to-write', alias: 'min-slaves-to-write', defaultValue: '0', validate: intBetween(0, 2147483647), mutable: true },
  { name: 'min-replicas-max-lag', alias: 'min-slaves-max-lag', defaultValue: '10', validate: intBetween(0, 2147483647), mutable: true },
  { name: 'replica-read-only', alias: 'slave-read-only', defaultValue: 'yes', validate: yesNo, mutable: true },
  { name: 'replica-serve-stale-data', alias: 'slave-serve-stale-data', defaultValue: 'yes', validate: yesNo, mutable: true },
  { name: 'replica-priority', alias: 'slave-priority', defaultValue: '100', validate: intBetween(0, 2147483647), mutable: true },
  // "host port" of the primary this instance follows, "" for none: CONFIG GET reads it (the
  // replication code keeps it current); REPLICAOF changes it, CONFIG SET cannot (immutable).
  { name: 'replicaof', alias: 'slaveof', defaultValue: '' },
  // sluice never daemonizes (config-file.ts refuses `daemonize yes`); reported as Redis does.
  { name: 'daemonize', defaultValue: 'no', validate: yesNo },
  { name: 'masterauth', defaultValue: '', mutable: true },
  { name: 'masteruser', defaultValue: '', mutable: true },
  {
    name: 'maxmemory-policy',
    defaultValue: 'noeviction',
    mutable: true,
    validate: (v) => {
      const l = v.toLowerCase();
      return (EVICTION_POLICIES as readonly string[]).includes(l)
        ? { ok: l }
        : { error: `argument(s) must be one of the following: ${EVICTION_POLICIES.join(', ')}` };
    },
  },
  {
    name: 'propagation-error-behavior',
    defaultValue: 'ignore',
    mutable: true,
    validate: (v) => {
      const l = v.toLowerCase();
      return ['ignore', 'panic', 'panic-on-replicas'].includes(l)
        ? { ok: l }
        : { error: 'argument(s) must be one of the following: ignore, panic, panic-on-replicas' };
    },
  },
  { name: 'hz', defaultValue: '10', validate: nonNegativeInt, mutable: true },
];

const LONG_MAX = 9223372036854775807n;
const INT_MAX = 2147483647n;

/**
 * Redis 7.0's encoding thresholds and logs, with its defaults, bounds, error texts and ziplist
 * aliases. The set, hash and sorted-set thresholds decide OBJECT ENCODING as Redis's do
 * (engine/set.ts, engine/hash.ts, engine/sorted-set.ts; one-way conversions); the slowlog ones
 * drive SLOWLOG (slowlog.ts), latency-monitor-threshold the latency monitor (latency.ts).
 * list-max-listpack-size sizes the nodes of lists created after it is set (engine/list.ts), as
 * in Redis; sluice does not compress list nodes: list-compress-depth is accepted and stored.
 */
const ENCODING_AND_LOG_PARAMS: ConfigParam[] = [
  { name: 'set-max-intset-entries', defaultValue: '512', validate: strictInteger(0n, LONG_MAX), mutable: true },
  { name: 'hash-max-listpack-entries', alias: 'hash-max-ziplist-entries', defaultValue: '512', validate: strictInteger(0n, LONG_MAX), mutable: true },
  { name: 'hash-max-listpack-value', alias: 'hash-max-ziplist-value', defaultValue: '64', validate: memoryBytes, mutable: true },
  { name: 'zset-max-listpack-entries', alias: 'zset-max-ziplist-entries', defaultValue: '128', validate: strictInteger(0n, LONG_MAX), mutable: true },
  { name: 'zset-max-listpack-value', alias: 'zset-max-ziplist-value', defaultValue: '64', validate: memoryBytes, mutable: true },
  { name: 'list-max-listpack-size', alias: 'list-max-ziplist-size', defaultValue: '-2', validate: strictInteger(-INT_MAX - 1n, INT_MAX), mutable: true },
  { name: 'list-compress-depth', defaultValue: '0', validate: strictInteger(0n, INT_MAX), mutable: true },
  { name: 'latency-monitor-threshold', defaultValue: '0', validate: strictInteger(0n, LONG_MAX), mutable: true },
  { name: 'slowlog-log-slower-than', defaultValue: '10000', validate: strictInteger(-1n, LONG_MAX), mutable: true },
  // Keyspace notifications (keyspace-events.ts): stored in Redis's own order of the classes.
  {
    name: 'notify-keyspace-events',
    defaultValue: '',
    mutable: true,
    validate: (v) => {
      const flags = parseEventFlags(v);
      return flags < 0 ? { error: INVALID_EVENT_CLASS } : { ok: formatEventFlags(flags) };
    },
  },
  { name: 'slowlog-max-len', defaultValue: '128', validate: strictInteger(0n, LONG_MAX), mutable: true },
  // CLIENT TRACKING's table (tracking.ts): past it, keys are dropped and their clients told.
  { name: 'tracking-table-max-keys', defaultValue: '1000000', validate: strictInteger(0n, LONG_MAX), mutable: true },
];
DEFAULT_PARAMS.push(...ENCODING_AND_LOG_PARAMS);

/** Key eviction past maxmemory (eviction.ts) and the LFU counter (engine/lfu.ts), Redis's defaults and bounds. */
const EVICTION_PARAMS: ConfigParam[] = [
  { name: 'maxmemory-samples', defaultValue: '5', validate: strictInteger(1n, INT_MAX), mutable: true },
  { name: 'maxmemory-eviction-tenacity', defaultValue: '10', validate: strictInteger(0n, 100n), mutable: true },
  { name: 'lfu-log-factor', defaultValue: '10', validate: strictInteger(0n, INT_MAX), mutable: true },
  { name: 'lfu-decay-time', defaultValue: '1', validate: strictInteger(0n, INT_MAX), mutable: true },
  // sluice frees in the same turn either way; lazyfree-lazy-eviction picks UNLINK over DEL in the AOF, as Redis.
  ...['eviction', 'expire', 'server-del', 'user-del', 'user-flush'].map(
    (what): ConfigParam => ({ name: `lazyfree-lazy-${what}`, defaultValue: 'no', validate: yesNo, mutable: true }),
  ),
];
DEFAULT_PARAMS.push(...EVICTION_PARAMS);

const INT_MIN = -2147483648n;

/**
 * Redis 7.0 parameters that change nothing sluice does, accepted by CONFIG SET (and in a config
 * file) with Redis's defaults, bounds and error texts, and stored for CONFIG GET: the ways a
 * replica loads the primary's RDB (sluice's replica always loads it aside and then swaps it in,
 * never serving half a dataset), the log level, RDB compression (sluice writes strings
 * uncompressed, which every Redis reads), the test-only save/load delays, the script time limit
 * (sluice runs no scripts), and timer tuning.
 */
const STORED_ONLY_PARAMS: ConfigParam[] = [
  { name: 'repl-diskless-load', defaultValue: 'disabled', validate: oneOf(['disabled', 'on-empty-db', 'swapdb']), mutable: true },
  { name: 'repl-diskless-sync-max-replicas', defaultValue: '0', validate: strictInteger(0n, INT_MAX), mutable: true },
  { name: 'rdbcompression', defaultValue: 'yes', validate: yesNo, mutable: true },
  { name: 'loglevel', defaultValue: 'notice', validate: oneOf(['debug', 'verbose', 'notice', 'warning']), mutable: true },
  { name: 'dynamic-hz', defaultValue: 'yes', validate: yesNo, mutable: true },
  { name: 'busy-reply-threshold', alias: 'lua-time-limit', defaultValue: '5000', validate: strictInteger(0n, LONG_MAX), mutable: true },
  { name: 'rdb-key-save-delay', defaultValue: '0', validate: strictInteger(INT_MIN, INT_MAX), mutable: true, hidden: true },
  { name: 'key-load-delay', defaultValue: '0', validate: strictInteger(INT_MIN, INT_MAX), mutable: true, hidden: true },
  { name: 'shutdown-timeout', defaultValue: '10', validate: strictInteger(0n, INT_MAX), mutable: true },
  { name: 'loading-process-events-interval-bytes', defaultValue: '2097152', validate: strictInteger(1024n, INT_MAX), mutable: true, hidden: true },
  // sluice never evicts clients: a value is checked as Redis checks it (bytes, or a percentage of
  // maxmemory up to 100%), then refused unless it is 0, rather than ignored.
  {
    name: 'maxmemory-clients',
    defaultValue: '0',
    mutable: true,
    validate: (v) => {
      const percent = /^(\d+)%$/.exec(v);
      if (percent !== null) {
        if (Number(percent[1]) > 100) return { error: 'percentage argument must be less or equal to 100' };
        return Number(percent[1]) === 0 ? { ok: '0' } : { error: 'sluice server does not evict clients: use maxmemory-clients 0' };
      }
      const bytes = memoryBytes(v);
      if ('error' in bytes) return { error: 'argument must be a memory or percent value' };
      return bytes.ok === '0' ? bytes : { error: 'sluice server does not evict clients: use maxmemory-clients 0' };
    },
  },
];
DEFAULT_PARAMS.push(...STORED_ONLY_PARAMS);

export class Config {
  private readonly params = new Map<string, ConfigParam>();
  private readonly values = new Map<string, string>();
  /** getNumber's parsed values: dispatch reads some per command (maxmemory, node limits). */
  private readonly numbers = new Map<string, number>();
  /** Alias → the parameter's name (Redis 7.0's ziplist names of the listpack parameters). */
  private readonly aliases = new Map<string, string>();

  constructor(overrides: Record<string, string> = {}) {
    for (const p of DEFAULT_PARAMS) this.declare(p);
    for (const [k, v] of Object.entries(overrides)) this.values.set(this.canonical(k), this.normalized(this.canonical(k), v));
  }

  /** The parameter's own name for a name or an alias. */
  private canonical(name: string): string {
    return this.aliases.get(name) ?? name;
  }

  /** A start-up value in the form CONFIG SET would store ("16kb" → "16384"); as given when it does not validate. */
  private normalized(name: string, value: string): string {
    const check = this.params.get(name)?.validate?.(value, this.values.get(name) ?? '');
    return check !== undefined && 'ok' in check ? check.ok : value;
  }

  declare(param: ConfigParam): void {
    this.generation++;
    this.params.set(param.name, param);
    if (param.alias !== undefined) {
      // A parameter of its own to CONFIG SET (as Redis 7.0's alias configs: setting both names
      // in one CONFIG SET is not a duplicate), writing the same value.
      this.aliases.set(param.alias, param.name);
      this.params.set(param.alias, { ...param, name: param.alias, alias: param.name });
    }
    if (!this.values.has(param.name)) this.values.set(param.name, param.defaultValue);
    this.numbers.delete(param.name);
  }

  get(name: string): string {
    const v = this.values.get(this.canonical(name));
    if (v === undefined) throw new Error(`unknown config parameter ${name}`);
    return v;
  }

  getNumber(name: string): number {
    name = this.canonical(name);
    let n = this.numbers.get(name);
    if (n === undefined) {
      n = Number(this.get(name));
      this.numbers.set(name, n);
    }
    return n;
  }

  has(name: string): boolean {
    return this.params.has(name);
  }

  param(name: string): ConfigParam | undefined {
    return this.params.get(name);
  }

  /** A parameter's own name for its name or its alias (undefined when there is no such parameter). */
  nameOf(name: string): string | undefined {
    return this.params.has(name) ? this.canonical(name) : undefined;
  }

  /** Every parameter under its own name (not its alias), in declaration order. */
  declared(): ConfigParam[] {
    return [...this.params.values()].filter((p) => this.canonical(p.name) === p.name);
  }

  /** Name/value pairs whose name matches a glob, as CONFIG GET. */
  match(pattern: string): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [name, value] of this.values) {
      if (this.params.get(name)?.hidden === true) continue;
      if (globMatch(pattern, name, true)) out.push([name, value]);
      const alias = this.params.get(name)?.alias;
      if (alias !== undefined && globMatch(pattern, alias, true)) out.push([alias, value]);
    }
    return out;
  }

  /**
   * Changes with every set: a reader of settings on a hot path (a connection's request limits,
   * read per socket read) re-reads them only when it moved.
   */
  generation = 0;

  /**
   * A value computed from the settings for a hot path (maxmemory per command, the stream node
   * limits per XADD, the output limits per write, the request limits per socket read): computed
   * again only when the settings changed (generation), so a read is one comparison.
   */
  derived<T>(compute: (config: Config) => T): () => T {
    let at = -1;
    let value: T;
    return () => {
      if (at !== this.generation) {
        value = compute(this);
        at = this.generation;
      }
      return value;
    };
  }

  /** Sets a value without validation (start-up flags, already checked). */
  setRaw(name: string, value: string): void {
    name = this.canonical(name);
    this.generation++;
    this.values.set(name, value);
    this.numbers.delete(name);
    this.params.get(name)?.onChange?.(value);
  }
}
