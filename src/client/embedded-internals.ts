// What sluice's own code (tests, the differential harness) reaches behind an EmbeddedDatabase or
// an EmbeddedSession beyond their public API: the ClientState a session runs as, and raw
// replies (RESP reply types, error replies as values rather than thrown). The package entry
// does not export this module and the public classes' declared types do not mention it. The
// Instance itself: instanceBehind() in commands/core/instance-handles.ts.
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import type { Reply } from '../resp/reply.js';
import type { Arg, Value } from './connection.js';
import type { EmbeddedDatabase, EmbeddedSession } from './embedded.js';
import { executeRaw, executeTransaction } from './embedded-execute.js';

/** What a session runs on; a database's own entry is its main session's (the one db.call uses). */
export interface SessionState {
  readonly db: EmbeddedDatabase;
  readonly instance: Instance;
  readonly client: ClientState;
}

const sessions = new WeakMap<EmbeddedDatabase | EmbeddedSession, SessionState>();

/** Called by embedded.ts where a session (or a database's main session) is made. */
export function bindSession(handle: EmbeddedDatabase | EmbeddedSession, state: SessionState): void {
  sessions.set(handle, state);
}

function stateOf(handle: EmbeddedDatabase | EmbeddedSession): SessionState {
  const state = sessions.get(handle);
  if (state === undefined) throw new TypeError('not an embedded database or session');
  return state;
}

/** The client a session runs as (its protocol, flags, id). */
export function sessionClient(handle: EmbeddedDatabase | EmbeddedSession): ClientState {
  return stateOf(handle).client;
}

/** Runs a command and resolves to its raw reply (errors are ErrorReply values, not thrown). */
export async function callRaw(handle: EmbeddedDatabase | EmbeddedSession, ...args: Arg[]): Promise<Reply> {
  const state = stateOf(handle);
  if (state.db.closed) throw new Error('database is closed');
  return executeRaw(state.instance, state.client, args);
}

/** MULTI, the commands, EXEC on a session (embedded-execute.ts); null when EXEC was aborted. */
export function transactionOn(session: EmbeddedSession, commands: Arg[][]): Promise<Value[] | null> {
  const state = stateOf(session);
  if (state.db.closed) return Promise.reject(new Error('database is closed'));
  return executeTransaction(state.instance, state.client, commands);
}
