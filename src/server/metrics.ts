// Prometheus metrics over HTTP: the server's own numbers (connections, commands per command,
// stream lengths, group lag and pending), and a generic handler that serves any prom-client
// registry, which is how a worker exposes its broker Metrics (`metricsHandler(worker metrics)`).
// Values are read from the Instance at scrape time, so serving nothing costs nothing.
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';
import type { Instance } from '../commands/core/instance.js';
import { instanceBehind } from '../commands/core/instance-handles.js';
import { computeGroupLag } from '../engine/consumer-group.js';
import { Stream } from '../engine/stream.js';
import { listenHttp } from './http-listen.js';
import type { Server } from './serve.js';

/** Label of a latin1 key string: the bytes read as UTF-8, as a client would print them. */
const label = (key: string): string => Buffer.from(key, 'latin1').toString('utf8');

/** Streams reported per scrape at most: the label sets of a huge keyspace would swamp Prometheus. */
export const MAX_STREAMS_PER_SCRAPE = 1000;

interface StreamRef {
  db: string;
  key: string;
  stream: Stream;
}

function streamsOf(instance: Instance): StreamRef[] {
  const out: StreamRef[] = [];
  for (const db of instance.keyspace.dbs) {
    for (const [key, value] of db.values) {
      if (!(value instanceof Stream)) continue;
      out.push({ db: String(db.index), key: label(key), stream: value });
      if (out.length >= MAX_STREAMS_PER_SCRAPE) return out;
    }
  }
  return out;
}

/**
 * A registry of a served Server's own numbers (connections, commands, keys, stream lengths,
 * group lag and pending), read from it when scraped.
 */
export function serverMetricsRegistry(server: Server): Registry {
  const instance = instanceBehind(server);
  const registry = new Registry();
  const registers = [registry];
  const stats = instance.stats;
  // Totals that the Instance already counts are mirrored into counters at scrape time.
  const mirror = (name: string, help: string, read: () => number): void => {
    new Counter({ name, help, registers, collect() { this.reset(); this.inc(read()); } });
  };
  mirror('sluice_connections_received_total', 'Connections accepted', () => stats.connectionsReceived);
  mirror('sluice_rejected_connections_total', 'Connections refused (maxclients, shutting down)', () => stats.rejectedConnections);
  mirror('sluice_commands_processed_total', 'Commands executed', () => stats.commandsProcessed);
  mirror('sluice_error_replies_total', 'Error replies sent', () => stats.totalErrorReplies);
  mirror('sluice_net_input_bytes_total', 'Bytes read from clients', () => stats.netInputBytes);
  mirror('sluice_net_output_bytes_total', 'Bytes written to clients', () => stats.netOutputBytes);

  new Gauge({
    name: 'sluice_connected_clients',
    help: 'Client connections open now',
    registers,
    collect() {
      let n = 0;
      for (const c of instance.clients.values()) if (c.kind === 'tcp') n++;
      this.set(n);
    },
  });

  const perCommand = (name: string, help: string, read: (s: { calls: number; usec: number; failedCalls: number; rejectedCalls: number }) => number): void => {
    new Counter({
      name,
      help,
      labelNames: ['command'],
      registers,
      collect() {
        this.reset();
        for (const [command, s] of stats.perCommand) this.inc({ command }, read(s));
      },
    });
  };
  perCommand('sluice_command_calls_total', 'Calls per command (rate() gives commands/s)', (s) => s.calls);
  perCommand('sluice_command_failed_calls_total', 'Calls per command that replied with an error', (s) => s.failedCalls);
  perCommand('sluice_command_rejected_calls_total', 'Calls per command rejected before running (arity, auth, ...)', (s) => s.rejectedCalls);
  perCommand('sluice_command_duration_seconds_total', 'Time spent executing each command', (s) => s.usec / 1e6);

  new Gauge({
    name: 'sluice_keys',
    help: 'Keys per database',
    labelNames: ['db'],
    registers,
    collect() {
      this.reset();
      for (const db of instance.keyspace.dbs) if (db.size > 0) this.set({ db: String(db.index) }, db.size);
    },
  });

  // One keyspace walk per scrape feeds all stream gauges: prom-client runs the collectors of
  // one scrape synchronously one after the other, so the walk is kept until the next microtask.
  let cached: StreamRef[] | null = null;
  const streamsNow = (): StreamRef[] => {
    if (cached === null) {
      cached = streamsOf(instance);
      queueMicrotask(() => { cached = null; });
    }
    return cached;
  };
  new Gauge({
    name: 'sluice_stream_length',
    help: 'Entries in the stream (XLEN)',
    labelNames: ['db', 'stream'],
    registers,
    collect() {
      this.reset();
      for (const s of streamsNow()) this.set({ db: s.db, stream: s.key }, s.stream.length);
    },
  });
  const perGroup = (name: string, help: string, read: (s: Stream, g: Stream['groups'] extends Map<string, infer G> ? G : never) => number | null): void => {
    new Gauge({
      name,
      help,
      labelNames: ['db', 'stream', 'group'],
      registers,
      collect() {
        this.reset();
        for (const s of streamsNow()) {
          for (const g of s.stream.groups.values()) {
            const v = read(s.stream, g);
            if (v !== null) this.set({ db: s.db, stream: s.key, group: label(g.key) }, v);
          }
        }
      },
    });
  };
  perGroup('sluice_group_lag', 'Entries not yet delivered to the group (XINFO GROUPS lag; absent when unknown)', (s, g) => {
    const lag = computeGroupLag(s, g);
    return lag === null ? null : Number(lag);
  });
  perGroup('sluice_group_pending', 'Entries delivered to the group and not yet acknowledged', (_s, g) => g.pel.size);
  perGroup('sluice_group_consumers', 'Consumers in the group', (_s, g) => g.consumers.size);
  return registry;
}

/** Anything holding a prom-client registry: a Registry, or the broker's Metrics. */
export type MetricsSource = Registry | { registry: Registry };

const registryOf = (source: MetricsSource): Registry => (source instanceof Registry ? source : source.registry);

/** A node:http handler: GET /metrics answers the text exposition format, anything else 404. */
export function metricsHandler(source: MetricsSource): (req: IncomingMessage, res: ServerResponse) => void {
  const registry = registryOf(source);
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || (path !== '/metrics' && path !== '/')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`),
    );
  };
}

export interface MetricsServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `source` on http://host:port/metrics (port 0 picks a free one). */
export async function startMetricsServer(source: MetricsSource, options: { port: number; host?: string }): Promise<MetricsServer> {
  const listener = await listenHttp(createServer(metricsHandler(source)), options.port, options.host ?? '127.0.0.1');
  return { host: listener.host, port: listener.port, url: `${listener.origin}/metrics`, close: listener.close };
}
