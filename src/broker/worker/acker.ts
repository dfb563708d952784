// Batched acknowledgement: every XACK asked for in one event-loop turn goes out as one command.
import type { Connection } from '../../client/connection.js';

export class Acker {
  private queue: string[] = [];
  private flushing: Promise<boolean> | null = null;

  constructor(
    private readonly conn: Connection,
    private readonly stream: string,
    private readonly group: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Queues an XACK; resolves once its batch was answered (true if it succeeded). */
  ack(id: string): Promise<boolean> {
    this.queue.push(id);
    this.flushing ??= new Promise((r) => setImmediate(r)).then(() => this.send());
    return this.flushing;
  }

  /** Resolves when every queued XACK has been answered. */
  async drain(): Promise<void> {
    while (this.flushing !== null || this.queue.length > 0) {
      if (this.flushing !== null) await this.flushing;
      else await this.send();
    }
  }

  private async send(): Promise<boolean> {
    const ids = this.queue;
    this.queue = [];
    this.flushing = null;
    if (ids.length === 0) return true;
    try {
      await this.conn.call('XACK', this.stream, this.group, ...ids);
      return true;
    } catch (err) {
      // Still pending on the server: a PEL re-read or a claim delivers them again.
      this.onError(err);
      return false;
    }
  }
}
