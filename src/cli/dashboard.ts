// `sluice dashboard --url URL`: the web dashboard (src/dashboard) over any backend connect()
// takes: redis:// or rediss:// (Redis, Valkey, sluice server), redis+cluster:// (every master is
// scanned) or embedded:/path/to/dir (an embedded data directory no server has open).
import type { Command } from 'commander';
import { connect } from '../client/connect.js';
import { CLUSTER_URL_PREFIX } from '../client/cluster-connection.js';
import type { Connection } from '../client/connection.js';
import { redisClientOf } from '../client/ioredis-link.js';
import { RedisConnection } from '../client/redis-connection.js';
import { DashboardRefusal, startDashboard } from '../dashboard/server.js';
import { bindRefusal } from '../dashboard/guard.js';
import { SENTINEL_URL_PREFIX } from '../client/sentinel-url.js';
import { checkSentinelUrl, checkUrl, CliError, DEFAULT_URL, describeError } from './errors.js';

interface DashboardFlags {
  url: string;
  port: string;
  bind: string;
  token?: string;
  interval: string;
}

/** How long the backend has to answer a first PING before the command gives up. */
const CONNECT_TIMEOUT_MS = 5000;

function checkBackendUrl(url: string): string {
  if (url.startsWith(CLUSTER_URL_PREFIX) || url.startsWith('embedded:')) return url;
  if (url.startsWith(SENTINEL_URL_PREFIX)) return checkSentinelUrl(url);
  return checkUrl(url);
}

/** Connects and PINGs, so a wrong --url is one line at start rather than an empty page. */
async function connectBackend(url: string): Promise<Connection> {
  let conn: Connection;
  try {
    conn = await connect(checkBackendUrl(url));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot open ${url}: ${describeError(err)}`);
  }
  let timer: NodeJS.Timeout | undefined;
  let onSocketError: ((err: Error) => void) | undefined;
  try {
    await Promise.race([
      conn.call('PING'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
        // A single server's socket error (refused, unknown host) is the answer: no need to wait.
        if (conn instanceof RedisConnection) {
          onSocketError = reject;
          redisClientOf(conn).once('error', onSocketError);
        }
      }),
    ]);
  } catch (err) {
    await conn.close().catch(() => {});
    throw new CliError(`cannot reach ${url}: ${describeError(err)}`);
  } finally {
    clearTimeout(timer);
    if (onSocketError !== undefined && conn instanceof RedisConnection) redisClientOf(conn).off('error', onSocketError);
  }
  return conn;
}

export function register(program: Command): void {
  program
    .command('dashboard')
    .description('Web dashboard: streams, groups, consumers, entries, pending and dead letters, with live charts and actions')
    .option('--url <url>', 'backend: redis://, rediss://, redis+cluster://h:p,h:p, redis+sentinel://h:p,h:p/name or embedded:/dir', process.env['SLUICE_URL'] ?? DEFAULT_URL)
    .option('--port <port>', 'HTTP port, 0 picks a free one', '7420')
    .option('--bind <host>', 'address to listen on (other than loopback only with --token)', '127.0.0.1')
    .option('--token <token>', 'require Authorization: Bearer <token> on the API (default $SLUICE_DASHBOARD_TOKEN)', process.env['SLUICE_DASHBOARD_TOKEN'])
    .option('--interval <ms>', 'sampling interval of the live charts', '2000')
    .option('--debug', 'print stack traces of errors')
    .action(async (flags: DashboardFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`invalid --port '${flags.port}'`);
      const interval = Number(flags.interval);
      if (!Number.isInteger(interval) || interval < 100) throw new CliError(`invalid --interval '${flags.interval}' (at least 100)`);
      // Before connecting: a refusal should not wait on the backend.
      const refusal = bindRefusal(flags.bind, flags.token);
      if (refusal !== null) throw new CliError(refusal);
      const conn = await connectBackend(flags.url);
      let dashboard;
      try {
        dashboard = await startDashboard(conn, { port, host: flags.bind, token: flags.token, sampleIntervalMs: interval });
      } catch (err) {
        await conn.close().catch(() => {});
        throw err instanceof DashboardRefusal ? new CliError(err.message) : new CliError(`cannot listen on ${flags.bind}:${port}: ${describeError(err)}`);
      }
      process.stdout.write(`dashboard on ${dashboard.url.replace(/\/$/, '')}\n`);
      const stop = (): void => {
        void dashboard.close().then(() => conn.close()).finally(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
