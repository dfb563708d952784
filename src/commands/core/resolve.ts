// Finding the spec a command line names (subcommands included) and checking its arity, with
// Redis's error texts for unknown commands and subcommands.
import type { Buffer } from 'node:buffer';
import { ErrorReply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { lower } from '../args.js';
import type { CommandTable } from '../table.js';
import type { CommandSpec } from '../types.js';
import type { CommandStats } from './stats.js';

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
  readonly noAuth: boolean;
  readonly noMulti: boolean;
  /** Neither admin nor skip_monitor: MONITOR shows it (Redis hides admin commands and scripts). */
  readonly shownToMonitors: boolean;
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
    this.noAuth = flags.includes('no_auth');
    this.noMulti = flags.includes('no_multi');
    this.shownToMonitors = !flags.includes('admin') && !flags.includes('skip_monitor');
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

/** `base` is the table's entry for argv[0] when the caller already looked it up. */
export function resolveCommand(table: CommandTable, argv: Buffer[], base = table.lookup(argv[0]!)): Resolved | ErrorReply {
  if (base === undefined) {
    // Redis echoes the arguments' bytes, at most 128 of the name and about 128 of the rest
    // ('%.128s', '%.*s'): in latin1 a character is a byte, so the cuts fall where Redis's do.
    let args = '';
    for (let i = 1; i < argv.length && args.length < 128; i++) {
      args += `'${argv[i]!.toString('latin1', 0, 128 - args.length)}' `;
    }
    return new ErrorReply(Errors.unknownCommand(argv[0]!.toString('latin1', 0, 128), args), true);
  }
  let resolved = base;
  if (base.spec.subcommands !== undefined && argv.length >= 2) {
    const sub = base.subcommand(lower(argv[1]!));
    if (sub === undefined) {
      return new ErrorReply(Errors.unknownSubcommand(argv[1]!.toString('latin1', 0, 128), base.spec.name.toUpperCase()), true);
    }
    resolved = sub;
  }
  if (!resolved.arityAllows(argv.length)) return new ErrorReply(Errors.wrongArity(resolved.fullName));
  return resolved;
}
