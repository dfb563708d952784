// Server commands: INFO, CONFIG, COMMAND, TIME and SHUTDOWN, as Redis 7.0 (DEBUG: debug.ts).
import { ErrorReply, MapReply, type Reply, SetReply, SimpleString, VerbatimReply, OK, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword, lower, parseDouble, text } from './args.js';
import { keyOf } from '../engine/keyspace.js';
import { type ConfigParam } from './config.js';
import { allowProtectedAction } from './core/protected.js';
import { globMatch } from './glob.js';
import { flagsAt, keySpecsReply, searchKeySpecs } from './key-spec-search.js';
import { helpReply } from './help.js';
import type { InstanceView } from './types.js';
import { type CommandSpec, type Context, command, container } from './types.js';
import { wallClockMicros } from './core/wall-clock.js';

// --- INFO --------------------------------------------------------------------------------

function info(ctx: Context, argv: Buffer[]): Reply {
  return new VerbatimReply('txt', ctx.instance.info.text(argv.slice(1).map((a) => lower(a))));
}

// --- CONFIG ------------------------------------------------------------------------------

function configGet(ctx: Context, argv: Buffer[]): Reply {
  const seen = new Map<string, string>();
  const config = ctx.instance.config;
  for (const arg of argv.slice(2)) {
    const pattern = keyOf(arg);
    // As Redis: a name without glob characters is looked up (any case, aliases too) and
    // answered with the name as given.
    if (!/[[*?]/.test(pattern)) {
      if (!seen.has(pattern) && config.has(pattern.toLowerCase())) seen.set(pattern, config.get(pattern.toLowerCase()));
      continue;
    }
    for (const [name, value] of config.match(pattern)) seen.set(name, value);
  }
  return new MapReply([...seen].map(([k, v]) => [k, v] as [Reply, Reply]));
}

function configSet(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length % 2 !== 0) fail(Errors.wrongArity('config|set'));
  const config = ctx.instance.config;
  const params: ConfigParam[] = [];
  // Redis names the argument as given when a name is refused, the parameter when a value is.
  const failed = (name: string, why: string): never => fail(Errors.configSetFailed(name, why));
  // As Redis: every name is checked first (in order, the first failure answers), then the
  // values; CONFIG SET of several parameters is all or nothing.
  for (let i = 2; i < argv.length; i += 2) {
    const given = text(argv[i]!);
    const param = config.param(lower(argv[i]!));
    if (param === undefined) fail(Errors.configSetUnknown(given));
    if (!param.mutable) failed(given, Errors.configImmutable);
    if (param.protected === true && !allowProtectedAction(config.get('enable-protected-configs'), ctx.client)) failed(given, Errors.configProtected);
    if (params.includes(param)) failed(given, Errors.configDuplicate);
    params.push(param);
  }
  const changes = new Map<string, string>();
  for (let i = 2; i < argv.length; i += 2) {
    const { name, validate } = params[(i - 2) / 2]!;
    let value = text(argv[i + 1]!);
    if (validate !== undefined) {
      const result = validate(value, config.get(name));
      if ('error' in result) failed(name, result.error);
      else value = result.ok;
    }
    changes.set(name, value);
  }
  const appendonly = changes.get('appendonly');
  if (appendonly !== undefined && appendonly !== config.get('appendonly')) switchAppendOnly(ctx, appendonly === 'yes');
  for (const [name, value] of changes) config.setRaw(name, value);
  // As Redis's updateMaxmemory: a lower limit evicts at once (the evicted events go out now).
  if (changes.has('maxmemory') && config.getNumber('maxmemory') > 0) {
    ctx.instance.eviction.perform();
  }
  return OK;
}

/** CONFIG SET appendonly: the persistence layer starts (a rewrite) or stops the AOF. */
function switchAppendOnly(ctx: Context, on: boolean): void {
  const control = ctx.instance.datasetControl;
  const failed: (why: string) => never = (why) => fail(Errors.configSetFailed('appendonly', why));
  if (control === null) failed('this sluice instance has no data directory to write an append-only file to');
  try {
    control.setAppendOnly(on);
  } catch (err) {
    ctx.instance.logger.error(`sluice: could not turn the append-only file ${on ? 'on' : 'off'}: ${(err as Error).message}`);
    failed(on ? 'Unable to turn on AOF. Check server logs.' : 'Unable to turn off AOF. Check server logs.');
  }
}

/** CONFIG REWRITE: the config file the server started with, rewritten in place (config-rewrite.ts). */
function configRewrite(ctx: Context): Reply {
  const file = ctx.instance.configFile;
  if (file === null) fail(Errors.noConfigFile);
  try {
    file.rewrite();
  } catch (err) {
    ctx.instance.logger.warn(`CONFIG REWRITE failed: ${(err as Error).message}`);
    fail(Errors.configRewriteFailed((err as Error).message));
  }
  ctx.instance.logger.warn('CONFIG REWRITE executed with success.');
  return OK;
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
    // Tips: Redis replies an empty set for a command without any (addReplyCommandTips).
    new SetReply((spec.tips ?? []).map((t) => Buffer.from(t))),
    keySpecsReply(fullName(spec, parent)),
    // addReplyCommandSubCommands: an empty set for a command without subcommands (~0 in RESP3).
    spec.subcommands === undefined ? new SetReply([]) : spec.subcommands.map((sub) => commandEntry(sub, spec)),
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
function requestedSpecs(instance: InstanceView, argv: Buffer[]): Array<Found | undefined> {
  if (argv.length === 2) return instance.table.all().map((spec) => ({ spec }));
  return argv.slice(2).map((a) => lookup(instance, text(a)));
}

/** Looks up "name" or "name|sub" as COMMAND INFO/DOCS accept it. */
function lookup(instance: InstanceView, name: string): Found | undefined {
  const [base, sub, more] = name.toLowerCase().split('|', 3) as [string, string | undefined, string | undefined];
  // "config|get|key" names nothing (Redis's lookupCommandBySds takes at most two parts).
  if (more !== undefined) return undefined;
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
    const value = keyOf(argv[4]!);
    if (kind === 'module') filter = () => false;
    else if (kind === 'aclcat') filter = (spec) => (spec.categories ?? []).includes(value.toLowerCase());
    else if (kind === 'pattern') {
      filter = (_spec, name) => globMatch(value, name, true);
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

/** The keys of a full command line, as COMMAND GETKEYS. */
function commandGetKeys(ctx: Context, argv: Buffer[]): Reply {
  const { line, positions } = keyPositions(ctx, argv);
  return positions.map((i) => line[i]!);
}

/**
 * COMMAND GETKEYSANDFLAGS: each key with its key-spec flags, found by the key specs where Redis
 * searches them (key-spec-search.ts), else by the command's own positions.
 */
function commandGetKeysAndFlags(ctx: Context, argv: Buffer[]): Reply {
  const { line, positions, fullName, spec } = keyPositions(ctx, argv);
  const refs = searchKeySpecs(fullName, line, spec.arity) ?? positions.map((pos) => ({ pos, flags: flagsAt(fullName, line, pos) }));
  return refs.map((r) => [line[r.pos]!, new SetReply(r.flags.map((f) => new SimpleString(f)))]);
}

function keyPositions(ctx: Context, argv: Buffer[]): { line: Buffer[]; positions: number[]; fullName: string; spec: CommandSpec } {
  const line = argv.slice(2);
  let spec = ctx.instance.table.get(lower(line[0]!));
  let fullName = spec?.name ?? '';
  if (spec?.subcommands !== undefined && line.length >= 2) {
    spec = spec.subcommands.find((s) => s.name === lower(line[1]!));
    fullName = `${fullName}|${spec?.name ?? ''}`;
  }
  if (spec === undefined) fail(Errors.invalidCommand);
  if (spec.keys === undefined && spec.firstKey === 0) fail(Errors.noKeyArguments);
  if ((spec.arity > 0 && line.length !== spec.arity) || line.length < -spec.arity) {
    fail(Errors.getkeysArity);
  }
  let positions: number[];
  if (spec.keys !== undefined) {
    positions = spec.keys(line);
  } else {
    const last = spec.lastKey < 0 ? line.length + spec.lastKey : spec.lastKey;
    positions = [];
    for (let i = spec.firstKey; i <= last && i < line.length; i += Math.max(spec.step, 1)) positions.push(i);
  }
  // EVAL ... 0 and the like (CMD_NO_MANDATORY_KEYS): no keys is an answer, not an error.
  if (positions.length === 0 && !spec.flags.includes('no_mandatory_keys')) fail(Errors.getkeysInvalid);
  return { line, positions, fullName, spec };
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
  'GETKEYSANDFLAGS <full-command>',
  '    Return the keys and the access flags from a full Redis command.',
];

// --- SHUTDOWN, TIME ---------------------------------------------------------------

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
  if (abort) fail(Errors.noShutdown);
  const handler = ctx.instance.shutdownHandler;
  if (handler === null) fail(Errors.shutdownUnavailable);
  // A script past busy-reply-threshold: only NOSAVE shuts down, leaving the script where it is.
  const busy = ctx.instance.busyScript;
  if (busy !== null) {
    if (!nosave) fail(busy.evalMode ? Errors.busyEval : Errors.busyFunction);
    busy.abandon();
  }
  const error = await handler({ save: nosave ? false : save ? true : null });
  // On success the transport closes every connection before this reply could be written.
  return error === null ? OK : new ErrorReply(error);
}

function time(): Reply {
  const micros = wallClockMicros();
  return [String(Math.floor(micros / 1_000_000)), String(micros % 1_000_000)];
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
        // Zeroes the counters INFO stats/commandstats/errorstats report.
        ctx.instance.stats.reset();
        ctx.instance.eviction.resetStats();
        return OK;
      }, { categories: SERVER }),
      command('rewrite', 2, ['admin', 'noscript', 'loading', 'stale'], null, configRewrite, { categories: SERVER }),
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
      command('getkeysandflags', -4, ['loading', 'stale'], null, commandGetKeysAndFlags, { categories: ['slow', 'connection'] }),
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
];
