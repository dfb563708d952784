// How a worker gets entries from its consumer group, in three ways:
//   - its own PEL history (XREADGROUP ... 0), at start and after every reconnect, so entries
//     delivered before the link dropped are handled here rather than left for a claim;
//   - new entries (XREADGROUP ... >), plus, on Redis 7, a separate XAUTOCLAIM timer for the
//     entries of dead consumers;
//   - where the server has it (Redis 8.4+, sluice), XREADGROUP ... CLAIM: idle entries of any
//     consumer and new ones in one round trip.
// Every read returns entries with their delivery counts and whether they were taken over.
import type { Arg, BlockingConnection, Connection, Value } from '../../client/connection.js';
import { errorMessage, parseEntries, parseReadReply, type StreamEntry } from '../replies.js';
import { parseClaimReadReply, type StreamFeatures } from '../stream-features.js';
import type { ResolvedOptions } from './options.js';

export interface Delivered {
  entry: StreamEntry;
  deliveries: number;
  /** Taken over from another consumer (a claim), rather than a first delivery or our own. */
  claimed: boolean;
}

export interface ReadResult {
  entries: Delivered[];
  /** Pending ids whose entries were deleted from the stream (trimmed) before being handled. */
  trimmed: string[];
}

const EMPTY: ReadResult = { entries: [], trimmed: [] };

export class GroupReader {
  private readHistory = true;
  private historyCursor = '0';
  private claimCursor = '0-0';

  constructor(
    private readonly conn: Connection,
    private readonly reader: BlockingConnection,
    private readonly o: ResolvedOptions,
    private readonly consumer: string,
    private readonly features: StreamFeatures,
  ) {}

  /** After a reconnect: re-read our own PEL from the start. */
  resumeHistory(): void {
    this.readHistory = true;
    this.historyCursor = '0';
  }

  /** Creates the group (and the stream) when missing. */
  async ensureGroup(): Promise<void> {
    try {
      await this.conn.call('XGROUP', 'CREATE', this.o.stream, this.o.group, this.o.startId, 'MKSTREAM');
    } catch (err) {
      if (!errorMessage(err).startsWith('BUSYGROUP')) throw err;
    }
  }

  /** Up to `count` entries; blocks (up to blockMs) when there are none. */
  async read(count: number): Promise<ReadResult> {
    if (this.readHistory) return this.history(count);
    const claim = this.features.readClaim;
    const argv: Arg[] = ['XREADGROUP', 'GROUP', this.o.group, this.consumer, 'COUNT', count];
    // A blocked CLAIM read is not woken when an entry becomes idle: bound the block by the
    // claim interval, as the XAUTOCLAIM timer would be.
    argv.push('BLOCK', claim ? Math.min(this.o.blockMs, this.o.claimIntervalMs) : this.o.blockMs);
    if (claim) argv.push('CLAIM', this.o.claimIdleMs);
    argv.push('STREAMS', this.o.stream, '>');
    const reply = await this.reader.call(...argv);
    if (!claim) return { entries: parseReadReply(reply).map((entry) => ({ entry, deliveries: 1, claimed: false })), trimmed: [] };
    return {
      entries: parseClaimReadReply(reply).map(({ entry, previousDeliveries }) =>
        previousDeliveries === undefined ? { entry, deliveries: 1, claimed: false } : { entry, deliveries: previousDeliveries + 1, claimed: true },
      ),
      trimmed: [],
    };
  }

  /** Redis 7: XAUTOCLAIM entries idle past claimIdleMs (those of dead consumers). */
  async autoclaim(count: number): Promise<ReadResult> {
    if (count <= 0) return EMPTY;
    const reply = (await this.conn.call('XAUTOCLAIM', this.o.stream, this.o.group, this.consumer, this.o.claimIdleMs, this.claimCursor, 'COUNT', count)) as Value[];
    this.claimCursor = String(reply[0]);
    const entries = parseEntries(reply[1]!);
    // Redis 7 lists the ids it dropped because their entries were deleted.
    const trimmed = Array.isArray(reply[2]) ? reply[2].map(String) : [];
    return { entries: await this.withCounts(entries, true), trimmed };
  }

  /** Whether the next read() may bring back entries delivered before (our PEL's history, a CLAIM read). */
  get nextReadMayRepeat(): boolean {
    return this.readHistory || this.features.readClaim;
  }

  /** True when the last autoclaim reached the end of the PEL. */
  get claimScanDone(): boolean {
    return this.claimCursor === '0-0';
  }

  private async history(count: number): Promise<ReadResult> {
    const reply = await this.reader.call('XREADGROUP', 'GROUP', this.o.group, this.consumer, 'COUNT', count, 'STREAMS', this.o.stream, this.historyCursor);
    const all = parseReadReply(reply);
    if (all.length === 0) this.readHistory = false;
    else this.historyCursor = all[all.length - 1]!.id;
    const live = all.filter((e) => e.fields !== null);
    const trimmed = all.filter((e) => e.fields === null).map((e) => e.id);
    return { entries: await this.withCounts(live, false), trimmed };
  }

  /**
   * Delivery counts from XPENDING, for entries whose reply does not carry them. One no longer
   * pending to this consumer is left out: acknowledged since it was read (this worker claimed,
   * ran and acknowledged it while a history read was on its way) or taken by another consumer.
   */
  private async withCounts(entries: StreamEntry[], claimed: boolean): Promise<Delivered[]> {
    if (entries.length === 0) return [];
    const first = entries[0]!.id;
    const last = entries[entries.length - 1]!.id;
    // Our own PEL between the first and last id: small, as we hold few entries at a time.
    const rows = (await this.conn.call('XPENDING', this.o.stream, this.o.group, first, last, entries.length + this.o.concurrency * this.o.batchSize + 100, this.consumer)) as Value[][];
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(String(row[0]), Number(row[3]));
    return entries.flatMap((entry) => {
      const deliveries = counts.get(entry.id);
      return deliveries === undefined ? [] : [{ entry, deliveries, claimed }];
    });
  }
}
