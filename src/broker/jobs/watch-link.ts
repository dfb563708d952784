// A connection of one's own for WATCH … MULTI … EXEC (check-and-set without Lua): WATCH lives on
// a connection, so it cannot share the caller's (another caller's EXEC would consume or abort
// it). Made on first use (conn.duplicate()), one transaction at a time (callers queue), and
// closed after a second unused, so a Producer or Queue that is never closed does not keep the
// process alive for long; close() closes it at once.
import type { BlockingConnection, Connection } from '../../client/connection.js';

const IDLE_MS = 1000;

export class WatchLink {
  private link: Promise<BlockingConnection> | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private users = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor(private readonly conn: Connection) {}

  /** Runs `body` on the link, alone on it (UNWATCH after, whatever happened). */
  run<R>(body: (link: BlockingConnection) => Promise<R>): Promise<R> {
    this.users++;
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    const turn = this.tail.then(async () => {
      this.link ??= this.conn.duplicate();
      let link: BlockingConnection;
      try {
        link = await this.link;
      } catch (err) {
        this.link = null;
        throw err;
      }
      try {
        return await body(link);
      } finally {
        await link.call('UNWATCH').catch(() => {});
      }
    });
    this.tail = turn.catch(() => {});
    return turn.finally(() => {
      if (--this.users === 0) {
        this.idle = setTimeout(() => void this.close(), IDLE_MS);
        this.idle.unref();
      }
    });
  }

  /** Closes the link (a transaction in progress ends first). */
  async close(): Promise<void> {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    await this.tail;
    const link = this.link;
    this.link = null;
    if (link !== null && this.users === 0) await (await link.catch(() => null))?.close().catch(() => {});
    else if (link !== null) this.link = link;
  }
}
