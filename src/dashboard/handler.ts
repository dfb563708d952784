// The dashboard as one node:http request handler, to serve on its own (server.ts) or to mount in
// an application's HTTP server: `http.createServer(dashboardHandler(conn, { token }))`, or under
// a prefix with `basePath: '/queues'`. Routes: the page and its assets, GET /api/... views,
// POST /api/... actions (see docs/dashboard.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Connection } from '../client/connection.js';
import { registerActions } from './action-routes.js';
import { registerViews } from './api.js';
import { serveAsset } from './assets.js';
import { registerJobViews } from './job-routes.js';
import { requireJson, requireLoopbackHost, requireSameOrigin, requireToken } from './guard.js';
import { HttpError, redisErrorStatus, sendError } from './http.js';
import { readOverview } from './overview.js';
import { Router } from './router.js';
import { Sampler } from './sampler.js';

export interface DashboardOptions {
  /** When set, every /api request must send `Authorization: Bearer <token>`. */
  token?: string;
  /** Path the handler is mounted under, e.g. '/queues' (default: the root). */
  basePath?: string;
  /** Streams listed at most (SCAN stops there). Default 500. */
  maxStreams?: number;
  /** Interval of the live charts' samples. Default 2000 ms. */
  sampleIntervalMs?: number;
  /** Samples kept for the charts. Default 180 (6 minutes at 2 s). */
  historyPoints?: number;
  /**
   * Answer only requests addressed to a loopback name (Host header), against DNS rebinding.
   * startDashboard sets it when there is no token (it then listens on loopback only).
   */
  loopbackHostOnly?: boolean;
  /** An API request still waiting for the backend after this long is answered 504. Default 10 s. */
  requestTimeoutMs?: number;
}

export interface DashboardHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Stops the sampling timer (the connection stays the caller's). */
  close(): void;
}

function normalizeBase(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  return `/${basePath.replace(/^\/+|\/+$/g, '')}`;
}

export function dashboardHandler(conn: Connection, options: DashboardOptions = {}): DashboardHandler {
  const token = options.token === '' ? undefined : options.token;
  const base = normalizeBase(options.basePath);
  const maxStreams = options.maxStreams ?? 500;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const sampler = new Sampler(() => readOverview(conn, maxStreams), {
    intervalMs: options.sampleIntervalMs ?? 2000,
    keep: options.historyPoints ?? 180,
  });
  const router = new Router();
  registerViews(router, { conn, sampler, maxStreams, tokenRequired: token !== undefined });
  registerJobViews(router, conn, maxStreams);
  registerActions(router, conn, sampler);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const method = req.method ?? 'GET';
    if (base !== '' && url.pathname === base) {
      res.writeHead(308, { location: `${base}/${url.search}` }).end();
      return;
    }
    if (base !== '' && !url.pathname.startsWith(`${base}/`)) throw new HttpError(404, 'not found');
    const path = url.pathname.slice(base.length);
    if (options.loopbackHostOnly) requireLoopbackHost(req);

    if (path === '/favicon.ico') {
      res.writeHead(204).end(); // no icon; answered so browsers do not log a 404
      return;
    }
    if (!path.startsWith('/api/')) {
      const name = path === '/' ? 'index.html' : path.startsWith('/assets/') ? path.slice('/assets/'.length) : '';
      if ((method === 'GET' || method === 'HEAD') && (await serveAsset(res, name, method === 'HEAD'))) return;
      throw new HttpError(404, 'not found');
    }
    requireSameOrigin(req);
    requireToken(req, token);
    const route = router.match(method, path);
    if (route === null) throw new HttpError(404, `no route ${method} ${path}`);
    if (method === 'POST') requireJson(req);
    // A backend that is down queues commands until it is back: answer 504 rather than hang.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HttpError(504, `the backend did not answer within ${requestTimeoutMs} ms`)), requestTimeoutMs);
    });
    try {
      await Promise.race([sampler.start().then(() => route.handler({ req, res, params: route.params, query: url.searchParams })), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const handler = ((req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const message = (err as Error)?.message ?? String(err);
      sendError(res, err instanceof HttpError ? err.status : redisErrorStatus(message), message);
    });
  }) as DashboardHandler;
  handler.close = () => sampler.stop();
  return handler;
}
