// Producer: appends encoded payloads to a stream (or to one of N partition streams by key),
// trimming on write so the stream stays bounded: `MAXLEN ~ n` (by count) or `MINID ~ id`
// (by age; the id is derived from this process's clock minus minIdAgeMs).
// With `producerId` it produces idempotently (Redis 8.6 XADD IDMP / IDMPAUTO; sluice has it):
// a resend after a lost reply gets the first id back instead of adding a duplicate.
import type { Arg, Connection } from '../client/connection.js';
import { type Codec, encodeEntry, jsonCodec } from './codec.js';
import { partitionOf, partitionStreams } from './partition.js';
import { probeStreamFeatures } from './stream-features.js';

export interface ProducerOptions {
  stream: string;
  /** Approximate cap on entries per stream (`MAXLEN ~`). */
  maxLen?: number;
  /** Approximate age limit: entries older than this are trimmed on write (`MINID ~`). */
  minIdAgeMs?: number;
  /** Spread entries over this many streams `stream{0}`..`stream{N-1}` by key. */
  partitions?: number;
  codec?: Codec;
  /**
   * Idempotent production: a stable id of this producer (keep it across restarts). Each add
   * sends XADD IDMP producerId idempotencyKey, or IDMPAUTO producerId (the server hashes the
   * content) without one. The first add rejects when the server has no IDMP.
   */
  producerId?: string;
}

export interface AddOptions {
  /** Partition / ordering key: entries with the same key go to the same stream, in order. */
  key?: string;
  /** With `producerId`: this message's idempotent id (e.g. an order id); default: its content. */
  idempotencyKey?: string;
}


export class Producer {
  readonly streams: string[];
  private readonly codec: Codec;
  private roundRobin = 0;
  private idempotenceChecked: Promise<void> | null = null;

  constructor(
    private readonly conn: Connection,
    private readonly options: ProducerOptions,
  ) {
    if (options.maxLen !== undefined && options.minIdAgeMs !== undefined) {
      throw new RangeError('maxLen and minIdAgeMs are exclusive: XADD trims by one criterion');
    }
    this.codec = options.codec ?? jsonCodec;
    this.streams = options.partitions === undefined ? [options.stream] : partitionStreams(options.stream, options.partitions);
  }

  /** The stream an entry with this key goes to (keyless entries are spread round-robin). */
  streamFor(key?: string): string {
    if (this.streams.length === 1) return this.streams[0]!;
    if (key === undefined) return this.streams[this.roundRobin++ % this.streams.length]!;
    return this.streams[partitionOf(key, this.streams.length)]!;
  }

  /** Appends one entry; resolves to its id. */
  async add(payload: unknown, options: AddOptions = {}): Promise<string> {
    await this.checkIdempotence();
    return String(await this.conn.call(...this.xadd(payload, options.key, options.idempotencyKey)));
  }

  /** With `producerId`: resolves when the server has XADD IDMP, rejects saying so otherwise. */
  checkIdempotence(): Promise<void> {
    if (this.options.producerId === undefined) return Promise.resolve();
    this.idempotenceChecked ??= probeStreamFeatures(this.conn).then((f) => {
      if (!f.idmp) throw new Error('producerId: this server has no idempotent production (XADD IDMP needs Redis 8.6+ or sluice)');
    });
    return this.idempotenceChecked;
  }

  /** Appends many entries in one pipeline; resolves to their ids, in order. Rejects on the first error. */
  async addMany(items: Array<{ payload: unknown; key?: string; idempotencyKey?: string }> | unknown[], options: { keyed?: boolean } = {}): Promise<string[]> {
    await this.checkIdempotence();
    const commands = items.map((item) => {
      if (options.keyed) {
        const { payload, key, idempotencyKey } = item as { payload: unknown; key?: string; idempotencyKey?: string };
        return this.xadd(payload, key, idempotencyKey);
      }
      return this.xadd(item, undefined, undefined);
    });
    const replies = await this.conn.pipeline(commands);
    return replies.map((r) => {
      if (r instanceof Error) throw r;
      return String(r);
    });
  }

  private xadd(payload: unknown, key: string | undefined, idempotencyKey: string | undefined): Arg[] {
    const argv: Arg[] = ['XADD', this.streamFor(key)];
    const pid = this.options.producerId;
    if (pid !== undefined) argv.push(...(idempotencyKey === undefined ? ['IDMPAUTO', pid] : ['IDMP', pid, idempotencyKey]));
    if (this.options.maxLen !== undefined) argv.push('MAXLEN', '~', this.options.maxLen);
    if (this.options.minIdAgeMs !== undefined) argv.push('MINID', '~', Math.max(0, Date.now() - this.options.minIdAgeMs));
    argv.push('*', ...encodeEntry(this.codec, payload, key));
    return argv;
  }
}
