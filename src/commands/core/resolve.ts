// Finding the spec a command line names (subcommands included) and checking its arity, with
// Redis's error texts for unknown commands and subcommands.
import { ErrorReply, Errors } from '../../resp/reply.js';
import { lower } from '../args.js';
import type { CommandTable } from '../table.js';
import type { CommandSpec } from '../types.js';

export interface Resolved {
  spec: CommandSpec;
  /** "name" or "container|sub", as COMMAND and INFO commandstats name it. */
  fullName: string;
}

export function resolveCommand(table: CommandTable, argv: Buffer[]): Resolved | ErrorReply {
  let spec = table.lookup(argv[0]!);
  if (spec === undefined) {
    let args = '';
    for (let i = 1; i < argv.length && args.length < 128; i++) {
      args += `'${argv[i]!.toString('utf8').slice(0, 128 - args.length)}' `;
    }
    return new ErrorReply(Errors.unknownCommand(argv[0]!.toString('utf8').slice(0, 128), args));
  }
  const name = spec.name;
  let fullName = name;
  if (spec.subcommands !== undefined && argv.length >= 2) {
    const subName = lower(argv[1]!);
    const sub = spec.subcommands.find((s) => s.name === subName);
    if (sub === undefined) {
      return new ErrorReply(
        Errors.unknownSubcommand(argv[1]!.toString('utf8').slice(0, 128), name.toUpperCase()),
      );
    }
    spec = sub;
    fullName = `${name}|${subName}`;
  }
  const arity = spec.arity;
  if ((arity > 0 && argv.length !== arity) || argv.length < -arity) {
    return new ErrorReply(Errors.wrongArity(fullName));
  }
  return { spec, fullName };
}
