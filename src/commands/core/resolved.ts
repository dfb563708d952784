// A table entry as dispatch reads it (see the class comment); built by CommandTable.register.
import type { CommandSpec } from '../types.js';
import type { CommandStats } from './stats.js';

/** Commands Redis flags MAY_REPLICATE (not shown by COMMAND INFO, so not in the specs' flags). */
export const MAY_REPLICATE = new Set(['publish', 'spublish', 'eval', 'evalsha', 'fcall', 'pfcount']);

/**
 * A command as dispatch needs it, built once per table entry: the flags dispatch tests on every
 * request are booleans here rather than searches of spec.flags, and nothing is allocated per
 * request.
 */
export class Resolved {
  /** "name" or "container|sub", as COMMAND and INFO commandstats name it. */
  readonly fullName: string;
  // The spec's fields dispatch reads per request, copied here: specs are object literals of
  // many shapes (spread `extra`), so reading them on every request is a megamorphic load.
  /** The lower-case name (the subcommand's alone). */
  readonly name: string;
  readonly arity: number;
  readonly handler: CommandSpec['handler'];
  readonly run: CommandSpec['run'];
  readonly write: boolean;
  /** CMD_READONLY: a client tracking keys remembers the keys it read (commands/tracking.ts). */
  readonly readonly: boolean;
  /** Writes, or may replicate (PUBLISH, EVAL ...): what a CLIENT PAUSE WRITE holds. */
  readonly mayReplicate: boolean;
  readonly noAuth: boolean;
  readonly noMulti: boolean;
  /** CMD_FAST: its latency samples go to the "fast-command" event, the others' to "command". */
  readonly fast: boolean;
  /** Neither admin nor skip_monitor: MONITOR shows it (Redis hides admin commands and scripts). */
  readonly shownToMonitors: boolean;
  /** CMD_NOSCRIPT: scripts may not call it. */
  readonly noScript: boolean;
  /** CMD_DENYOOM: refused while over maxmemory. */
  readonly denyOom: boolean;
  /** This command's INFO commandstats counters, once the instance has looked them up. */
  stats: CommandStats | null = null;
  private readonly subcommands: Map<string, Resolved> | null;

  constructor(readonly spec: CommandSpec, container?: Resolved) {
    this.fullName = container === undefined ? spec.name : `${container.spec.name}|${spec.name}`;
    this.name = spec.name;
    this.arity = spec.arity;
    this.handler = spec.handler;
    this.run = spec.run;
    const flags = spec.flags;
    this.write = flags.includes('write');
    this.readonly = flags.includes('readonly');
    this.mayReplicate = this.write || MAY_REPLICATE.has(this.fullName);
    this.noAuth = flags.includes('no_auth');
    this.noMulti = flags.includes('no_multi');
    this.fast = flags.includes('fast');
    this.shownToMonitors = !flags.includes('admin') && !flags.includes('skip_monitor');
    this.noScript = flags.includes('noscript');
    this.denyOom = flags.includes('denyoom');
    this.subcommands = spec.subcommands === undefined ? null : new Map(spec.subcommands.map((s) => [s.name, new Resolved(s, this)]));
  }

  /** Redis's arity rule: N means exactly N arguments, -N at least N. */
  arityAllows(argc: number): boolean {
    const arity = this.arity;
    return arity > 0 ? argc === arity : argc >= -arity;
  }

  subcommand(name: string): Resolved | undefined {
    return this.subcommands?.get(name);
  }
}
