// GET routes of the job view: the streams that can hold jobs, a stream's jobs by state with the
// counts, one job's detail, and a search by id. Every one only reads (jobs.ts); the buttons'
// POST routes are in action-routes.ts.
import type { Connection } from '../client/connection.js';
import { countParam, HttpError, sendJson } from './http.js';
import { checkJobId, checkState, jobStreams, listJobs, readJob, searchJob } from './jobs.js';
import type { Router } from './router.js';

/** Jobs per page at most, and how deep a list may page. */
export const MAX_JOBS_PAGE = 200;
const MAX_START = 10_000;

function startParam(query: URLSearchParams): number {
  const raw = query.get('start');
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_START) throw new HttpError(400, `start must be an integer from 0 to ${MAX_START}`);
  return n;
}

export function registerJobViews(router: Router, conn: Connection, maxStreams: number): void {
  router.get('/api/jobs', async ({ res }) => {
    sendJson(res, 200, await jobStreams(conn, maxStreams));
  });

  router.get('/api/jobs/:id', async ({ res, params }) => {
    sendJson(res, 200, await searchJob(conn, checkJobId(params['id']!), maxStreams));
  });

  router.get('/api/streams/:stream/jobs', async ({ res, params, query }) => {
    const group = query.get('group');
    const list = await listJobs(conn, params['stream']!, {
      state: checkState(query.get('state')),
      start: startParam(query),
      count: countParam(query, 'count', 20, MAX_JOBS_PAGE),
      ...(group === null || group === '' ? {} : { group }),
    });
    sendJson(res, 200, list);
  });

  router.get('/api/streams/:stream/jobs/:id', async ({ res, params }) => {
    sendJson(res, 200, await readJob(conn, params['stream']!, checkJobId(params['id']!)));
  });
}
