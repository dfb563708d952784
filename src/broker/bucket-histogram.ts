// A Prometheus histogram whose observation is a few array writes. prom-client's Histogram builds
// a labels object, validates it and hashes it into a string on every observe (a labelled child
// too): about a microsecond, paid per job by every worker (issue 34 measured the handler
// histogram at up to 18% of a short job's cost). Here a series is resolved once, to a slot of
// counters, and the exposition is built only when scraped, in the shape prom-client's own
// Histogram gives (`get()`), so the registry prints the same lines, in the same order.
import type { Aggregator } from 'prom-client';

/** One series (a histogram's, or one label set's) to observe values into. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** A series' counts: per bucket (not cumulative), then the sum and the count. */
class Series implements HistogramSeries {
  /** Observations per bucket; the last slot counts those above every bound (only in +Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** Exported: once observed (or from the start, for a histogram without labels), as prom-client does. */
  shown = false;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
    /** Called on the first observation since made or reset: the series goes last in the listing. */
    private readonly onShown: (s: Series) => void,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
    if (!this.shown) {
      this.shown = true;
      this.onShown(this);
    }
  }

  zero(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
    this.shown = false;
  }
}

/** A value as prom-client's `get()` gives it (labels in the order it prints them: `le` first). */
interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export class BucketHistogram {
  readonly type = 'histogram';
  readonly aggregator: Aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending. */
    private readonly bounds: readonly number[],
    private readonly labelNames: readonly string[] = [],
  ) {
    for (let i = 1; i < bounds.length; i++) if (!(bounds[i]! > bounds[i - 1]!)) throw new RangeError('histogram bounds must ascend');
    if (labelNames.length === 0) this.seriesOf([]).shown = true;
  }

  /** The series of these label values (in labelNames' order), made on first use. */
  labels(...values: string[]): HistogramSeries {
    return this.seriesOf(values);
  }

  private seriesOf(values: string[]): Series {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name}: expected ${this.labelNames.length} label values, got ${values.length}`);
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      // Listed in order of first observation, as prom-client lists its series.
      s = new Series(this.bounds, labels, (shown) => {
        this.series.delete(key);
        this.series.set(key, shown);
      });
      this.series.set(key, s);
    }
    return s;
  }

  /** What prom-client's registry reads (`metrics()`, `getMetricsAsJSON()`). */
  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: Aggregator; values: ExportedValue[] }> {
    const values: ExportedValue[] = [];
    for (const s of this.series.values()) {
      if (!s.shown) continue;
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /**
   * registry.resetMetrics(): every series back to nothing and unlisted until observed again, as
   * prom-client's reset does (the series stay, so recorders made before keep counting).
   */
  reset(): void {
    for (const s of this.series.values()) s.zero();
  }
}
