// Broker metrics: counters and a handler latency histogram per worker (or shared by several),
// exposed as a plain object and as Prometheus text; plus, read once per scrape, each watched
// group's lag, pending count and consumer count (XINFO GROUPS) and its oldest pending entry's
// age (XPENDING summary, only for groups with something pending).
import * as hdr from 'hdr-histogram-js';
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import { BucketHistogram, type HistogramSeries } from './bucket-histogram.js';
import { delayedKey } from './delayed.js';
import type { Connection } from '../client/connection.js';
import { pairsToObject } from './replies.js';

export type CounterName = 'processed' | 'failed' | 'retried' | 'deadLettered' | 'claimed' | 'redelivered' | 'trimmed' | 'timedOut' | 'leaseLost';

export interface MetricsSnapshot {
  processed: number;
  failed: number;
  retried: number;
  deadLettered: number;
  /** Entries taken over from other consumers (not this worker's own retries). */
  claimed: number;
  /** Pending entries found deleted from the stream (trimmed) before they were handled. */
  trimmed: number;
  /** Handler runs aborted at timeoutMs (also counted in failed). */
  timedOut: number;
  /** Running jobs another consumer claimed (their results were dropped). */
  leaseLost: number;
  /** Handler runs of a delivery after the first (retries, claims, re-reads after a reconnect). */
  redelivered: number;
  /** Handler latency in milliseconds. */
  latency: { count: number; p50: number; p90: number; p99: number; max: number; mean: number };
}

export interface GroupLag {
  stream: string;
  group: string;
  consumers: number;
  pending: number;
  lastDeliveredId: string;
  entriesRead: number | null;
  /** Entries not yet delivered to the group; null when Redis cannot tell (after deletions). */
  lag: number | null;
}

/** XINFO GROUPS stream → one record per group. */
export async function groupLag(conn: Connection, stream: string): Promise<GroupLag[]> {
  let raw;
  try {
    raw = (await conn.call('XINFO', 'GROUPS', stream)) as unknown[];
  } catch (err) {
    if (/no such key/i.test((err as Error).message)) return [];
    throw err;
  }
  return raw.map((g) => {
    const o = pairsToObject(g as never);
    const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
    return {
      stream,
      group: String(o['name']),
      consumers: Number(o['consumers']),
      pending: Number(o['pending']),
      lastDeliveredId: String(o['last-delivered-id']),
      entriesRead: num(o['entries-read']),
      lag: num(o['lag']),
    };
  });
}

interface ScrapedGroup extends GroupLag {
  oldestPendingAgeSeconds: number;
}

/**
 * The groups of a stream with the age of their oldest pending entry: now minus the time in its
 * id (XPENDING's smallest id; ids carry the server's clock, so the age is as good as the two
 * clocks agree). A group with nothing pending is 0.
 */
async function scrapeGroups(conn: Connection, stream: string): Promise<ScrapedGroup[]> {
  const groups = await groupLag(conn, stream);
  const now = Date.now();
  return Promise.all(
    groups.map(async (g) => {
      if (g.pending === 0) return { ...g, oldestPendingAgeSeconds: 0 };
      const [, smallest] = (await conn.call('XPENDING', stream, g.group)) as [unknown, string | null];
      const ms = smallest === null ? now : Number(String(smallest).split('-')[0]);
      return { ...g, oldestPendingAgeSeconds: Math.max(0, now - ms) / 1000 };
    }),
  );
}

const PROM_NAMES: Record<CounterName, string> = {
  processed: 'sluice_messages_processed_total',
  failed: 'sluice_messages_failed_total',
  retried: 'sluice_messages_retried_total',
  deadLettered: 'sluice_messages_dead_lettered_total',
  claimed: 'sluice_messages_claimed_total',
  trimmed: 'sluice_messages_trimmed_total',
  timedOut: 'sluice_handler_timeouts_total',
  leaseLost: 'sluice_leases_lost_total',
  redelivered: 'sluice_messages_redelivered_total',
};

export class Metrics {
  readonly registry = new Registry();
  private readonly counts: Record<CounterName, number> = { processed: 0, failed: 0, retried: 0, deadLettered: 0, claimed: 0, redelivered: 0, trimmed: 0, timedOut: 0, leaseLost: 0 };
  private readonly histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
  private readonly promLatency: HistogramSeries;
  private readonly promGroupLatency: BucketHistogram;
  /** Streams whose groups' lag is reported in the Prometheus text. */
  private readonly lagSources: Array<{ conn: Connection; stream: string }> = [];

  constructor() {
    const help: Record<CounterName, string> = {
      processed: 'Messages whose handler succeeded and that were acknowledged',
      failed: 'Handler failures (each failed delivery counts once)',
      retried: 'Deliveries retried after a failure',
      deadLettered: 'Messages moved to the dead-letter stream',
      claimed: 'Messages claimed from other (stale) consumers',
      trimmed: 'Pending messages deleted from the stream before they were handled',
      timedOut: 'Handler runs aborted at timeoutMs',
      leaseLost: 'Running messages claimed by another consumer',
      redelivered: 'Handler runs of a message delivered before (any cause: retry, claim, reconnect)',
    };
    // The counters read `counts` when scraped: a job's count is one addition, not a prom-client
    // inc (a labels check and a hash) on every job.
    const counts = this.counts;
    for (const k of Object.keys(PROM_NAMES) as CounterName[]) {
      new Counter({
        name: PROM_NAMES[k],
        help: help[k],
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(counts[k]);
        },
      });
    }
    const buckets = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];
    const total = new BucketHistogram('sluice_handler_duration_seconds', 'Handler run time', buckets);
    this.promLatency = total.labels();
    // The same runs per stream and group (a separate name: the total above keeps its series).
    this.promGroupLatency = new BucketHistogram('sluice_group_handler_duration_seconds', 'Handler run time, per stream and consumer group', buckets, ['stream', 'group']);
    // The registry reads a metric through get() (its documented shape), which these provide.
    for (const h of [total, this.promGroupLatency]) this.registry.registerMetric(h as unknown as Metric);
    // One XINFO GROUPS per stream (and one XPENDING per group with pending entries) and
    // scrape, shared by every gauge below.
    let scrape: Promise<ScrapedGroup[]> | null = null;
    const groups = (): Promise<ScrapedGroup[]> => {
      scrape ??= Promise.all(sources().map(({ conn, stream }) => scrapeGroups(conn, stream))).then((all) => all.flat());
      const current = scrape;
      void current.finally(() => setImmediate(() => scrape === current && (scrape = null)));
      return current;
    };
    const groupGauge = (name: string, help: string, read: (g: ScrapedGroup) => number | null): void => {
      new Gauge({
        name,
        help,
        labelNames: ['stream', 'group'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const g of await groups()) {
            const v = read(g);
            if (v !== null) this.set({ stream: g.stream, group: g.group }, v);
          }
        },
      });
    };
    const sources = (): Array<{ conn: Connection; stream: string }> =>
      this.lagSources.filter((a, i) => this.lagSources.findIndex((b) => b.conn === a.conn && b.stream === a.stream) === i);
    new Gauge({
      name: 'sluice_delayed_jobs',
      help: 'Delayed jobs waiting in the stream\'s :delayed sorted set (ZCARD)',
      labelNames: ['stream'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const watched = sources();
        // A closed connection or a key of another type: no sample rather than a failed scrape.
        const counts = await Promise.all(watched.map(({ conn, stream }) => conn.call('ZCARD', delayedKey(stream)).then(Number, () => null)));
        watched.forEach(({ stream }, i) => counts[i] !== null && this.set({ stream }, counts[i]!));
      },
    });
    groupGauge('sluice_group_lag', 'Entries not yet delivered to the consumer group (XINFO GROUPS lag)', (g) => g.lag);
    groupGauge('sluice_group_pending', 'Entries delivered to the consumer group and not yet acknowledged', (g) => g.pending);
    groupGauge('sluice_group_consumers', 'Consumers registered in the consumer group (XINFO GROUPS consumers)', (g) => g.consumers);
    groupGauge(
      'sluice_group_oldest_pending_age_seconds',
      'Age of the oldest entry delivered to the group and not yet acknowledged (0 when none is pending)',
      (g) => g.oldestPendingAgeSeconds,
    );
  }

  inc(name: CounterName, n = 1): void {
    this.counts[name] += n;
  }

  /** Records one handler run time, in milliseconds (labelled by stream and group when given). */
  observe(ms: number, labels?: { stream: string; group: string }): void {
    if (labels === undefined) this.observeTotal(ms);
    else this.runTimeRecorder(labels.stream, labels.group)(ms);
  }

  /**
   * A recorder of handler run times for one stream and group, made once per consumer: the
   * labelled series is resolved here, not on each call.
   */
  runTimeRecorder(stream: string, group: string): (ms: number) => void {
    const child = this.promGroupLatency.labels(stream, group);
    return (ms) => {
      this.observeTotal(ms);
      child.observe(ms / 1000);
    };
  }

  private observeTotal(ms: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(ms * 1000))); // microseconds
    this.promLatency.observe(ms / 1000);
  }

  /** Reports lag and pending of this stream's groups in `prometheus()`; returns the undo. */
  watchLag(conn: Connection, stream: string): () => void {
    const source = { conn, stream };
    this.lagSources.push(source);
    return () => {
      const i = this.lagSources.indexOf(source);
      if (i !== -1) this.lagSources.splice(i, 1);
    };
  }

  snapshot(): MetricsSnapshot {
    const h = this.histogram;
    const ms = (us: number): number => us / 1000;
    return {
      ...this.counts,
      latency: {
        count: h.totalCount,
        p50: ms(h.getValueAtPercentile(50)),
        p90: ms(h.getValueAtPercentile(90)),
        p99: ms(h.getValueAtPercentile(99)),
        max: ms(h.maxValue),
        mean: h.totalCount === 0 ? 0 : ms(h.mean),
      },
    };
  }

  /** Prometheus text exposition format. */
  prometheus(): Promise<string> {
    return this.registry.metrics();
  }
}
