// What bench/fairness.ts and bench/priority.ts both do once their jobs are added: one Worker
// with a no-op handler runs them until the N-th counted 'completed', then closes; and the
// percentile of a list of waits that fairness.ts and delayed-lateness.ts report.
import type { Connection } from '../src/client/connection.js';
import { Worker, type WorkerOptions } from '../src/broker/worker.js';
import type { Job } from '../src/broker/worker/job.js';

/**
 * Runs `jobs` jobs (those `counts` accepts; the rest run uncounted) with a no-op Worker; resolves
 * to the seconds from its start to the last 'completed', once it has closed. `label` prefixes
 * its errors.
 */
export async function drain<T>(conn: Connection, options: WorkerOptions, jobs: number, label: string, counts: (job: Job<T>) => boolean = () => true): Promise<number> {
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const worker = new Worker<T>(conn, options, () => {});
  worker.on('completed', (job) => {
    if (counts(job) && ++done === jobs) finish();
  });
  worker.on('error', (err) => console.error(`${label}: ${err.message}`));
  const began = performance.now();
  await worker.start();
  await finished;
  const seconds = (performance.now() - began) / 1000;
  await worker.close();
  return seconds;
}

/** The p-th percentile (0-100) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}
