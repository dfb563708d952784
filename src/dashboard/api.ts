// GET routes: the views as JSON. Every one only reads.
import { EmbeddedConnection } from '../client/embedded-connection.js';
import type { Connection } from '../client/connection.js';
import { probeStreamFeatures, type StreamFeatures } from '../broker/stream-features.js';
import { checkId, countParam, sendJson } from './http.js';
import { readOverview, readStream } from './overview.js';
import type { Router } from './router.js';
import type { Sampler } from './sampler.js';
import { readDeadLetters, readEntries, readPending } from './views.js';

export interface ApiContext {
  conn: Connection;
  sampler: Sampler;
  maxStreams: number;
  tokenRequired: boolean;
}

/** Largest page any view serves. */
export const MAX_PAGE = 500;

const optionalId = (query: URLSearchParams, name: string): string | undefined => {
  const v = query.get(name);
  return v === null || v === '' ? undefined : checkId(v, name);
};

/** 'embedded' for the in-process engine, 'redis' for a server (Redis, Valkey, sluice server). */
function backendKind(conn: Connection): 'embedded' | 'redis' {
  return conn instanceof EmbeddedConnection ? 'embedded' : 'redis';
}

async function serverVersion(conn: Connection): Promise<string | null> {
  if (backendKind(conn) === 'embedded') return null;
  const info = String(await conn.call('INFO', 'server'));
  return /redis_version:(\S+)/.exec(info)?.[1] ?? null;
}

export function registerViews(router: Router, ctx: ApiContext): void {
  const { conn, sampler } = ctx;
  let features: Promise<StreamFeatures> | null = null;
  let truncated = false;

  router.get('/api/info', async ({ res }) => {
    features ??= probeStreamFeatures(conn);
    sendJson(res, 200, {
      backend: backendKind(conn),
      version: await serverVersion(conn),
      xnack: (await features).xnack,
      tokenRequired: ctx.tokenRequired,
      sampleIntervalMs: sampler.options.intervalMs,
      maxStreams: ctx.maxStreams,
      streamsTruncated: truncated,
      samplingError: sampler.lastError,
    });
  });

  router.get('/api/streams', async ({ res }) => {
    const overview = await readOverview(conn, ctx.maxStreams, (n) => sampler.rateOf(n));
    truncated = overview.truncated;
    sendJson(res, 200, overview.streams);
  });

  router.get('/api/streams/:stream', async ({ res, params }) => {
    sendJson(res, 200, await readStream(conn, params['stream']!, (n) => sampler.rateOf(n)));
  });

  router.get('/api/streams/:stream/entries', async ({ res, params, query }) => {
    const page = await readEntries(conn, params['stream']!, { count: countParam(query, 'count', 20, MAX_PAGE), before: optionalId(query, 'before') });
    sendJson(res, 200, page);
  });

  router.get('/api/streams/:stream/groups/:group/pending', async ({ res, params, query }) => {
    const consumer = query.get('consumer') ?? undefined;
    const page = await readPending(conn, params['stream']!, params['group']!, {
      count: countParam(query, 'count', 50, MAX_PAGE),
      after: optionalId(query, 'after'),
      ...(consumer === undefined || consumer === '' ? {} : { consumer }),
    });
    sendJson(res, 200, page);
  });

  router.get('/api/streams/:stream/dead-letters', async ({ res, params, query }) => {
    const page = await readDeadLetters(conn, params['stream']!, { count: countParam(query, 'count', 50, MAX_PAGE), after: optionalId(query, 'after') });
    sendJson(res, 200, page);
  });

  router.get('/api/history', ({ res, query }) => {
    const since = Number(query.get('since') ?? 0);
    sendJson(res, 200, { intervalMs: sampler.options.intervalMs, keep: sampler.options.keep, points: sampler.history(Number.isFinite(since) ? since : 0) });
  });
}
