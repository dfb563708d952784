// A diskless full sync's first bytes written while the snapshot is still being written. The
// snapshot is taken synchronously (nothing may run between it and the stream that follows it),
// so bytes queued on the replica's socket only leave once it is done: the replica waited the
// whole snapshot, then decoded while the primary sat idle. Written straight to the kernel as
// each 1 MiB chunk is full (ClientState.writeNow), as far as the kernel takes them, the RDB
// reaches the replica, which decodes it as it arrives (rdb/rdb-file.ts RdbLoader), while the
// primary writes the rest: on two cores the two halves of the sync overlap, as Redis's forked
// child streams its RDB while it writes it.
import type { ClientState } from '../commands/client-state.js';

export class EarlySend {
  /** Bytes offered and not yet taken, in order (the head of the queue is the one to write next). */
  private readonly queue: Buffer[] = [];
  /** How many chunks of the snapshot were offered (the first ones of the list it ends as). */
  private chunks = 0;

  private constructor(private readonly write: (bytes: Buffer) => number) {}

  /**
   * For a replica whose connection writes at once (a socket with nothing else to send), with
   * `head` (+FULLRESYNC and the $EOF:<mark> line) offered first; null otherwise.
   */
  static start(client: ClientState, head: Buffer): EarlySend | null {
    const write = client.writeNow;
    if (write === null) return null;
    const early = new EarlySend(write);
    early.offer(head);
    return early;
  }

  /** A chunk of the snapshot, just full: written now if everything before it was. */
  chunk(chunk: Buffer): void {
    this.chunks++;
    this.offer(chunk);
  }

  /**
   * The snapshot is written (`all`: its chunks, the ones offered first): what is left to send,
   * in order. The queue and the chunks never offered go the usual way, paced (primary.ts sendRdb).
   */
  rest(all: readonly Buffer[]): Buffer[] {
    this.pump();
    return [...this.queue, ...all.slice(this.chunks)];
  }

  private offer(bytes: Buffer): void {
    this.pump();
    if (this.queue.length === 0) {
      const n = this.write(bytes);
      if (n === bytes.length) return;
      bytes = bytes.subarray(n);
    }
    this.queue.push(bytes);
  }

  /** Writes what is queued as far as the kernel takes it now. */
  private pump(): void {
    const queue = this.queue;
    while (queue.length > 0) {
      const bytes = queue[0]!;
      const n = this.write(bytes);
      if (n < bytes.length) {
        queue[0] = bytes.subarray(n);
        return;
      }
      queue.shift();
    }
  }
}
