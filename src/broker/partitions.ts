// Partitioned streams on Redis Cluster. Redis has no stream partitioning, so the broker spreads
// one logical stream over N streams by key (as Kafka clients do):
//
//   orders{<tag0>}  orders{<tag1>}  ...      one stream per partition, each in one slot
//   orders{<tag0>}:dead ...                   its dead letters, same hash tag = same slot, so the
//                                             worker's MULTI (XADD dead letter + XACK) is legal
//
// The tags are chosen so partition i's slot lies in the middle of the i-th of N equal slot
// ranges: `redis-cli --cluster create` gives each of M masters an equal contiguous range, so
// N = M (or a multiple of M) puts the same number of partitions on every master, without the
// names depending on the live topology (a resharding moves slots, not names).
// Keys map to partitions by partitionOf (FNV-1a, partition.ts): one key, one stream, one order.
import type { Arg, Connection, Value } from '../client/connection.js';
import { type Codec, encodeEntry, jsonCodec } from './codec.js';
import { Metrics } from './metrics.js';
import { partitionOf } from './partition.js';
import { type Handler, Worker, type WorkerEvent, type WorkerOptions } from './worker.js';

export const CLUSTER_SLOTS = 16384;

/** CRC16/XMODEM, the checksum Redis Cluster hashes keys with. */
export function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster slot of a key, honouring a `{hash tag}` as Redis does (first `{`, next `}`, non-empty). */
export function keySlot(key: string | Buffer): number {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % CLUSTER_SLOTS;
  }
  return crc16(bytes) % CLUSTER_SLOTS;
}

/** The hash tag of partition `i` of `n`: `i`, or `i.k` for the first k that lands mid-range. */
export function partitionTag(i: number, n: number): string {
  const width = CLUSTER_SLOTS / n;
  const lo = Math.ceil(i * width + width / 4);
  const hi = Math.floor((i + 1) * width - width / 4);
  for (let k = 0; ; k++) {
    const tag = k === 0 ? String(i) : `${i}.${k}`;
    const slot = crc16(Buffer.from(tag)) % CLUSTER_SLOTS;
    if (slot >= lo && slot <= hi) return tag;
  }
}

/** `stream{tag_i}` for i < n, tags spread over the slot space (see the top of this file). */
export function clusterPartitionStreams(stream: string, n: number): string[] {
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new RangeError('partitions must be an integer from 1 to 1024');
  // A brace in the name would become the hash tag itself and put every partition in one slot.
  if (stream.includes('{') || stream.includes('}')) throw new RangeError('a partitioned stream name must not contain { or }');
  return Array.from({ length: n }, (_, i) => `${stream}{${partitionTag(i, n)}}`);
}

/** add() with waitReplicas: the entry was written (as `id`) but too few replicas confirmed it. */
export class ReplicationError extends Error {
  constructor(
    readonly id: string,
    readonly replicas: number,
    readonly wanted: number,
  ) {
    super(`entry ${id} reached ${replicas} of ${wanted} replicas; it may be lost on failover`);
    this.name = 'ReplicationError';
  }
}

export interface PartitionedProducerOptions {
  stream: string;
  partitions: number;
  /** Approximate cap on entries per partition (`MAXLEN ~`). */
  maxLen?: number;
  codec?: Codec;
  /**
   * Wait until this many replicas have each write (WAIT, pipelined on the partition's master)
   * before add() resolves; add() rejects if fewer confirmed in waitTimeoutMs. Redis replication is
   * asynchronous: without this, an acknowledged entry can be lost when its master dies first.
   */
  waitReplicas?: number;
  waitTimeoutMs?: number;
}

/** Writes to `partitions` streams; entries with the same key go to the same stream, in order. */
export class PartitionedProducer {
  readonly streams: string[];
  private readonly codec: Codec;
  private roundRobin = 0;

  constructor(
    private readonly conn: Connection,
    private readonly options: PartitionedProducerOptions,
  ) {
    this.streams = clusterPartitionStreams(options.stream, options.partitions);
    this.codec = options.codec ?? jsonCodec;
  }

  /** The partition stream for a key; keyless entries are spread round-robin. */
  streamFor(key?: string): string {
    if (key === undefined) return this.streams[this.roundRobin++ % this.streams.length]!;
    return this.streams[partitionOf(key, this.streams.length)]!;
  }

  /** Appends one entry; resolves to its id (once `waitReplicas` replicas have it, if set). */
  async add(payload: unknown, options: { key?: string } = {}): Promise<string> {
    const xadd = this.xadd(payload, options.key);
    const need = this.options.waitReplicas ?? 0;
    if (need === 0) return String(await this.conn.call(...xadd));
    // One pipeline: the XADD's key routes both commands to the partition's master.
    const [id, acked] = await this.conn.pipeline([xadd, ['WAIT', need, this.options.waitTimeoutMs ?? 1000]]);
    if (id instanceof Error) throw id;
    if (acked instanceof Error) throw acked;
    if (Number(acked) < need) throw new ReplicationError(String(id), Number(acked), need);
    return String(id);
  }

  /** Appends many entries (pipelined per partition); resolves to their ids in input order. */
  async addMany(items: Array<{ payload: unknown; key?: string }>): Promise<string[]> {
    const byStream = new Map<string, number[]>();
    const commands = items.map((item, i) => {
      const argv = this.xadd(item.payload, item.key);
      const list = byStream.get(String(argv[1])) ?? [];
      list.push(i);
      byStream.set(String(argv[1]), list);
      return argv;
    });
    const ids: string[] = new Array(items.length);
    await Promise.all(
      [...byStream.values()].map(async (indexes) => {
        const replies = await this.conn.pipeline(indexes.map((i) => commands[i]!));
        replies.forEach((r, j) => {
          if (r instanceof Error) throw r;
          ids[indexes[j]!] = String(r);
        });
      }),
    );
    return ids;
  }

  private xadd(payload: unknown, key: string | undefined): Arg[] {
    const argv: Arg[] = ['XADD', this.streamFor(key)];
    if (this.options.maxLen !== undefined) argv.push('MAXLEN', '~', this.options.maxLen);
    argv.push('*', ...encodeEntry(this.codec, payload, key));
    return argv;
  }
}

export interface PartitionedWorkerOptions extends Omit<WorkerOptions, 'stream' | 'deadLetterStream' | 'metrics' | 'handleSignals'> {
  stream: string;
  partitions: number;
}

/** Splits `total` handler slots over n partitions: each gets ⌊total/n⌋, the first total mod n one more (at least 1). */
export function splitConcurrency(total: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.max(1, Math.floor(total / n) + (i < total % n ? 1 : 0)));
}

/**
 * Consumes every partition of a stream: one Worker per partition (one consumer group per
 * partition stream, dead letters to `partition:dead` in the same slot), the concurrency split
 * across them, one shared Metrics. Claims and retries run per partition, as each Worker's do.
 */
export class PartitionedWorker<T = unknown> {
  readonly workers: Worker<T>[];
  readonly metrics: Metrics;
  readonly streams: string[];

  constructor(conn: Connection, options: PartitionedWorkerOptions, handler: Handler<T>) {
    const { partitions, concurrency, ...rest } = options;
    this.streams = clusterPartitionStreams(options.stream, partitions);
    this.metrics = new Metrics();
    const shares = splitConcurrency(concurrency ?? 10, partitions);
    this.workers = this.streams.map((stream, i) => new Worker<T>(conn, { ...rest, stream, concurrency: shares[i]!, metrics: this.metrics }, handler));
  }

  on(event: WorkerEvent, listener: (...args: unknown[]) => void): this {
    for (const w of this.workers) w.on(event, listener);
    return this;
  }

  async start(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.start()));
  }

  async run(): Promise<void> {
    await this.start();
    await Promise.all(this.workers.map((w) => w.run()));
  }

  /** Graceful stop of every partition's worker (in-flight handlers finish and are acked). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}

/** Sum of XLEN over the partitions (for draining old partitions after a count change). */
export async function partitionsLength(conn: Connection, streams: string[]): Promise<number> {
  const lens = await Promise.all(streams.map((s) => conn.call('XLEN', s) as Promise<Value>));
  return lens.reduce<number>((a, b) => a + Number(b), 0);
}
