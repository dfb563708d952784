// A QueueEvents listener process for job-events-restart.test.ts: follows the events of STREAM
// (PARTITIONS partition streams) from FROM (a JSON object of lastEventIds, or '$') and prints
// each event as one line, `event STREAM ID NAME JOBID`, once handled: the line is what an
// application would save, so the last complete line per stream is where it resumes.
// Usage: node queue-events-process.js URL STREAM PARTITIONS FROM
import { connect } from '../../src/client/connect.js';
import { QueueEvents } from '../../src/broker/queue-events.js';
import { QUEUE_EVENT_NAMES } from '../../src/broker/jobs/events.js';

const [url, stream, partitions, from] = process.argv.slice(2) as [string, string, string, string];
const conn = await connect(url);
const events = new QueueEvents(conn, { stream, partitions: Number(partitions), lastEventId: from === '$' ? '$' : (JSON.parse(from) as Record<string, string>), blockMs: 200 });
for (const name of QUEUE_EVENT_NAMES) {
  events.on(name, (e: { stream: string; jobId?: string }, id: string) => {
    process.stdout.write(`event ${e.stream} ${id} ${name} ${e.jobId ?? '-'}\n`);
  });
}
events.on('error', (err) => process.stderr.write(`${err.message}\n`));
await events.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => void events.close().then(() => conn.close()));
