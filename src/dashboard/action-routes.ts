// POST routes: the actions (see actions.ts, and job-actions.ts for the job view's buttons). The
// handler has already checked the token, the origin and the JSON content type before any of
// these runs.
import type { Connection } from '../client/connection.js';
import { pauseGroup, resumeGroup } from '../broker/pause.js';
import { claimPending, deleteEntries, nackPending, purgeDeadLetters, retryDeadLetters, selectionOf } from './actions.js';
import { readJsonBody, sendJson } from './http.js';
import { JOB_ACTIONS, runJobAction } from './job-actions.js';
import { checkJobId } from './jobs.js';
import type { Router } from './router.js';
import type { Sampler } from './sampler.js';

export function registerActions(router: Router, conn: Connection, sampler: Sampler): void {
  // After an action the charts should show its effect at once, not an interval later.
  const done = (res: Parameters<typeof sendJson>[0], body: unknown): void => {
    void sampler.sample();
    sendJson(res, 200, body);
  };

  router.post('/api/streams/:stream/dead-letters/retry', async ({ req, res, params }) => {
    done(res, await retryDeadLetters(conn, params['stream']!, selectionOf(await readJsonBody(req))));
  });

  router.post('/api/streams/:stream/dead-letters/purge', async ({ req, res, params }) => {
    done(res, await purgeDeadLetters(conn, params['stream']!, selectionOf(await readJsonBody(req))));
  });

  router.post('/api/streams/:stream/groups/:group/pending/claim', async ({ req, res, params }) => {
    done(res, await claimPending(conn, params['stream']!, params['group']!, await readJsonBody(req)));
  });

  router.post('/api/streams/:stream/groups/:group/pending/nack', async ({ req, res, params }) => {
    done(res, await nackPending(conn, params['stream']!, params['group']!, await readJsonBody(req)));
  });

  router.post('/api/streams/:stream/groups/:group/pause', async ({ res, params }) => {
    await pauseGroup(conn, params['stream']!, params['group']!);
    done(res, { paused: true });
  });

  router.post('/api/streams/:stream/groups/:group/resume', async ({ res, params }) => {
    await resumeGroup(conn, params['stream']!, params['group']!);
    done(res, { paused: false });
  });

  for (const action of JOB_ACTIONS) {
    router.post(`/api/streams/:stream/jobs/:id/${action}`, async ({ req, res, params }) => {
      await readJsonBody(req); // `{}`: the path says everything
      done(res, await runJobAction(conn, params['stream']!, checkJobId(params['id']!), action));
    });
  }

  router.post('/api/streams/:stream/entries/delete', async ({ req, res, params }) => {
    done(res, await deleteEntries(conn, params['stream']!, await readJsonBody(req)));
  });
}
