// The replies of one batch while they wait for the append-only file (appendfsync always, or a
// disk error under everysec). If the disk refuses the batch's bytes, the commands that logged
// something are answered with the MISCONF error instead of their reply, at once: they ran in
// memory but are not acknowledged (src/persist/README.md says what happens to their bytes).
import { Buffer } from 'node:buffer';
import { Encoder, type Protocol } from '../resp/encoder.js';
import { ErrorReply, type Reply } from '../resp/reply.js';

interface Item {
  reply: Reply;
  protocol: Protocol;
  /** The command changed data, so its reply depends on the disk taking its bytes. */
  logged: boolean;
}

export class DurableBatch {
  /** Replies in order; a Buffer is raw bytes sent as they are (a protocol error's reply). */
  private items: Array<Item | Buffer> = [];

  add(reply: Reply, protocol: Protocol, logged: boolean): void {
    this.items.push({ reply, protocol, logged });
  }

  addRaw(bytes: Buffer): void {
    this.items.push(bytes);
  }

  /** Hands the batch over (for the flush waiting on the disk) and starts a new one. */
  take(): DurableBatch {
    const taken = new DurableBatch();
    taken.items = this.items;
    this.items = [];
    return taken;
  }

  /** Whether any reply depends on the disk. */
  get hasLogged(): boolean {
    return this.items.some((i) => !Buffer.isBuffer(i) && i.logged);
  }

  /** The batch's bytes with every logged command answered by `error`. */
  encodeFailed(error: string): Buffer {
    const failed = new ErrorReply(error);
    const encoders: { 2?: Encoder; 3?: Encoder } = {};
    const out: Buffer[] = [];
    for (const item of this.items) {
      if (Buffer.isBuffer(item)) {
        out.push(item);
        continue;
      }
      const encoder = (encoders[item.protocol] ??= new Encoder(item.protocol));
      encoder.write(item.logged ? failed : item.reply);
      out.push(encoder.take());
    }
    return Buffer.concat(out);
  }
}
