// The Context a handler runs with: the client's database, and what the command changed and
// asks to propagate, collected for InstanceView to log when the command ends.
import type { Database } from '../../engine/keyspace.js';
import type { Reply } from '../../resp/reply.js';
import type { RequestArgs } from '../../resp/request-args.js';
import type { ClientState } from '../client-state.js';
import type { Context } from '../types.js';
import type { InstanceView } from '../types.js';
import type { StreamIdReply } from '../../resp/reply.js';
import { type Propagated, type PropagatedArg, WireCommand } from './effects.js';

/** Shared by every command that propagates nothing: no array allocated per command. */
const NOTHING: readonly Propagated[] = Object.freeze([]);

export class CommandContext implements Context {
  dirtyCount = 0;
  propagationPrevented = false;
  /** What the handler propagates explicitly; null until it does (most commands never do). */
  private explicit: Propagated[] | null = null;
  readonly startDb: number;
  /** The database the command started in (SELECT inside MULTI changes the client's, not this). */
  readonly db: Database;

  constructor(
    readonly instance: InstanceView,
    readonly client: ClientState,
    readonly noBlock: boolean,
    dbIndex?: number,
  ) {
    this.startDb = dbIndex ?? client.db;
    this.db = instance.keyspace.db(this.startDb);
  }

  modified(key: string, db?: number): void {
    this.dirtyCount++;
    this.instance.keyspace.signalModified(db ?? this.db.index, key);
  }

  notify(type: number, event: string, key: string, db?: number): void {
    this.instance.keyspaceEvents.notify(type, event, key, db ?? this.db.index);
  }

  addDirty(n: number): void {
    this.dirtyCount += n;
  }

  propagate(argv: PropagatedArg[], replicationOnly = false): void {
    this.addExplicit(replicationOnly ? { db: this.db.index, argv, replicationOnly } : { db: this.db.index, argv });
  }

  propagateRequest(args: RequestArgs, at = -1, id: StreamIdReply | null = null): void {
    this.addExplicit(WireCommand.of(this.db.index, args, at, id));
  }

  private addExplicit(item: Propagated): void {
    // A literal of one: an empty array's first push allocates room for 17.
    if (this.explicit === null) this.explicit = [item];
    else this.explicit.push(item);
  }

  propagateAll(items: readonly Propagated[]): void {
    if (items.length === 0) return;
    if (this.explicit === null) this.explicit = [...items];
    else this.explicit.push(...items);
  }

  get propagating(): boolean {
    return this.instance.effects.active;
  }

  preventPropagation(): void {
    this.propagationPrevented = true;
  }

  block(
    keys: string[],
    timeoutMs: number,
    retry: (ctx: Context, readyKey: string) => Reply | undefined,
    onTimeout: Reply,
  ): Promise<Reply> {
    return this.instance.blocked.block(this.client, this.db.index, keys, timeoutMs, retry, onTimeout);
  }

  /**
   * What to log for this command: its explicit forms, else its own arguments when it changed
   * anything. `args` is null for blocked-client retries, which propagate explicitly or not at all.
   */
  propagated(args: RequestArgs | null): readonly Propagated[] {
    if (this.propagationPrevented) return NOTHING;
    if (this.explicit !== null) return this.explicit;
    return this.dirtyCount > 0 && args !== null ? [WireCommand.of(this.startDb, args)] : NOTHING;
  }
}
