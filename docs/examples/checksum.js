// A sandboxed processor (docs/sandboxes.md): hashes the text `rounds` times, CPU-bound on purpose.
import { createHash } from 'node:crypto';

/** @param {import('sluice').Job<{ text: string; rounds: number }>} job */
export default async function checksum(job) {
  if (job.payload.rounds < 0) throw new RangeError('rounds must not be negative');
  let digest = job.payload.text;
  for (let i = 1; i <= job.payload.rounds; i++) {
    digest = createHash('sha256').update(digest).digest('hex');
    if (i % 50_000 === 0) await job.updateProgress(Math.round((100 * i) / job.payload.rounds));
  }
  await job.log(`hashed ${job.payload.rounds} times`);
  return { digest };
}
