// The scripting commands, as Redis 7.0's eval.c and functions.c:
//   - EVAL, EVALSHA and their _RO forms, SCRIPT LOAD/EXISTS/FLUSH run Lua scripts through the
//     instance's ScriptEngine (commands/lua/script-engine.ts: the cache, the checks, the run);
//   - SCRIPT KILL and FUNCTION KILL stop a script past busy-reply-threshold that has not
//     written (the other clients are served while it runs: ScriptEngine.interrupted);
//   - FUNCTION LOAD/LIST/DELETE/FLUSH/STATS and FCALL/FCALL_RO through the instance's
//     FunctionLibraries (commands/lua/function-libraries.ts);
//   - FUNCTION DUMP / RESTORE with Redis's payload: a FUNCTION2 entry per library (its code),
//     the RDB version and the CRC64 footer; sluice writes the code uncompressed, as redis-server
//     with rdbcompression no, and reads LZF-compressed codes too;
//   - FUNCTION LOAD/DELETE/FLUSH/RESTORE propagate as themselves (the AOF, replicas), as Redis's
//     server.dirty++ does; SCRIPT FLUSH logs nothing.
import { Buffer } from 'node:buffer';
import { ErrorReply, fail, MapReply, OK, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword, lower, parseInt64 } from './args.js';
import { helpReply } from './help.js';
import { RdbFormatError } from '../rdb/constants.js';
import { functionsPayload, verifyDumpPayload } from '../rdb/dump-payload.js';
import { readFunctionEntry } from '../rdb/function-entries.js';
import { RdbReader } from '../rdb/rdb-reader.js';
import { command, type CommandSpec, container, type Context, type InstanceView } from './types.js';
import { scriptsOf, sha1hex, shebangFlags } from './lua/script-engine.js';
import { librariesOf } from './lua/function-libraries.js';

const RDB_OPCODE_FUNCTION = 246;
const RDB_OPCODE_FUNCTION2 = 245;

// --- EVAL / EVALSHA / FCALL ------------------------------------------------------------------

/** Redis's numkeys checks of EVAL and FCALL (argv[2]). */
function checkNumkeys(argv: Buffer[], notInteger: string): void {
  const n = parseInt64(argv[2]!);
  if (n === undefined) fail(notInteger);
  if (n > BigInt(argv.length - 3)) fail(Errors.numkeysTooMany);
  if (n < 0n) fail(Errors.numkeysNegative);
}

/** EVAL / EVAL_RO: the script is cached (compiled) first, then run. */
function evalScript(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  feedMonitorsFirst(ctx, argv);
  checkNumkeys(argv, Errors.notInteger);
  const scripts = scriptsOf(ctx.instance);
  const sha = sha1hex(argv[1]!);
  if (!scripts.cache.has(sha)) scripts.load(argv[1]!);
  return runScript(ctx, argv, sha);
}

function evalsha(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  feedMonitorsFirst(ctx, argv);
  // A SHA of the wrong length cannot match: Redis replies NOSCRIPT before looking at numkeys.
  if (argv[1]!.length !== 40) fail(Errors.noScript);
  checkNumkeys(argv, Errors.notInteger);
  return runScript(ctx, argv, argv[1]!.toString('latin1').toLowerCase());
}

function runScript(ctx: Context, argv: Buffer[], sha: string): Reply | Promise<Reply> {
  const numkeys = Number(parseInt64(argv[2]!)!);
  const ro = lower(argv[0]!).endsWith('_ro');
  return scriptsOf(ctx.instance).eval(ctx, argv, sha, argv.slice(3, 3 + numkeys), argv.slice(3 + numkeys), ro);
}

/** FCALL looks the function up before parsing numkeys. */
function fcall(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  feedMonitorsFirst(ctx, argv);
  const fn = librariesOf(ctx.instance).functions.get(argv[1]!.toString('latin1').toLowerCase());
  if (fn === undefined) return new ErrorReply(Errors.functionNotFound);
  checkNumkeys(argv, Errors.badNumkeys);
  const numkeys = Number(parseInt64(argv[2]!)!);
  const ro = lower(argv[0]!) === 'fcall_ro';
  return scriptsOf(ctx.instance).fcall(ctx, argv, fn, argv.slice(3, 3 + numkeys), argv.slice(3 + numkeys), ro);
}

/**
 * Scripts skip MONITOR after they run (skip_monitor) and show before it, as Redis's evalCommand
 * and fcallCommandGeneric, so the commands they run follow them; a script's own calls of
 * EVAL-family commands (refused) are not shown.
 */
function feedMonitorsFirst(ctx: Context, argv: Buffer[]): void {
  if (ctx.client.kind !== 'aof' && !ctx.client.fromScript) ctx.instance.feedMonitors(ctx.client, lower(argv[0]!), argv);
}

/** Key positions of EVAL/FCALL: numkeys at 2, the keys after it. */
function scriptKeys(argv: Buffer[]): number[] {
  const n = parseInt64(argv[2] ?? Buffer.alloc(0));
  if (n === undefined || n < 0n || n > BigInt(argv.length - 3)) return [];
  return Array.from({ length: Number(n) }, (_, i) => 3 + i);
}

// --- SCRIPT ----------------------------------------------------------------------------------

function flushMode(argv: Buffer[], message: string): void {
  if (argv.length === 3 && (isKeyword(argv[2], 'sync') || isKeyword(argv[2], 'async'))) return;
  if (argv.length !== 2) fail(message);
}

function scriptFlush(ctx: Context, argv: Buffer[]): Reply {
  flushMode(argv, Errors.scriptFlushMode);
  scriptsOf(ctx.instance).flush();
  ctx.preventPropagation();
  return OK;
}

function scriptExists(ctx: Context, argv: Buffer[]): Reply {
  const scripts = scriptsOf(ctx.instance);
  return argv.slice(2).map((sha) => (scripts.exists(sha.toString('latin1')) ? 1 : 0));
}

function scriptLoad(ctx: Context, argv: Buffer[]): Reply {
  return scriptsOf(ctx.instance).load(argv[2]!);
}

// --- FUNCTION --------------------------------------------------------------------------------

function functionFlush(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 3) fail(Errors.unknownSubcommandOrArity(argv[1]!.toString('utf8'), 'FUNCTION'));
  flushMode(argv, Errors.functionFlushMode);
  librariesOf(ctx.instance).flush();
  ctx.addDirty(1);
  return OK;
}

function functionList(ctx: Context, argv: Buffer[]): Reply {
  let withCode = false;
  let pattern: Buffer | null = null;
  for (let i = 2; i < argv.length; i++) {
    if (!withCode && isKeyword(argv[i], 'withcode')) {
      withCode = true;
    } else if (pattern === null && isKeyword(argv[i], 'libraryname')) {
      if (i >= argv.length - 1) fail(Errors.libraryNameMissing);
      pattern = argv[++i]!;
    } else {
      fail(Errors.unknownArgument(argv[i]!.toString('utf8')));
    }
  }
  return librariesOf(ctx.instance).list(pattern, withCode);
}

function functionStats(ctx: Context): Reply {
  const libs = librariesOf(ctx.instance);
  const running = scriptsOf(ctx.instance).runningScript();
  // An EVAL in progress is not described: the caller gets the BUSY of scripts (functionStatsCommand).
  if (running?.evalMode === true) return new ErrorReply(Errors.busyEval);
  return new MapReply([
    [
      'running_script',
      running === null
        ? null
        : new MapReply([
            ['name', running.name],
            ['command', running.command],
            ['duration_ms', running.durationMs],
          ]),
    ],
    [
      'engines',
      new MapReply([
        [
          'LUA',
          new MapReply([
            ['libraries_count', libs.libraries.size],
            ['functions_count', libs.functionCount],
          ]),
        ],
      ]),
    ],
  ]);
}

function functionDump(ctx: Context): Reply {
  return functionsPayload(librariesOf(ctx.instance).codes());
}

/**
 * FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE] (functionRestoreCommand): the payload's
 * libraries are created aside, then swapped in (FLUSH) or joined (APPEND fails on a library
 * of the same name, REPLACE replaces it; a function name taken by another library fails both).
 * Any failure leaves the libraries as they were.
 */
function functionRestore(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length > 4) fail(Errors.unknownSubcommandOrArity(argv[1]!.toString('utf8'), 'FUNCTION'));
  let policy = 'append';
  if (argv.length === 4) {
    policy = lower(argv[3]!);
    if (policy !== 'append' && policy !== 'replace' && policy !== 'flush') fail(Errors.restorePolicy);
  }
  const payload = argv[2]!;
  if (!verifyDumpPayload(payload)) fail(Errors.dumpPayload);
  const libs = librariesOf(ctx.instance);
  const incoming = libs.fresh();
  try {
    const r = new RdbReader(payload);
    while (payload.length - r.pos > 10) {
      const type = r.byte();
      if (type !== RDB_OPCODE_FUNCTION && type !== RDB_OPCODE_FUNCTION2) fail(Errors.notAFunction);
      let code: Buffer;
      try {
        code = readFunctionEntry(r, type);
      } catch (err) {
        if (err instanceof RdbFormatError) fail(Errors.functionPayload(err.message));
        throw err;
      }
      incoming.create(code, false, false);
    }
    if (policy === 'flush') libs.replaceWith(incoming);
    else libs.join(incoming, policy === 'replace');
  } finally {
    incoming.flush();
  }
  ctx.addDirty(1);
  return OK;
}

function functionDelete(ctx: Context, argv: Buffer[]): Reply {
  const libs = librariesOf(ctx.instance);
  const library = libs.libraries.get(argv[2]!.toString('latin1'));
  if (library === undefined) return new ErrorReply(Errors.libraryNotFound);
  libs.remove(library);
  ctx.addDirty(1);
  return OK;
}

/** FUNCTION LOAD [REPLACE] code: Redis's option checks, then the library's metadata and code (function-libraries.ts). */
function functionLoad(ctx: Context, argv: Buffer[]): Reply {
  let replace = false;
  let at = 2;
  while (at < argv.length - 1) {
    const opt = argv[at++]!;
    if (!isKeyword(opt, 'replace')) fail(Errors.unknownOption(opt.toString('utf8')));
    replace = true;
  }
  if (at >= argv.length) fail(Errors.codeMissing);
  // No load timeout for a client that must be obeyed (the AOF, a primary), as Redis.
  const loaded = librariesOf(ctx.instance).create(argv[at]!, replace, !ctx.client.mustObey);
  ctx.addDirty(1);
  return loaded;
}

const FUNCTION_HELP = [
  'LOAD [REPLACE] <FUNCTION CODE>',
  '    Create a new library with the given library name and code.',
  'DELETE <LIBRARY NAME>',
  '    Delete the given library.',
  'LIST [LIBRARYNAME PATTERN] [WITHCODE]',
  '    Return general information on all the libraries:',
  '    * Library name',
  '    * The engine used to run the Library',
  '    * Library description',
  '    * Functions list',
  '    * Library code (if WITHCODE is given)',
  '    It also possible to get only function that matches a pattern using LIBRARYNAME argument.',
  'STATS',
  '    Return information about the current function running:',
  '    * Function name',
  '    * Command used to run the function',
  '    * Duration in MS that the function is running',
  '    If no function is running, return nil',
  '    In addition, returns a list of available engines.',
  'KILL',
  '    Kill the current running function.',
  'FLUSH [ASYNC|SYNC]',
  '    Delete all the libraries.',
  '    When called without the optional mode argument, the behavior is determined by the',
  '    lazyfree-lazy-user-flush configuration directive. Valid modes are:',
  '    * ASYNC: Asynchronously flush the libraries.',
  '    * SYNC: Synchronously flush the libraries.',
  'DUMP',
  '    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command',
  'RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]',
  '    Restore the libraries represented by the given payload, it is possible to give a restore policy to',
  '    control how to handle existing libraries (default APPEND):',
  '    * FLUSH: delete all existing libraries.',
  '    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.',
  '    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old',
  '      libraries with the new libraries (notice that even on this option there is a chance of failure',
  '      in case of functions name collision with another library).',
];

const SCRIPT_HELP = [
  'DEBUG (YES|SYNC|NO)',
  '    Set the debug mode for subsequent scripts executed.',
  'EXISTS <sha1> [<sha1> ...]',
  '    Return information about the existence of the scripts in the script cache.',
  'FLUSH [ASYNC|SYNC]',
  '    Flush the Lua scripts cache. Very dangerous on replicas.',
  '    When called without the optional mode argument, the behavior is determined by the',
  '    lazyfree-lazy-user-flush configuration directive. Valid modes are:',
  '    * ASYNC: Asynchronously flush the scripts cache.',
  '    * SYNC: Synchronously flush the scripts cache.',
  'KILL',
  '    Kill the currently executing Lua script.',
  'LOAD <script>',
  '    Load a script into the scripts cache without executing it.',
];

// --- table -----------------------------------------------------------------------------------

const SCRIPTING = ['slow', 'scripting'];
const WRITE_SCRIPTING = ['write', 'slow', 'scripting'];
const RUN_FLAGS = ['noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'] as const;
const RUN_RO_FLAGS = ['readonly', ...RUN_FLAGS] as const;
const run = { keys: scriptKeys, categories: SCRIPTING };

/**
 * evalGetCommandFlags: a cached script's flags, or the body's own shebang for an EVAL not cached
 * yet; null for a script without a shebang, an unknown SHA or a shebang that does not parse.
 */
function scriptDeclaredWrites(instance: InstanceView, argv: Buffer[]): boolean | null {
  const body = argv[1];
  if (body === undefined) return null;
  const evalsha = lower(argv[0]!).startsWith('evalsha');
  if (evalsha && body.length !== 40) return null;
  const cached = scriptsOf(instance).cache.get(evalsha ? body.toString('latin1').toLowerCase() : sha1hex(body));
  let flags = cached?.flags;
  if (flags === undefined && !evalsha) {
    try {
      flags = shebangFlags(body).flags;
    } catch {
      return null;
    }
  }
  return flags === undefined || flags.compat ? null : !flags.noWrites;
}

/** fcallGetCommandFlags: the function's declared flags (every function has them); null for an unknown one. */
function functionDeclaredWrites(instance: InstanceView, argv: Buffer[]): boolean | null {
  const fn = argv[1] === undefined ? undefined : librariesOf(instance).functions.get(argv[1].toString('latin1').toLowerCase());
  return fn === undefined ? null : !fn.flags.noWrites;
}

export const commands: CommandSpec[] = [
  command('eval', -3, [...RUN_FLAGS], null, evalScript, { ...run, declaredWrites: scriptDeclaredWrites }),
  command('eval_ro', -3, [...RUN_RO_FLAGS], null, evalScript, run),
  command('evalsha', -3, [...RUN_FLAGS], null, evalsha, { ...run, declaredWrites: scriptDeclaredWrites }),
  command('evalsha_ro', -3, [...RUN_RO_FLAGS], null, evalsha, run),
  command('fcall', -3, [...RUN_FLAGS], null, fcall, { ...run, declaredWrites: functionDeclaredWrites }),
  command('fcall_ro', -3, [...RUN_RO_FLAGS], null, fcall, run),
  container(
    'script',
    -2,
    [
      command('flush', -2, ['noscript'], null, scriptFlush, { categories: SCRIPTING }),
      command('exists', -3, ['noscript'], null, scriptExists, { categories: SCRIPTING }),
      command('kill', 2, ['noscript', 'allow_busy'], null, (ctx) => scriptsOf(ctx.instance).kill(true), { categories: SCRIPTING }),
      command('load', 3, ['noscript', 'stale'], null, scriptLoad, { categories: SCRIPTING }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('SCRIPT', SCRIPT_HELP), { categories: SCRIPTING }),
    ],
    { categories: ['slow'], summary: 'A container for Lua scripts management commands', group: 'scripting', since: '2.6.0' },
  ),
  container(
    'function',
    -2,
    [
      command('flush', -2, ['write', 'noscript'], null, functionFlush, { categories: WRITE_SCRIPTING }),
      command('list', -2, ['noscript'], null, functionList, { categories: SCRIPTING }),
      command('stats', 2, ['noscript', 'allow_busy'], null, functionStats, { categories: SCRIPTING }),
      command('dump', 2, ['noscript'], null, functionDump, { categories: SCRIPTING }),
      command('restore', -3, ['write', 'denyoom', 'noscript'], null, functionRestore, { categories: WRITE_SCRIPTING }),
      command('delete', 3, ['write', 'noscript'], null, functionDelete, { categories: WRITE_SCRIPTING }),
      command('kill', 2, ['noscript', 'allow_busy'], null, (ctx) => scriptsOf(ctx.instance).kill(false), { categories: SCRIPTING }),
      command('load', -3, ['write', 'denyoom', 'noscript'], null, functionLoad, { categories: WRITE_SCRIPTING }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('FUNCTION', FUNCTION_HELP), { categories: SCRIPTING }),
    ],
    { categories: ['slow'], summary: 'A container for function commands', group: 'scripting', since: '7.0.0' },
  ),
];
