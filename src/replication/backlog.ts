// The replication backlog (Redis's repl_backlog): the last `repl-backlog-size` bytes of the
// replication stream, so a replica that lost its link for a moment continues with PSYNC from
// its offset instead of a full sync. It is an effect sink: every batch of command effects is
// encoded as the AOF encodes it (SELECT on a change of db, MULTI/EXEC around batches) and each
// byte advances the instance's master_repl_offset. As in Redis, an instance has none until its
// first replica attaches (createBacklog), and its offsets then count from there.
import type { EffectFanout, EffectSink, Propagated } from '../commands/core/effects.js';
import type { Instance } from '../commands/core/instance.js';
import type { BacklogStatus, ReplicationState } from '../commands/core/replication.js';
import { BatchEncoder } from '../persist/batch-encoder.js';

export class ReplicationBacklog implements EffectSink, BacklogStatus {
  private readonly encoder = new BatchEncoder();
  private readonly ring: Buffer;
  /** Where the next byte goes in `ring`. */
  private head = 0;
  /** How many bytes the ring holds, once what is kept is written out (repl_backlog_histlen). */
  private held = 0;
  /**
   * Told of the stream's new bytes as they are written out: once per socket read of commands
   * (EffectFanout.hold), or at once outside one. The Buffer is the listener's to keep.
   */
  onBytes: ((bytes: Buffer) => void) | null = null;

  constructor(
    private readonly state: ReplicationState,
    readonly size: number,
    private readonly fanout: EffectFanout | null = null,
  ) {
    this.ring = Buffer.allocUnsafe(size);
  }

  /** repl_backlog_histlen: how many bytes it holds. */
  get histlen(): number {
    this.flush();
    return this.held;
  }

  /** repl_backlog_first_byte_offset: the offset of the oldest byte held (offset + 1 when empty). */
  get firstByteOffset(): number {
    return this.state.offset - this.histlen + 1;
  }

  /** A replica's backlog only proxies its primary's stream (feed): effects are not encoded for it. */
  get listening(): boolean {
    return this.state.role !== 'slave';
  }

  append(batch: readonly Propagated[]): void {
    // A replica's stream is its primary's, proxied byte for byte (feed): its own effects (the
    // primary's commands as it applied them) are not encoded again.
    if (this.state.role === 'slave') return;
    // The offset moves now (WAIT and INFO read it after the command); the bytes stay in the
    // encoder's arena until the socket read's commands are all run, then go to the ring and
    // the replicas as one Buffer: per command it was a copy to the ring, a copy for the
    // replicas, a reply object and a push on each replica's connection.
    this.state.offset += this.encoder.encode(batch);
    if (this.fanout === null || !this.fanout.held) this.flush();
  }

  /** Writes what the encoder holds to the ring and the listener. */
  flush(): void {
    if (this.encoder.pending === 0) return;
    // A view of the arena, never overwritten (the encoder is not reused): the replicas keep it.
    this.write(this.encoder.takeBytes());
  }

  /** Bytes of the replication stream that did not come from effects (a primary's PING, REPLCONF GETACK). */
  feed(bytes: Buffer): void {
    this.flush();
    this.state.offset += bytes.length;
    this.write(bytes);
  }

  private write(bytes: Buffer): void {
    const { ring, size } = this;
    // Only the last `size` bytes can stay.
    const from = bytes.length > size ? bytes.length - size : 0;
    let at = from;
    while (at < bytes.length) {
      const n = Math.min(size - this.head, bytes.length - at);
      bytes.copy(ring, this.head, at, at + n);
      this.head = (this.head + n) % size;
      at += n;
    }
    this.held = Math.min(size, this.held + bytes.length);
    this.onBytes?.(bytes);
  }

  /**
   * The stream from `offset` (the first byte a replica lacks, as PSYNC names it) to the end, or
   * null when the backlog no longer (or never) held it: the replica then needs a full sync.
   */
  since(offset: number): Buffer | null {
    this.flush();
    const end = this.state.offset + 1;
    if (offset < this.firstByteOffset || offset > end) return null;
    const length = end - offset;
    const out = Buffer.allocUnsafe(length);
    let from = (this.head - length + this.size) % this.size;
    let copied = 0;
    while (copied < length) {
      const n = Math.min(this.size - from, length - copied);
      this.ring.copy(out, copied, from, from + n);
      copied += n;
      from = 0;
    }
    return out;
  }

  /** The db the stream's next command applies in (Redis's slaveseldb); -1 when the next one starts with a SELECT. */
  get streamDb(): number {
    this.flush();
    return this.encoder.db;
  }

  /** The db the stream is in after what was fed: a new replica's stream starts with a SELECT (-1). */
  forceSelect(): void {
    this.flush();
    this.encoder.db = -1;
  }
}

/**
 * As Redis's createReplicationBacklog (when a first replica attaches): a backlog of
 * repl-backlog-size that every command effect from now on goes into.
 */
export function createBacklog(instance: Instance): ReplicationBacklog {
  const backlog = new ReplicationBacklog(instance.replication, instance.config.getNumber('repl-backlog-size'), instance.effects);
  instance.replication.backlog = backlog;
  instance.effects.add(backlog);
  return backlog;
}
