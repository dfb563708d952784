// Live numbers: the overview is sampled every interval and a bounded history kept, from which
// the page draws throughput (entries added per second) and lag over time. Sampling starts with
// the first API request, so a mounted handler nobody opens costs nothing, and never overlaps
// itself on a slow server.
import type { Overview } from './overview.js';

export interface StreamPoint {
  length: number;
  entriesAdded: number | null;
  /** Entries added per second since the previous point; null without one. */
  rate: number | null;
  /** Per group: lag (null when unknown) and pending. */
  groups: Record<string, { lag: number | null; pending: number }>;
  deadLetters: number | null;
}

export interface Point {
  /** Unix ms of the sample. */
  t: number;
  streams: Record<string, StreamPoint>;
}

export interface SamplerOptions {
  intervalMs: number;
  /** Points kept (the charts' time window is keep × intervalMs). */
  keep: number;
}

export class Sampler {
  private readonly points: Point[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private first: Promise<void> = Promise.resolve();
  /** The last sampling failure, shown by /api/info; cleared by the next success. */
  lastError: string | null = null;

  constructor(
    private readonly read: () => Promise<Overview>,
    readonly options: SamplerOptions,
  ) {}

  /** Starts sampling (idempotent); resolves once the first sample is in. */
  start(): Promise<void> {
    if (this.timer === null) {
      this.timer = setInterval(() => void this.sample(), this.options.intervalMs);
      this.timer.unref();
      this.first = this.sample();
    }
    return this.first;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Takes one sample now, unless one is under way (then waits for that one). */
  sample(): Promise<void> {
    this.running ??= this.read()
      .then(
        (overview) => {
          this.record(Date.now(), overview);
          this.lastError = null;
        },
        (err: unknown) => {
          this.lastError = (err as Error).message;
        },
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private record(t: number, overview: Overview): void {
    const prev = this.points[this.points.length - 1];
    const streams: Record<string, StreamPoint> = {};
    for (const s of overview.streams) {
      const before = prev?.streams[s.name];
      let rate: number | null = null;
      if (prev !== undefined && before?.entriesAdded != null && s.entriesAdded !== null && t > prev.t) {
        const added = s.entriesAdded - before.entriesAdded;
        // A stream deleted and recreated counts from 0 again: no rate rather than a negative one.
        if (added >= 0) rate = (added * 1000) / (t - prev.t);
      }
      const groups: StreamPoint['groups'] = {};
      for (const g of s.groups) groups[g.name] = { lag: g.lag, pending: g.pending };
      streams[s.name] = { length: s.length, entriesAdded: s.entriesAdded, rate, groups, deadLetters: s.deadLetters };
    }
    this.points.push({ t, streams });
    if (this.points.length > this.options.keep) this.points.splice(0, this.points.length - this.options.keep);
  }

  /** The latest rate of a stream (null before two samples). */
  rateOf(name: string): number | null {
    return this.points[this.points.length - 1]?.streams[name]?.rate ?? null;
  }

  /** Points taken after `since` (unix ms, exclusive), oldest first. */
  history(since = 0): Point[] {
    return this.points.filter((p) => p.t > since);
  }
}
