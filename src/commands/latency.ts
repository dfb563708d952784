// The latency monitor (Redis's latency.c): events ("command", "fast-command", "expire-cycle")
// sampled while latency-monitor-threshold is set, 160 samples per event with one per second,
// and each command's latency histogram (LATENCY HISTOGRAM, Redis's per-command hdr histogram
// read out in powers of two from 1024 ns). LATENCY LATEST / HISTORY / RESET / DOCTOR / GRAPH.
import { fail, MapReply, type Reply, VerbatimReply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import type { Config } from './config.js';
import type { CommandStats } from './core/stats.js';
import { helpReply } from './help.js';
import { command, type CommandSpec, type Context, container, type LatencyView } from './types.js';

/** LATENCY_TS_LEN: samples kept per event. */
const SAMPLES = 160;
/** Buckets of a command's histogram: 1024 ns << i, the last one taking everything above. */
const BUCKETS = 32;

interface Sample {
  time: number;
  latency: number;
}

interface TimeSeries {
  samples: Sample[];
  max: number;
}

export class LatencyMonitor implements LatencyView {
  private readonly events = new Map<string, TimeSeries>();
  /** latency-monitor-threshold in ms; 0: nothing is sampled. */
  readonly threshold: () => number;

  constructor(config: Config) {
    this.threshold = config.derived((c) => c.getNumber('latency-monitor-threshold'));
  }

  /** latencyAddSampleIfNeeded: `ms` is recorded when the monitor is on and it reaches the threshold. */
  addIfNeeded(event: string, ms: number): void {
    const threshold = this.threshold();
    if (threshold > 0 && ms >= threshold) this.add(event, Math.floor(ms));
  }

  /** latencyAddSample: one sample per second, the highest of that second. */
  add(event: string, ms: number): void {
    let ts = this.events.get(event);
    if (ts === undefined) {
      ts = { samples: [], max: 0 };
      this.events.set(event, ts);
    }
    if (ms > ts.max) ts.max = ms;
    const now = Math.floor(Date.now() / 1000);
    const last = ts.samples[ts.samples.length - 1];
    if (last !== undefined && last.time === now) {
      if (ms > last.latency) last.latency = ms;
      return;
    }
    ts.samples.push({ time: now, latency: ms });
    if (ts.samples.length > SAMPLES) ts.samples.shift();
  }

  /** latencyResetEvent: the events reset (all of them without a name). */
  reset(event: string | null): number {
    if (event === null) {
      const n = this.events.size;
      this.events.clear();
      return n;
    }
    return this.events.delete(event) ? 1 : 0;
  }

  latest(): Reply {
    return [...this.events].map(([name, ts]) => {
      const last = ts.samples[ts.samples.length - 1]!;
      return [Buffer.from(name), last.time, last.latency, ts.max];
    });
  }

  history(event: string): Reply {
    return (this.events.get(event)?.samples ?? []).map((s) => [s.time, s.latency]);
  }

  graph(event: string): Reply {
    const ts = this.events.get(event);
    if (ts === undefined) fail(Errors.latencyNoSamples(event));
    return new VerbatimReply('txt', sparkline(event, ts));
  }

  doctor(): Reply {
    return new VerbatimReply('txt', this.report());
  }

  private report(): string {
    if (this.threshold() === 0) {
      return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
    }
    if (this.events.size === 0) {
      return 'Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n';
    }
    let report = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n";
    let n = 0;
    const now = Math.floor(Date.now() / 1000);
    for (const [event, ts] of this.events) {
      const samples = ts.samples.length;
      const avg = Math.floor(ts.samples.reduce((a, s) => a + s.latency, 0) / samples);
      const mad = Math.floor(ts.samples.reduce((a, s) => a + Math.abs(avg - s.latency), 0) / samples);
      const period = Math.max(1, now - Math.min(...ts.samples.map((s) => s.time)));
      report +=
        `${++n}. ${event}: ${samples} latency spikes (average ${avg}ms, mean deviation ${mad}ms, period ${(period / samples).toFixed(2)} sec). ` +
        `Worst all time event ${ts.max}ms.\n`;
    }
    return `${report}\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n`;
  }
}

/** latencyCommandGenSparkeline's header and a bar per sample (the columns Redis draws, simplified). */
function sparkline(event: string, ts: TimeSeries): string {
  const values = ts.samples.map((s) => s.latency);
  const high = Math.max(...values);
  const low = Math.min(...values);
  let graph = `${event} - high ${high} ms, low ${low} ms (all time high ${ts.max} ms)\n${'-'.repeat(80)}\n`;
  const rows = 4;
  for (let r = rows; r >= 1; r--) {
    graph += values.map((v) => (high === 0 ? ' ' : Math.ceil((v / high) * rows) >= r ? '#' : ' ')).join('') + '\n';
  }
  const now = Math.floor(Date.now() / 1000);
  graph += ts.samples.map((s) => label(now - s.time)).join(' ') + '\n';
  return graph;
}

function label(elapsed: number): string {
  if (elapsed < 60) return `${elapsed}s`;
  if (elapsed < 3600) return `${Math.floor(elapsed / 60)}m`;
  if (elapsed < 86400) return `${Math.floor(elapsed / 3600)}h`;
  return `${Math.floor(elapsed / 86400)}d`;
}

/** Records one call of `usec` µs in the command's histogram (allocated at its first call). */
export function recordCallLatency(stats: CommandStats, usec: number): void {
  const ns = Math.min(Math.max(1, Math.round(usec * 1000)), 0x7fffffff);
  const above = (ns - 1) >>> 10;
  const bucket = above === 0 ? 0 : Math.min(BUCKETS - 1, 32 - Math.clz32(above));
  (stats.histogram ??= new Array<number>(BUCKETS).fill(0))[bucket]!++;
}

/** fillCommandCDF: calls, and the cumulative count at each bucket where it grew. */
function histogramReply(stats: CommandStats): Reply {
  const h = stats.histogram!;
  const cdf: Array<[Reply, Reply]> = [];
  let cumulative = 0;
  for (let i = 0; i < BUCKETS; i++) {
    if (h[i] === 0) continue;
    cumulative += h[i]!;
    cdf.push([Math.floor((1024 * 2 ** i) / 1000), cumulative]);
  }
  return new MapReply([
    [Buffer.from('calls'), cumulative],
    [Buffer.from('histogram_usec'), new MapReply(cdf)],
  ]);
}

function histogram(ctx: Context, argv: Buffer[]): Reply {
  const perCommand = ctx.instance.stats.perCommand;
  const withData = (name: string): boolean => (perCommand.get(name)?.histogram ?? null) !== null;
  const entry = (name: string): [Reply, Reply] => [Buffer.from(name), histogramReply(perCommand.get(name)!)];
  if (argv.length === 2) return new MapReply([...perCommand.keys()].filter(withData).map(entry));
  const out: Array<[Reply, Reply]> = [];
  for (let j = 2; j < argv.length; j++) {
    const name = argv[j]!.toString('latin1').toLowerCase();
    const [parent, sub] = name.split('|');
    const spec = ctx.instance.table.get(parent!);
    if (spec === undefined) continue;
    if (sub !== undefined) {
      if (spec.subcommands?.some((s) => s.name === sub) === true && withData(name)) out.push(entry(name));
      continue;
    }
    if (withData(name)) out.push(entry(name));
    for (const s of spec.subcommands ?? []) if (withData(`${name}|${s.name}`)) out.push(entry(`${name}|${s.name}`));
  }
  return new MapReply(out);
}

const LATENCY_HELP = [
  'DOCTOR',
  '    Return a human readable latency analysis report.',
  'GRAPH <event>',
  '    Return an ASCII latency graph for the <event> class.',
  'HISTORY <event>',
  '    Return time-latency samples for the <event> class.',
  'LATEST',
  '    Return the latest latency samples for all events.',
  'RESET [<event> ...]',
  '    Reset latency data of one or more <event> classes.',
  '    (default: reset all data for all event classes)',
  'HISTOGRAM [COMMAND ...]',
  '    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.',
  '    If no commands are specified then all histograms are replied.',
];

const FLAGS = ['admin', 'noscript', 'loading', 'stale'] as const;
const CATEGORIES = { categories: ['admin', 'slow', 'dangerous'] };

export const commands: CommandSpec[] = [
  container(
    'latency',
    -2,
    [
      command('doctor', 2, [...FLAGS], null, (ctx) => ctx.instance.latency.doctor(), { ...CATEGORIES, since: '2.8.13' }),
      command('graph', 3, [...FLAGS], null, (ctx, argv) => ctx.instance.latency.graph(argv[2]!.toString('latin1')), { ...CATEGORIES, since: '2.8.13' }),
      command('histogram', -2, [...FLAGS], null, histogram, { ...CATEGORIES, since: '7.0.0' }),
      command('history', 3, [...FLAGS], null, (ctx, argv) => ctx.instance.latency.history(argv[2]!.toString('latin1')), { ...CATEGORIES, since: '2.8.13' }),
      command('latest', 2, [...FLAGS], null, (ctx) => ctx.instance.latency.latest(), { ...CATEGORIES, since: '2.8.13' }),
      command('reset', -2, [...FLAGS], null, (ctx, argv) => {
        if (argv.length === 2) return ctx.instance.latency.reset(null);
        let n = 0;
        for (let j = 2; j < argv.length; j++) n += ctx.instance.latency.reset(argv[j]!.toString('latin1'));
        return n;
      }, { ...CATEGORIES, since: '2.8.13' }),
      command('help', 2, ['loading', 'stale'], null, () => helpReply('LATENCY', LATENCY_HELP), { categories: ['slow'], since: '2.8.13' }),
    ],
    { summary: 'A container for latency diagnostics commands', since: '2.8.13', group: 'server' },
  ),
];
