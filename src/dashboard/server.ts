// `sluice dashboard` serves the handler on its own HTTP server. Refuses a non-loopback address
// without a token before listening (see guard.ts).
import { createServer } from 'node:http';
import type { Connection } from '../client/connection.js';
import { listenHttp } from '../server/http-listen.js';
import { bindRefusal } from './guard.js';
import { dashboardHandler, type DashboardOptions } from './handler.js';

export interface DashboardServer {
  readonly host: string;
  readonly port: number;
  /** http://HOST:PORT/ */
  readonly url: string;
  close(): Promise<void>;
}

export class DashboardRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DashboardRefusal';
  }
}

/** Serves the dashboard on http://host:port (port 0 picks a free one). */
export async function startDashboard(conn: Connection, options: DashboardOptions & { port: number; host?: string }): Promise<DashboardServer> {
  const host = options.host ?? '127.0.0.1';
  const refusal = bindRefusal(host, options.token);
  if (refusal !== null) throw new DashboardRefusal(refusal);
  const tokenless = options.token === undefined || options.token === '';
  const handler = dashboardHandler(conn, { ...options, loopbackHostOnly: options.loopbackHostOnly ?? tokenless });
  const listener = await listenHttp(createServer(handler), options.port, host);
  return {
    host,
    port: listener.port,
    url: `${listener.origin}/`,
    close: async () => {
      handler.close();
      await listener.close();
    },
  };
}
