// The group rate limit across workers: 3 workers (each on its own connection, as separate
// processes would be) share `limiter: { max: 100, durationMs: 1000 }`; prints jobs started per
// second over a 6 s run, on redis-server and on sluice server.
//
//   node dist/bench/limiter.js
import { connect } from '../src/client/connect.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { startRedis, startSluice } from './servers.js';

async function run(name: string, url: string): Promise<void> {
  const conns = await Promise.all([0, 1, 2, 3].map(() => connect(url)));
  await new Producer(conns[0]!, { stream: 'jobs' }).addMany(Array.from({ length: 2000 }, (_, i) => i));
  const starts: number[] = [];
  const workers = conns.slice(1).map((c) => new Worker<number>(c, { stream: 'jobs', group: 'g', concurrency: 20, limiter: { max: 100, durationMs: 1000 } }, () => void starts.push(Date.now())));
  for (const w of workers) w.on('error', (e) => console.error(e.message));
  const t0 = Date.now();
  for (const w of workers) await w.start();
  await new Promise((r) => setTimeout(r, 6000));
  for (const w of workers) await w.close();
  const perSecond = [1, 2, 3, 4, 5].map((s) => starts.filter((t) => t >= t0 + s * 1000 && t < t0 + (s + 1) * 1000).length);
  console.log(`${name.padEnd(14)} jobs started per second (s1..s5): ${perSecond.join(' ')}  mean ${(perSecond.reduce((a, b) => a + b) / 5).toFixed(1)}`);
  for (const c of conns) await c.close();
}

const redis = await startRedis();
await run('redis-server', `redis://127.0.0.1:${redis.port}`);
await redis.stop();
const sluice = await startSluice();
await run('sluice server', `redis://127.0.0.1:${sluice.port}`);
await sluice.stop();
