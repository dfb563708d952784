// Producer: appends encoded payloads to a stream (or to one of N partition streams by key),
// trimming on write so the stream stays bounded: `MAXLEN ~ n` (by count) or `MINID ~ id`
// (by age; the id is derived from this process's clock minus minIdAgeMs).
import type { Arg, Connection } from '../client/connection.js';
import { type Codec, encodeEntry, jsonCodec } from './codec.js';
import { partitionOf, partitionStreams } from './partition.js';

export interface ProducerOptions {
  stream: string;
  /** Approximate cap on entries per stream (`MAXLEN ~`). */
  maxLen?: number;
  /** Approximate age limit: entries older than this are trimmed on write (`MINID ~`). */
  minIdAgeMs?: number;
  /** Spread entries over this many streams `stream{0}`..`stream{N-1}` by key. */
  partitions?: number;
  codec?: Codec;
}

export interface AddOptions {
  /** Partition / ordering key: entries with the same key go to the same stream, in order. */
  key?: string;
}


export class Producer {
  readonly streams: string[];
  private readonly codec: Codec;
  private roundRobin = 0;

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
    return String(await this.conn.call(...this.xadd(payload, options.key)));
  }

  /** Appends many entries in one pipeline; resolves to their ids, in order. Rejects on the first error. */
  async addMany(items: Array<{ payload: unknown; key?: string }> | unknown[], options: { keyed?: boolean } = {}): Promise<string[]> {
    const commands = items.map((item) => {
      if (options.keyed) {
        const { payload, key } = item as { payload: unknown; key?: string };
        return this.xadd(payload, key);
      }
      return this.xadd(item, undefined);
    });
    const replies = await this.conn.pipeline(commands);
    return replies.map((r) => {
      if (r instanceof Error) throw r;
      return String(r);
    });
  }

  private xadd(payload: unknown, key: string | undefined): Arg[] {
    const argv: Arg[] = ['XADD', this.streamFor(key)];
    if (this.options.maxLen !== undefined) argv.push('MAXLEN', '~', this.options.maxLen);
    if (this.options.minIdAgeMs !== undefined) argv.push('MINID', '~', Math.max(0, Date.now() - this.options.minIdAgeMs));
    argv.push('*', ...encodeEntry(this.codec, payload, key));
    return argv;
  }
}
