// Client pausing, as Redis 7.0's pauseClients / unpauseClients (networking.c). Each purpose
// (CLIENT PAUSE, FAILOVER) pauses writes or all commands until its end time or its unpause;
// the strictest live pause applies. A paused client's command is postponed (Redis's
// BLOCKED_POSTPONE): the client waits, counted as blocked, and once the pause is lifted the
// command is processed again from scratch, so it may be refused then (a primary that became
// a replica meanwhile answers READONLY) or paused again. While clients are paused the dataset
// stays as it is: keys past their expiry read as missing but are not deleted, so no DEL moves
// the replication offset (Redis's expireIfNeeded and activeExpireCycle during a pause).
import type { Reply } from '../../resp/reply.js';
import type { ClientState } from '../client-state.js';

/** WRITE pauses commands that write or may replicate; ALL pauses every command. */
export type PauseType = 'write' | 'all';
/** Who paused: CLIENT PAUSE, a FAILOVER waiting for its replica, or a MIGRATE waiting for its target. */
export type PausePurpose = 'client' | 'failover' | 'migrate';

const RANK = { off: 0, write: 1, all: 2 } as const;

interface Postponed {
  readonly client: ClientState;
  readonly rerun: () => Reply | Promise<Reply>;
  readonly resolve: (reply: Reply | Promise<Reply>) => void;
}

/** Node's timers overflow past 2^31-1 ms (they would fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class ClientPause {
  private readonly byPurpose = new Map<PausePurpose, { type: PauseType; end: number }>();
  /** The strictest live pause ('off': none) and the furthest end among pauses of that type. */
  private type: 'off' | PauseType = 'off';
  private end = 0;
  private postponed: Postponed[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly now: () => number = Date.now,
    /** Told when clients become paused or unpaused (the keyspace stops expiring keys then). */
    private readonly onPausedChange: (paused: boolean) => void = () => undefined,
  ) {}

  /** Pauses `type` commands for `purpose` until `end` (ms since the epoch; Infinity: until unpaused). */
  pause(purpose: PausePurpose, end: number, type: PauseType): void {
    const p = this.byPurpose.get(purpose);
    if (p === undefined) this.byPurpose.set(purpose, { type, end });
    else {
      // As Redis: a second pause of the same purpose keeps the stricter type and the later end.
      if (RANK[type] > RANK[p.type]) p.type = type;
      p.end = Math.max(p.end, end);
    }
    this.update();
  }

  unpause(purpose: PausePurpose): void {
    if (!this.byPurpose.delete(purpose)) return;
    this.update();
  }

  /** Clients are paused now (an elapsed pause is lifted first). */
  get paused(): boolean {
    if (this.type === 'off') return false;
    if (this.end < this.now()) this.update();
    return (this.type as string) !== 'off';
  }

  /** Whether a command is paused: every one under ALL, writes and may-replicate ones under WRITE. */
  holds(mayReplicate: boolean): boolean {
    if (!this.paused) return false;
    return this.type === 'all' || mayReplicate;
  }

  /**
   * Postpones a client's command: the promise settles with `rerun()`'s reply once the pause is
   * lifted. The client counts as blocked meanwhile (INFO blocked_clients, CLIENT LIST's b flag).
   */
  postpone(client: ClientState, rerun: () => Reply | Promise<Reply>): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      const entry: Postponed = { client, rerun, resolve };
      this.postponed.push(entry);
      client.blocked = {
        db: client.db,
        keys: [],
        postponed: true,
        // Only a client that is gone ends this way (CLIENT UNBLOCK leaves postponed clients be).
        finish: () => {
          client.blocked = null;
          this.postponed = this.postponed.filter((e) => e !== entry);
          resolve(null);
        },
      };
    });
  }

  /** Recomputes the pause in force; a less strict one lets the postponed commands run again. */
  private update(): void {
    const before = this.type;
    const now = this.now();
    let type: 'off' | PauseType = 'off';
    for (const [purpose, p] of this.byPurpose) {
      if (p.end < now) this.byPurpose.delete(purpose);
      else if (RANK[p.type] > RANK[type]) type = p.type;
    }
    let end = 0;
    for (const p of this.byPurpose.values()) if (p.type === type && p.end > end) end = p.end;
    this.type = type;
    this.end = end;
    this.arm();
    if ((before === 'off') !== (type === 'off')) this.onPausedChange(type !== 'off');
    if (RANK[type] < RANK[before]) this.releasePostponed();
  }

  /** A timer for the end of a timed pause, so its postponed commands run when it elapses. */
  private arm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.type === 'off' || !Number.isFinite(this.end)) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.update();
    }, Math.min(Math.max(this.end - this.now() + 1, 0), MAX_TIMER_MS));
    this.timer.unref();
  }

  /**
   * The postponed commands run again, in the order they were postponed, once the current
   * command (the one that lifted the pause) has finished, as Redis reprocesses them in beforeSleep.
   */
  private releasePostponed(): void {
    if (this.postponed.length === 0) return;
    const released = this.postponed;
    this.postponed = [];
    setImmediate(() => {
      for (const entry of released) {
        if (entry.client.blocked === null) continue; // gone meanwhile
        entry.client.blocked = null;
        entry.resolve(entry.rerun());
      }
    });
  }
}
