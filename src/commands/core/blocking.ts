// Clients blocked on keys (XREAD / XREADGROUP BLOCK): who waits on which "db:key", which
// keys changed since, and serving them FIFO per key as Redis's handleClientsBlockedOnKeys.
import type { Reply } from '../../resp/reply.js';
import type { ClientState } from '../client-state.js';
import type { BlockingView, Context } from '../types.js';

export interface Waiter {
  readonly client: ClientState;
  readonly db: number;
  readonly keys: string[];
  /** Called again whenever one of the keys changes; a reply ends the block. */
  readonly retry: (ctx: Context, readyKey: string) => Reply | undefined;
  resolve: (reply: Reply) => void;
  timer: NodeJS.Timeout | null;
  done: boolean;
}

/** Node's timers overflow past 2^31-1 ms (they would fire at once): longer ones re-arm in slices. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class BlockedClients implements BlockingView {
  private readonly waitersByKey = new Map<string, Waiter[]>();
  private readonly readyKeys = new Set<string>();
  private serving = false;

  get size(): number {
    return this.waitersByKey.size;
  }

  /** A key changed: its waiters are retried by the next serveReady. */
  keyModified(id: string): void {
    if (this.waitersByKey.has(id)) this.readyKeys.add(id);
  }

  /**
   * FLUSHDB / FLUSHALL (db null): every blocked key of the database is retried, as Redis's
   * signalFlushedDb, so XREADGROUP on a stream that is gone answers UNBLOCKED at once.
   */
  dbFlushed(db: number | null): void {
    for (const id of this.waitersByKey.keys()) if (db === null || id.startsWith(`${db}:`)) this.readyKeys.add(id);
  }

  /** Parks `client` until `retry` replies, the timeout (0 = never) or finish() from elsewhere. */
  block(
    client: ClientState,
    db: number,
    keys: string[],
    timeoutMs: number,
    retry: (ctx: Context, readyKey: string) => Reply | undefined,
    onTimeout: Reply,
  ): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      const waiter: Waiter = { client, db, keys, retry, resolve, timer: null, done: false };
      const finish = (reply: Reply | undefined): void => {
        if (waiter.done) return;
        waiter.done = true;
        if (waiter.timer !== null) clearTimeout(waiter.timer);
        for (const key of keys) this.remove(`${db}:${key}`, waiter);
        client.blocked = null;
        resolve(reply === undefined ? null : reply);
      };
      for (const key of keys) {
        const id = `${db}:${key}`;
        let list = this.waitersByKey.get(id);
        if (list === undefined) this.waitersByKey.set(id, (list = []));
        list.push(waiter);
      }
      if (timeoutMs > 0) {
        const deadline = Date.now() + timeoutMs;
        const arm = (): void => {
          const left = deadline - Date.now();
          if (left <= 0) return finish(onTimeout);
          waiter.timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
        };
        arm();
      }
      client.blocked = { db, keys, finish, timeoutReply: onTimeout };
    });
  }

  private remove(id: string, waiter: Waiter): void {
    const list = this.waitersByKey.get(id);
    if (list === undefined) return;
    const i = list.indexOf(waiter);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.waitersByKey.delete(id);
  }

  /** Some key with waiters changed since the last serveReady. */
  get hasReadyKeys(): boolean {
    return this.readyKeys.size > 0;
  }

  /**
   * Retries the waiters of every changed key through `serve` (which runs the retry as a
   * command, given that key, and returns its reply); keys changed meanwhile are served in
   * the same pass.
   */
  serveReady(serve: (waiter: Waiter, readyKey: string) => Reply | undefined): void {
    if (this.serving) return;
    this.serving = true;
    try {
      while (this.readyKeys.size > 0) {
        const [id] = this.readyKeys;
        this.readyKeys.delete(id!);
        const list = this.waitersByKey.get(id!);
        if (list === undefined) continue;
        for (const waiter of [...list]) {
          if (waiter.done) continue;
          const reply = serve(waiter, id!.slice(id!.indexOf(':') + 1));
          if (reply !== undefined) waiter.client.blocked?.finish(reply);
        }
      }
    } finally {
      this.serving = false;
    }
  }
}
