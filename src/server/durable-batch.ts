// The replies of one batch while they wait for the append-only file (appendfsync always, or a
// disk error under everysec). If the disk refuses the batch's bytes, the commands that logged
// something are answered with the MISCONF error instead of their reply, at once: they ran in
// memory but are not acknowledged (src/persist/README.md says what happens to their bytes).
import { Buffer } from 'node:buffer';
import { Encoder, type Protocol } from '../resp/encoder.js';
import { ErrorReply, type Reply } from '../resp/reply.js';

/** The protocol slot of bytes sent as they are (a protocol error's reply). */
const RAW = 0;

/**
 * Kept in parallel arrays that are overwritten batch after batch: under everysec almost every
 * batch is dropped unused (its bytes reached the file in time), and an object per reply plus a
 * fresh array per batch were a sixth of what an unpipelined XADD allocated.
 */
export class DurableBatch {
  /** Replies in order; for a RAW slot, the bytes themselves. */
  private replies: Array<Reply | Buffer> = [];
  /** Each reply's protocol (2 or 3), or RAW. */
  private protocols: number[] = [];
  /** The command changed data, so its reply depends on the disk taking its bytes. */
  private logged: boolean[] = [];
  private count = 0;

  add(reply: Reply, protocol: Protocol, logged: boolean): void {
    this.put(reply, protocol, logged);
  }

  addRaw(bytes: Buffer): void {
    this.put(bytes, RAW, false);
  }

  private put(reply: Reply | Buffer, protocol: number, logged: boolean): void {
    const i = this.count++;
    if (i < this.replies.length) {
      this.replies[i] = reply;
      this.protocols[i] = protocol;
      this.logged[i] = logged;
    } else {
      this.replies.push(reply);
      this.protocols.push(protocol);
      this.logged.push(logged);
    }
  }

  /** Hands the batch over (for the flush waiting on the disk) and starts a new one. */
  take(): DurableBatch {
    const taken = new DurableBatch();
    taken.replies = this.replies.slice(0, this.count);
    taken.protocols = this.protocols.slice(0, this.count);
    taken.logged = this.logged.slice(0, this.count);
    taken.count = this.count;
    this.clear();
    return taken;
  }

  /** Drops the batch (its replies went out without waiting), keeping the arrays for the next. */
  clear(): void {
    // The slots are overwritten by the next batch; until then they must not pin the replies.
    for (let i = 0; i < this.count; i++) this.replies[i] = null;
    this.count = 0;
  }

  /** Whether any reply depends on the disk. */
  get hasLogged(): boolean {
    for (let i = 0; i < this.count; i++) if (this.logged[i]) return true;
    return false;
  }

  /** The batch's bytes with every logged command answered by `error`. */
  encodeFailed(error: string): Buffer {
    const failed = new ErrorReply(error);
    const encoders: { 2?: Encoder; 3?: Encoder } = {};
    const out: Buffer[] = [];
    for (let i = 0; i < this.count; i++) {
      const protocol = this.protocols[i]!;
      if (protocol === RAW) {
        out.push(this.replies[i] as Buffer);
        continue;
      }
      const encoder = (encoders[protocol as Protocol] ??= new Encoder(protocol as Protocol));
      encoder.write(this.logged[i] ? failed : (this.replies[i] as Reply));
      out.push(encoder.take());
    }
    return Buffer.concat(out);
  }
}
