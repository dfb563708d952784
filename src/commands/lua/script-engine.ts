// An instance's Lua scripts, as Redis 7.0's eval.c and script.c: the script cache (sha1 of the
// body → the body and its shebang flags), the interpreter (lua-vm.ts, made at the first
// script), and a script's run: the checks before it starts (scriptPrepareForRun), the checks
// on each command it calls (scriptCall: unknown commands, noscript commands, writes from
// read-only scripts, OOM), the client those commands run as (Redis's lua client: the caller's
// database at the start, RESP2 until redis.setresp), and its effects, propagated as the
// commands it ran (MULTI/EXEC around them when more than one), never as the EVAL itself.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Encoder } from '../../resp/encoder.js';
import type { RequestArgs } from '../../resp/request-args.js';
import { ErrorReply, fail, OK, type Reply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { lower } from '../args.js';
import { ClientState } from '../client-state.js';
import { REDIS_VERSION } from '../core/identity.js';
import type { Propagated } from '../core/effects.js';
import type { Context, InstanceView } from '../types.js';
import { perInstance } from '../per-instance.js';
import { usedMemory } from '../used-memory.js';
import { MAY_REPLICATE } from '../core/resolved.js';
import { Interrupt, type LuaHost, LuaVm, type RegisteredFunction, type ScriptResult, YIELDED, type Yielded } from './lua-vm.js';
import { ScriptReply } from './script-reply.js';
import { aclCheckForScript, aclDenialInScript } from '../acl/in-command-checks.js';

/** A script's shebang flags (#!lua flags=...); `compat` when it has no shebang. */
export interface ScriptFlags {
  readonly compat: boolean;
  readonly noWrites: boolean;
  readonly allowOom: boolean;
  readonly allowStale: boolean;
  readonly noCluster: boolean;
  readonly allowCrossSlot: boolean;
}

const COMPAT: ScriptFlags = {
  compat: true, noWrites: false, allowOom: false, allowStale: false, noCluster: false, allowCrossSlot: false,
};

/** FUNCTION LOAD gives up on a library whose code runs longer (functions.c's LOAD_TIMEOUT_MS). */
const LOAD_TIMEOUT_MS = 500;

const FLAG_NAMES: Record<string, keyof ScriptFlags> = {
  'no-writes': 'noWrites',
  'allow-oom': 'allowOom',
  'allow-stale': 'allowStale',
  'no-cluster': 'noCluster',
  'allow-cross-slot-keys': 'allowCrossSlot',
};

/**
 * Redis's evalExtractShebangFlags: the flags and the shebang's length (the body compiled
 * starts at its line feed, so line numbers stay the user's).
 */
export function shebangFlags(body: Buffer): { flags: ScriptFlags; skip: number } {
  if (body.length < 2 || body[0] !== 0x23 || body[1] !== 0x21) return { flags: COMPAT, skip: 0 };
  const end = body.indexOf(0x0a);
  if (end < 0) fail(Errors.shebangInvalid);
  const parts = body.toString('latin1', 0, end).split(/[ \t\r\v\f]+/).filter((p) => p.length > 0);
  if (parts.length === 0) fail(Errors.shebangNoEngine);
  if (parts[0] !== '#!lua') fail(Errors.shebangEngine(parts[0]!));
  const flags: Record<keyof ScriptFlags, boolean> = { ...COMPAT, compat: false };
  for (const part of parts.slice(1)) {
    if (!part.startsWith('flags=')) fail(Errors.shebangOption(part));
    for (const name of part.slice(6).split(',')) {
      // sdssplitlen of "" gives no parts: "flags=" alone sets nothing.
      if (name === '' && part.length === 6) continue;
      const key = FLAG_NAMES[name];
      if (key === undefined) fail(Errors.shebangFlag(name));
      flags[key] = true;
    }
  }
  return { flags, skip: end };
}

export function sha1hex(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

interface CachedScript {
  readonly body: Buffer;
  readonly flags: ScriptFlags;
}

/** One script's run: what its redis.call checks and where its effects go. */
interface Run {
  readonly ctx: Context;
  readonly readOnly: boolean;
  readonly allowOom: boolean;
  readonly oomAtStart: boolean;
  writeDirty: boolean;
  /** EVAL/EVALSHA (true) or FCALL: which KILL may stop it. */
  readonly evalMode: boolean;
  /** FUNCTION STATS's running_script: the function's name and the caller's command. */
  readonly name: string;
  readonly command: Buffer[];
  readonly started: number;
  /** performance.now() at busy-reply-threshold (Redis's SCRIPT_TIMEDOUT from then on). */
  readonly deadline: number;
  /** Past the deadline: the other clients are answered BUSY while it runs. */
  timedOut: boolean;
  /** SCRIPT KILL, FUNCTION KILL or SHUTDOWN NOSAVE stopped it. */
  killed: boolean;
  /** SHUTDOWN NOSAVE: its effects are dropped, not propagated. */
  abandoned: boolean;
  /** performance.now() when the other clients were last served (or the script resumed). */
  lastServed: number;
  /** Past the threshold it may yield to the event loop (not inside MULTI, nor from the primary or the AOF). */
  readonly mayYield: boolean;
  /** The time its commands see (keyspace.now() at its start), across yields too. */
  readonly clockAt: number;
  /** redis.set_repl: bit 1 the AOF, bit 2 the replicas. */
  repl: number;
  readonly batch: Propagated[];
}

/** While a script is past the threshold, the other clients are served at most this often (ms). */
const SERVE_EVERY_MS = 1;

/** A redis.call reply arena bigger than this (grown for a big reply) is let go after it. */
const KEEP_REPLY_ARENA = 1 << 20;

/** A finished script's reply: the RESP bytes the interpreter wrote, or its error. */
function scriptReply(result: ScriptResult): Reply {
  const bytes = result.resp;
  if (bytes[0] === 0x2d) return new ErrorReply(bytes.toString('latin1', 1, bytes.length - 2), true, result.countedError);
  return new ScriptReply(bytes);
}

/** When a script running from now on passes busy-reply-threshold (0: never). */
function busyDeadline(thresholdMs: number): number {
  return thresholdMs > 0 ? performance.now() + thresholdMs : Number.POSITIVE_INFINITY;
}

export class ScriptEngine {
  readonly cache = new Map<string, CachedScript>();
  private vmInstance: LuaVm | null = null;
  /** The client scripts' commands run as (Redis's lua client), made with the interpreter. */
  private client: ClientState | null = null;
  private run: Run | null = null;
  /** DEBUG set-disable-deny-scripts: scripts may call noscript commands. */
  denyScriptDisabled = false;

  /**
   * The encoders of redis.call's replies in RESP2 and RESP3, each reusing its arena: the glue
   * copies a reply into the interpreter's memory before the script goes on, so no Buffer handed
   * out outlives the next call. A fresh Encoder a call allocated a 16 KB arena each time, which
   * with the garbage it made was about a third of the time of a script's redis.call.
   */
  private readonly encoders: [Encoder, Encoder] = [new Encoder(2), new Encoder(3)];

  constructor(private readonly instance: InstanceView) {}

  private readonly host: LuaHost = {
    call: (argv, resp) => this.encodeForScript(this.call(argv, resp), resp),
    log: (level, message) => this.log(level, message),
    setRepl: (flags) => {
      if (this.run !== null) this.run.repl = flags;
    },
    interrupt: (yieldable) => {
      if (this.loadDeadline !== 0) return performance.now() > this.loadDeadline ? Interrupt.KILL : Interrupt.CONTINUE;
      const run = this.run;
      return run === null ? Interrupt.CONTINUE : this.interrupted(run, yieldable);
    },
    aclCheck: (argv) => aclCheckForScript(this.instance, this.run!.ctx.client, argv),
  };

  private readonly version = (() => {
    const [major, minor, patch] = REDIS_VERSION.split('.').map(Number) as [number, number, number];
    return { num: (major << 16) | (minor << 8) | patch, text: REDIS_VERSION };
  })();

  private functionsInstance: LuaVm | null = null;
  /** performance.now() past which a loading library is stopped; 0 when none loads. */
  private loadDeadline = 0;

  private get vm(): LuaVm {
    if (this.vmInstance === null) {
      this.vmInstance = new LuaVm(this.host, this.version);
      this.client = new ClientState('embedded', true);
      this.client.fromScript = true;
    }
    return this.vmInstance;
  }

  /** True while a script runs (a command it calls is asking). */
  get running(): boolean {
    return this.run !== null;
  }

  /** SCRIPT LOAD, and EVAL of a script not yet cached: compiles it as f_<sha>. Returns the sha. */
  load(body: Buffer): string {
    const sha = sha1hex(body);
    if (this.cache.has(sha)) return sha;
    const { flags, skip } = shebangFlags(body);
    const error = this.vm.define(`f_${sha}`, body.subarray(skip));
    if (error !== null) fail(Errors.scriptCompile(error));
    this.cache.set(sha, { body: Buffer.from(body), flags });
    return sha;
  }

  exists(sha: string): boolean {
    return this.cache.has(sha.toLowerCase());
  }

  /** SCRIPT FLUSH: a new interpreter, no scripts. */
  flush(): void {
    this.cache.clear();
    if (this.vmInstance !== null) this.vmInstance.reset();
  }

  /** Runs a cached script for EVAL/EVALSHA (`ro`: the _RO forms). Unknown sha: NOSCRIPT. */
  eval(ctx: Context, command: Buffer[], sha: string, keys: Buffer[], args: Buffer[], ro: boolean): Reply | Promise<Reply> {
    const script = this.cache.get(sha);
    if (script === undefined) return new ErrorReply(Errors.noScript);
    const vm = this.vm;
    const name = `f_${sha}`;
    const reply = this.execute(ctx, vm, { evalMode: true, name, command }, script.flags, ro, () =>
      vm.run(name, sha, keys, args, ctx.client.resp, true),
    );
    return reply ?? new ErrorReply(Errors.noScript);
  }

  /** FCALL / FCALL_RO of a registered function. */
  fcall(
    ctx: Context,
    command: Buffer[],
    fn: { ref: number; name: string; flags: ScriptFlags },
    keys: Buffer[],
    args: Buffer[],
    ro: boolean,
  ): Reply | Promise<Reply> {
    const vm = this.functionsVm;
    return this.execute(ctx, vm, { evalMode: false, name: fn.name, command }, fn.flags, ro, () =>
      vm.call(fn.ref, fn.name, keys, args, ctx.client.resp, true),
    )!;
  }

  /**
   * SCRIPT KILL (`evalMode`) or FUNCTION KILL, as Redis's scriptKill: only a script past the
   * threshold can be asked (other clients are served only then), one that has written cannot.
   */
  kill(evalMode: boolean): Reply {
    const run = this.run;
    if (run === null || !run.timedOut) return new ErrorReply(Errors.notBusy);
    if (run.ctx.client.mustObey) return new ErrorReply(Errors.unkillableFromPrimary);
    if (run.writeDirty) return new ErrorReply(Errors.unkillableWrote);
    if (evalMode !== run.evalMode) return new ErrorReply(run.evalMode ? Errors.busyEval : Errors.busyFunction);
    run.killed = true;
    return OK;
  }

  /** FUNCTION STATS's running_script: null, or the function's name, the caller's command and its time so far. */
  runningScript(): { name: string; command: Buffer[]; durationMs: number; evalMode: boolean } | null {
    const run = this.run;
    if (run === null) return null;
    const durationMs = Math.floor(performance.now() - run.started);
    return { name: run.name, command: run.command, durationMs, evalMode: run.evalMode };
  }

  /**
   * The interpreter's check every 100000 instructions (Redis's luaMaskCountHook and
   * scriptInterrupt). Past busy-reply-threshold on a server, the other clients are served while
   * the script runs, as Redis's processEventsWhileBlocked does: BUSY to most, SCRIPT KILL and the
   * other allow_busy commands run. Where the script can yield, it does, and the server's event
   * loop does the serving (new connections included); inside a pcall or another C call it cannot,
   * and the transport reads and answers its connected clients from here. Where no transport can
   * serve anyone (the embedded engine), a script that has not written is stopped at the
   * threshold instead, as a SCRIPT KILL would.
   */
  private interrupted(run: Run, yieldable: boolean): Interrupt {
    if (run.killed) return Interrupt.KILL;
    const now = performance.now();
    if (now <= run.deadline) return Interrupt.CONTINUE;
    const instance = this.instance;
    const serve = instance.serveWhileBusy;
    if (serve === null) {
      run.killed = !run.writeDirty;
      return run.killed ? Interrupt.KILL : Interrupt.CONTINUE;
    }
    if (!run.timedOut) {
      run.timedOut = true;
      instance.logger.warn(
        `sluice: Slow script detected: still in execution after ${Math.round(now - run.started)} milliseconds. ` +
          `You can try killing the script using the ${run.evalMode ? 'SCRIPT KILL' : 'FUNCTION KILL'} command. Script name is: ${run.name}.`,
      );
      instance.busyScript = {
        evalMode: run.evalMode,
        abandon: () => {
          run.abandoned = true;
          run.killed = true;
        },
      };
    }
    if (now - run.lastServed < SERVE_EVERY_MS) return Interrupt.CONTINUE;
    if (yieldable && run.mayYield) return Interrupt.YIELD;
    serve();
    run.lastServed = performance.now();
    return run.killed ? Interrupt.KILL : Interrupt.CONTINUE;
  }

  /**
   * Bytes each interpreter holds (INFO's used_memory_vm_eval and used_memory_vm_functions); 0
   * for one not made yet (the first script or library makes it), so INFO makes none.
   */
  interpretersMemory(): { eval: number; functions: number } {
    return { eval: this.vmInstance?.memory() ?? 0, functions: this.functionsInstance?.memory() ?? 0 };
  }

  /** The interpreter of function libraries (a second one, as Redis's function engine has its own). */
  get functionsVm(): LuaVm {
    void this.vm; // the scripts' client is made with the first interpreter
    this.functionsInstance ??= new LuaVm(this.host, this.version, true);
    return this.functionsInstance;
  }

  /**
   * Runs a library's code with Redis's 500 ms load timeout, or none (`timeout` false) as Redis
   * loads libraries from an RDB file or for a client it must obey.
   */
  loadLibrary(code: Buffer, timeout = true): RegisteredFunction[] | string {
    const vm = this.functionsVm;
    this.loadDeadline = timeout ? performance.now() + LOAD_TIMEOUT_MS : 0;
    try {
      return vm.load(code, true);
    } finally {
      this.loadDeadline = 0;
    }
  }

  /**
   * scriptPrepareForRun's checks, then `invoke` with the run set up for the commands it calls;
   * its effects are propagated in the command's place. Null when `invoke` found no script.
   */
  private execute(
    ctx: Context,
    vm: LuaVm,
    what: { evalMode: boolean; name: string; command: Buffer[] },
    flags: ScriptFlags,
    ro: boolean,
    invoke: () => ScriptResult | Yielded | null,
  ): Reply | Promise<Reply> | null {
    const instance = this.instance;
    const maxmemory = instance.config.getNumber('maxmemory');
    let oomAtStart = false;
    if (maxmemory > 0 && !ctx.client.mustObey) {
      const used = usedMemory(instance);
      oomAtStart = used.total - used.notCountedForEvict > maxmemory;
    }
    if (!flags.compat) {
      if (!flags.noWrites) {
        if (instance.replication.role === 'slave' && instance.config.get('replica-read-only') === 'yes' && !ctx.client.mustObey) {
          return new ErrorReply(Errors.scriptReadonlyReplica);
        }
        const diskError = ctx.client.mustObey ? null : (instance.persistence?.writeError() ?? null);
        if (diskError !== null) return new ErrorReply(diskError);
        if (ro) return new ErrorReply(Errors.scriptWriteWithRo);
        if (!ctx.client.mustObey && instance.tooFewReplicasToWrite()) return new ErrorReply(Errors.noReplicas);
      }
      if (oomAtStart && !flags.allowOom && !flags.noWrites) return new ErrorReply(Errors.scriptOom);
    }
    const client = this.client!;
    client.db = ctx.db.index;
    const run: Run = {
      ctx,
      readOnly: ro || (!flags.compat && flags.noWrites),
      allowOom: !flags.compat && flags.allowOom,
      oomAtStart,
      writeDirty: false,
      evalMode: what.evalMode,
      name: what.name,
      command: what.command,
      started: performance.now(),
      deadline: busyDeadline(instance.config.getNumber('busy-reply-threshold')),
      timedOut: false,
      killed: false,
      abandoned: false,
      lastServed: 0,
      // Not inside MULTI or for a client that must be obeyed: their commands never wait.
      mayYield: !ctx.noBlock,
      clockAt: instance.keyspace.now(),
      repl: 3,
      batch: [],
    };
    this.run = run;
    let result: ScriptResult | Yielded | null;
    try {
      result = invoke();
    } catch (err) {
      this.endRun(run);
      ctx.propagateAll(run.batch);
      throw err;
    }
    if (result === YIELDED) return new Promise((resolve) => this.resumeLater(run, vm, resolve));
    this.endRun(run);
    // Stopped by SHUTDOWN NOSAVE: the process exits without what it did, as Redis's does mid-script.
    if (!run.abandoned) ctx.propagateAll(run.batch);
    return result === null ? null : scriptReply(result);
  }

  private endRun(run: Run): void {
    this.run = null;
    if (run.timedOut) this.instance.busyScript = null;
  }

  /**
   * A script that yielded goes on once the event loop has served the others (the server's
   * reads, a SCRIPT KILL), its commands seeing the time it started at, as in one run. Its
   * effects are propagated when it ends, as the command that ran it would have.
   */
  private resumeLater(run: Run, vm: LuaVm, resolve: (reply: Reply) => void): void {
    setImmediate(() => {
      const keyspace = this.instance.keyspace;
      keyspace.freezeClock(run.clockAt);
      let reply: Reply;
      try {
        const result = vm.resume();
        if (result === YIELDED) {
          this.resumeLater(run, vm, resolve);
          return;
        }
        reply = scriptReply(result);
      } catch (err) {
        // As in execute(): what the script did before the failure is propagated all the same.
        this.instance.logger.error('sluice: internal error while running a script:', err);
        reply = new ErrorReply(Errors.internal);
      } finally {
        run.lastServed = performance.now();
        keyspace.thawClock();
      }
      this.endRun(run);
      if (!run.abandoned) this.instance.propagateLate(run.batch);
      resolve(reply);
    });
  }

  /** redis.call: Redis's scriptCall checks, then the command as the scripts' client. */
  private call(args: RequestArgs, resp: 2 | 3): Reply {
    const run = this.run!;
    const instance = this.instance;
    const resolved = instance.resolveArgs(args);
    if (resolved instanceof ErrorReply) {
      const unknown = instance.table.get(lower(args.buffer(0))) === undefined || /unknown subcommand/i.test(resolved.message);
      return this.rejected(unknown ? Errors.scriptUnknownCommand : Errors.scriptWrongArgs, null);
    }
    const write = resolved.write;
    if (resolved.noScript && !this.denyScriptDisabled) return this.rejected(Errors.scriptNotAllowed, resolved.fullName);
    // scriptVerifyACL: the command as the caller's user (the scripts' client runs as it).
    const denied = aclDenialInScript(instance, run.ctx.client, resolved.fullName, args);
    if (denied !== null) return this.rejected(denied, resolved.fullName);
    if (run.readOnly && (write || MAY_REPLICATE.has(resolved.fullName))) {
      return this.rejected(Errors.scriptWriteInReadOnly, resolved.fullName);
    }
    if (write && !run.writeDirty) {
      const caller = run.ctx.client;
      if (instance.replication.role === 'slave' && instance.config.get('replica-read-only') === 'yes' && !caller.mustObey) {
        return this.rejected(Errors.readOnlyReplica, resolved.fullName);
      }
      const diskError = instance.persistence?.writeError() ?? null;
      if (diskError !== null) return this.rejected(diskError, resolved.fullName);
      // Reached by scripts without a shebang only: the others were refused before they ran.
      if (instance.tooFewReplicasToWrite()) return this.rejected(Errors.noReplicas, resolved.fullName);
    }
    if (!run.allowOom && !run.writeDirty && run.oomAtStart && resolved.denyOom) {
      return this.rejected(Errors.oom, resolved.fullName);
    }
    if (write) run.writeDirty = true;
    const client = this.client!;
    client.resp = resp;
    const batch: Propagated[] = run.repl === 0 ? [] : run.batch;
    const from = batch.length;
    const reply = instance.callFromScript(client, resolved, args, batch);
    // REPL_REPLICA alone: to the replicas, not the AOF. (REPL_AOF alone is logged to both.)
    if (run.repl === 2) {
      for (let i = from; i < batch.length; i++) batch[i] = { db: batch[i]!.db, argv: batch[i]!.argv, replicationOnly: true };
    }
    return reply;
  }

  private encodeForScript(reply: Reply, resp: 2 | 3): Buffer {
    const i = resp - 2;
    const encoder = this.encoders[i]!;
    try {
      encoder.reuse(KEEP_REPLY_ARENA);
      return encoder.write(reply).take();
    } catch (err) {
      // A reply that failed half-written left bytes behind, which reuse() would refuse.
      this.encoders[i] = new Encoder(resp);
      throw err;
    }
  }

  private rejected(message: string, fullName: string | null): ErrorReply {
    this.instance.stats.countError(message);
    if (fullName !== null) this.instance.stats.forCommand(fullName).rejectedCalls++;
    return new ErrorReply(message);
  }

  /** redis.log at Redis's levels (debug, verbose, notice, warning), through the instance's logger. */
  private log(level: number, message: Buffer): void {
    const text = message.toString('utf8');
    const logger = this.instance.logger;
    if (level >= 3) logger.warn(text);
    else if (level === 2) logger.info(text);
    else logger.debug(text);
  }
}

/** The instance's scripts (made at the first scripting command). */
export const scriptsOf = perInstance((instance) => new ScriptEngine(instance));
