import { type Reply, SimpleString } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';

/** A HELP reply: the usage line and the given lines, as status strings (addReplyHelp). */
export function helpReply(name: string, lines: string[]): Reply {
  return [
    new SimpleString(`${name} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:`),
    ...lines.map((l) => new SimpleString(l)),
    new SimpleString('HELP'),
    new SimpleString('    Prints this help.'),
  ];
}

/** The error of a container command given a subcommand it has but with the wrong arguments. */
export function subcommandSyntaxError(sub: Buffer, cmd: string): string {
  return Errors.unknownSubcommandOrArity(sub.toString('utf8').slice(0, 128), cmd);
}
