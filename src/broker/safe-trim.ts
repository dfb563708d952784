// Trimming that never drops an entry a consumer group still needs, for servers without
// Redis 8.2's ACKED policy (Redis 7, Valkey). At most once per interval and per stream, after
// an add, it finds the oldest id any group needs (its oldest pending entry, or the entry after
// its last delivered one) and trims below both that and the producer's own bound:
//
//   XTRIM stream MINID min(needed by the slowest group, bound from maxLen / minIdAgeMs)
//
// A group created meanwhile at an older position, or XGROUP SETID backwards, can lose entries
// it would have read: the same as Redis's own trimming, and rare for a running system.
import { type Logger, silentLogger } from '../logger.js';
import type { Connection, Value } from '../client/connection.js';
import { type Clock, systemClock } from './clock.js';
import { compareIds, pairsToObject } from './replies.js';

export interface SafeTrimOptions {
  maxLen?: number;
  minIdAgeMs?: number;
  /** At most one trim per stream this often (default 1000 ms). */
  intervalMs?: number;
  /** Whose time paces the trims (this process's, systemClock, by default). */
  clock?: Clock;
}

export class SafeTrimmer {
  private readonly lastRun = new Map<string, number>();
  private readonly running = new Set<string>();

  constructor(
    private readonly conn: Connection,
    private readonly options: SafeTrimOptions,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** Called after each add; trims in the background when the interval has passed. */
  afterAdd(stream: string): void {
    const now = (this.options.clock ?? systemClock).now();
    if (this.running.has(stream) || now - (this.lastRun.get(stream) ?? 0) < (this.options.intervalMs ?? 1000)) return;
    this.lastRun.set(stream, now);
    this.running.add(stream);
    // A failed trim is retried at the next interval; the stream is only longer meanwhile.
    void this.trim(stream)
      .catch((err: unknown) => this.logger.warn(`sluice: trimming ${stream} failed (retried at the next interval):`, err))
      .finally(() => this.running.delete(stream));
  }

  /** Trims now; resolves to the number of entries removed. */
  async trim(stream: string): Promise<number> {
    if (this.options.maxLen === 0 && this.options.minIdAgeMs === undefined) {
      // Everything the groups no longer need: no need to read the stream for a bound.
      const needed = await this.oldestNeeded(stream);
      return Number(await this.conn.call('XTRIM', stream, ...(needed === null ? ['MAXLEN', 0] : ['MINID', needed])));
    }
    const bound = await this.bound(stream);
    if (bound === null) return 0;
    const needed = await this.oldestNeeded(stream);
    const minId = needed === null || compareIds(bound, needed) <= 0 ? bound : needed;
    return Number(await this.conn.call('XTRIM', stream, 'MINID', minId));
  }

  /** The MINID the producer's bound asks for, or null when nothing is over it. */
  private async bound(stream: string): Promise<string | null> {
    if (this.options.minIdAgeMs !== undefined) return `${Math.max(0, (this.options.clock ?? systemClock).now() - this.options.minIdAgeMs)}-0`;
    const maxLen = this.options.maxLen ?? Infinity;
    const excess = Number(await this.conn.call('XLEN', stream)) - maxLen;
    if (!(excess > 0)) return null;
    if (maxLen >= 1 && maxLen < excess) {
      // Far over (a backlog consumed at last): read the maxLen kept, not the excess dropped.
      const kept = (await this.conn.call('XREVRANGE', stream, '+', '-', 'COUNT', maxLen)) as Value[][];
      const oldestKept = kept[kept.length - 1];
      return oldestKept === undefined ? null : String(oldestKept[0]);
    }
    const over = (await this.conn.call('XRANGE', stream, '-', '+', 'COUNT', excess)) as Value[][];
    const last = over[over.length - 1];
    return last === undefined ? null : nextId(String(last[0]));
  }

  /** The smallest id some group still needs, or null when there are no groups. */
  private async oldestNeeded(stream: string): Promise<string | null> {
    const groups = ((await this.conn.call('XINFO', 'GROUPS', stream)) as Value[]).map(pairsToObject);
    let oldest: string | null = null;
    for (const g of groups) {
      let needed = nextId(String(g['last-delivered-id']));
      if (Number(g['pending']) > 0) {
        const summary = (await this.conn.call('XPENDING', stream, String(g['name']))) as Value[];
        if (summary[1] !== null && summary[1] !== undefined) needed = String(summary[1]);
      }
      if (oldest === null || compareIds(needed, oldest) < 0) oldest = needed;
    }
    return oldest;
  }
}

/** The id right after `id` ("ms-seq"). */
function nextId(id: string): string {
  const [ms, seq] = id.split('-');
  return `${ms}-${BigInt(seq ?? '0') + 1n}`;
}
