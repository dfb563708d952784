// maxmemory, as Redis's processCommand: keys are evicted first by the maxmemory-policy
// (eviction.ts); when that cannot bring used memory under the limit (noeviction, the default,
// or nothing left to evict), commands flagged denyoom (and anything queued inside MULTI, and an
// EXEC of denyoom commands) are refused with the OOM error.
import { ErrorReply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import type { ClientState } from './client-state.js';
import type { InstanceView } from './types.js';
import type { CommandSpec } from './types.js';

/** Commands Redis lets through inside MULTI even past the limit. */
const MULTI_ALWAYS_ALLOWED = new Set(['exec', 'discard', 'quit', 'reset']);

function denyOnOom(instance: InstanceView, client: ClientState, spec: CommandSpec, fullName: string): boolean {
  if (fullName === 'exec') {
    return (client.multi ?? []).some((args) => {
      const queued = instance.resolve(args.toArgv());
      return !(queued instanceof ErrorReply) && queued.spec.flags.includes('denyoom');
    });
  }
  // Queuing may grow memory without bound, so inside MULTI everything else is refused too.
  return spec.flags.includes('denyoom') || (client.multi !== null && !MULTI_ALWAYS_ALLOWED.has(fullName));
}

/** The OOM rejection for this command, or null when it may run. What must be obeyed (the AOF loader) is exempt. */
export function maxmemoryRejection(instance: InstanceView, client: ClientState, spec: CommandSpec, fullName: string): ErrorReply | null {
  const max = instance.config.getNumber('maxmemory');
  if (max <= 0 || client.mustObey) return null;
  // Every command evicts first, as Redis; only the ones that may grow memory are refused.
  if (instance.eviction.perform() !== 'fail' || !denyOnOom(instance, client, spec, fullName)) return null;
  instance.stats.forCommand(fullName).rejectedCalls++;
  if (fullName === 'exec') {
    // As execCommandAbort: the transaction is discarded.
    client.multi = null;
    client.multiAborted = false;
    instance.unwatchAll(client);
    const message = Errors.execAbortBecause(Errors.oom);
    instance.stats.countError(message);
    return new ErrorReply(message);
  }
  if (client.multi !== null) client.multiAborted = true;
  instance.stats.countError(Errors.oom);
  return new ErrorReply(Errors.oom);
}
