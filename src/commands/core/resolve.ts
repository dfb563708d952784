// Finding the spec a command line names (subcommands included) and checking its arity, with
// Redis's error texts for unknown commands and subcommands.
import type { Buffer } from 'node:buffer';
import { ErrorReply } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { lower } from '../args.js';
import type { CommandTable } from '../table.js';
import type { Resolved } from './resolved.js';

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
