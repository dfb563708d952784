// What a transport answers when the append-only file refused the bytes of a command it ran:
// the MISCONF error, for the commands whose reply depends on the disk (those that logged).
import type { Instance } from '../commands/core/instance.js';
import { ErrorReply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';

/** Whether a command (by its argv) is flagged write: a blocked one logs when it is served. */
export function isWriteCommand(instance: Instance, argv: Buffer[]): boolean {
  const resolved = instance.resolve(argv);
  return !(resolved instanceof ErrorReply) && resolved.spec.flags.includes('write');
}

/** The error text for a failed persistence barrier (the writer rejects with the MISCONF text). */
export function diskError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.startsWith('MISCONF ') ? message : Errors.aofWrite(message);
}
