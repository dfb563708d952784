// Listening and closing for the small HTTP servers (metrics endpoint, dashboard): resolves once
// bound (port 0 picks a free one), rejects on EADDRINUSE and the like, and closes with its
// keep-alive connections so close() never waits on an idle browser.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpListener {
  readonly host: string;
  readonly port: number;
  /** http://HOST:PORT, with an IPv6 host in brackets. */
  readonly origin: string;
  close(): Promise<void>;
}

export async function listenHttp(server: Server, port: number, host: string): Promise<HttpListener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    host,
    port: bound,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
