// Batched acknowledgement: the XACKs asked for in one event-loop turn go out together, in
// commands of at most MAX_IDS ids (pipelined), so no command grows without bound. An ack may
// bring commands that must apply with it (a job's completion: its record, its event): the
// batch then goes as one MULTI, XACKs first. Writes that must reach the server before the
// batch (`before`: a job's start, when it finished in the turn it started) go first in that
// MULTI, so a fast job costs one write to the server, not two; without a MULTI they are sent
// first on their own.
import type { Arg, Connection } from '../../client/connection.js';
import { coalesce } from './coalesce.js';
import type { JobWriteSender } from './job-write-sender.js';

const MAX_IDS = 1000;

export class Acker {
  private queue: string[] = [];
  private extra: Arg[][] = [];
  private flushing: Promise<boolean> | null = null;
  /** The ids of XACKs sent and not answered yet. */
  private readonly inFlight = new Set<string[]>();

  constructor(
    private readonly conn: Connection,
    private readonly stream: string,
    private readonly group: string,
    private readonly onError: (err: unknown) => void,
    /** Sends a batch's MULTI (job-write-sender.ts: a MULTI, or the same commands as one script call). */
    private readonly sender: Pick<JobWriteSender, 'atomic'>,
    /** Called just before a batch is sent: commands that must reach the server first. */
    private readonly before: () => Arg[][] = () => [],
    /** Sends commands that must reach the server first on their own (a batch without a MULTI). */
    private readonly sendBefore: (commands: Arg[][]) => void = () => {},
  ) {}

  /**
   * Queues an XACK (and the commands to apply with it); resolves once its batch was answered
   * (true if it succeeded).
   */
  ack(id: string, withIt: Arg[][] = []): Promise<boolean> {
    this.queue.push(id);
    for (const c of withIt) this.extra.push(c);
    // A full batch goes out at once: an in-process engine answers in microtasks, so the
    // event loop may not reach setImmediate for a long time.
    this.flushing ??= this.queue.length >= MAX_IDS ? Promise.resolve().then(() => this.send()) : new Promise((r) => setImmediate(r)).then(() => this.send());
    return this.flushing;
  }

  /** Resolves when every queued XACK has been answered. */
  async drain(): Promise<void> {
    while (this.flushing !== null || this.queue.length > 0) {
      if (this.flushing !== null) await this.flushing;
      else await this.send();
    }
  }

  /** Whether XACKs are queued (a send will follow in this turn or the next). */
  get queued(): boolean {
    return this.queue.length > 0;
  }

  /** Ids whose XACK is queued or unanswered (what a close that gives up leaves unconfirmed). */
  unconfirmed(): string[] {
    return [...[...this.inFlight].flat(), ...this.queue];
  }

  private async send(): Promise<boolean> {
    const ids = this.queue;
    const extra = this.extra;
    this.queue = [];
    this.extra = [];
    this.flushing = null;
    if (ids.length === 0) return true;
    this.inFlight.add(ids);
    try {
      const before = this.before();
      const commands: Arg[][] = [];
      for (let i = 0; i < ids.length; i += MAX_IDS) commands.push(['XACK', this.stream, this.group, ...ids.slice(i, i + MAX_IDS)]);
      if (extra.length > 0) {
        // The replies are not read one by one, so the batch may fold its writes (coalesce.ts).
        await this.sender.atomic(coalesce(before.length === 0 ? [...commands, ...extra] : [...before, ...commands, ...extra]));
        return true;
      }
      if (before.length > 0) this.sendBefore(before);
      const replies = commands.length === 1 ? [await this.conn.call(...commands[0]!)] : await this.conn.pipeline(commands);
      const failed = replies.find((r) => r instanceof Error);
      if (failed) throw failed;
      return true;
    } catch (err) {
      // Still pending on the server: a PEL re-read or a claim delivers them again.
      this.onError(err);
      return false;
    } finally {
      this.inFlight.delete(ids);
    }
  }
}
