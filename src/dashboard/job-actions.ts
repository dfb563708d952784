// The job view's buttons: retry a failed job, remove a job (waiting, delayed, completed or
// failed), promote a delayed one, each through the stream's Queue (broker/jobs/manage.ts: a
// WATCH/MULTI that a worker or delayed mover changing the job meanwhile cannot race). A job a
// worker holds, or one in another state than the action needs, is a 409 with the reason.
import type { Connection } from '../client/connection.js';
import { JobActiveError, JobStateError } from '../broker/jobs/manage.js';
import { Queue } from '../broker/queue.js';
import { HttpError } from './http.js';

export const JOB_ACTIONS = ['retry', 'remove', 'promote'] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

export interface JobActionResult {
  id: string;
  stream: string;
  action: JobAction;
  /** The job's state once the action is done; null when it has no record any more (removed). */
  state: string | null;
}

export async function runJobAction(conn: Connection, stream: string, id: string, action: JobAction): Promise<JobActionResult> {
  const queue = new Queue(conn, { stream });
  try {
    try {
      if (action === 'remove') {
        if (!(await queue.remove(id))) throw new HttpError(404, `no job ${id} in ${stream}`);
      } else if (action === 'promote') {
        await queue.promote(id);
      } else {
        await queue.retryJob(id);
      }
    } catch (err) {
      if (err instanceof JobActiveError) throw new HttpError(409, err.message);
      if (err instanceof JobStateError) throw new HttpError(err.state === null ? 404 : 409, err.message);
      throw err;
    }
    const job = await queue.getJob(id);
    return { id, stream, action, state: job === null ? null : job.state };
  } finally {
    await queue.close();
  }
}
