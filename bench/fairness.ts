// Per-key fairness (src/broker/fairness/), measured on redis-server, the embedded engine and
// `sluice server`:
//   wait: 20 quiet keys each add a job every 100 ms; their jobs' wait (add to start) is measured
//         on an idle system, then with one more key 100x as busy (a flood: 1,000 jobs/s) sharing
//         the same worker (concurrency --concurrency, default 10; each job holds its slot
//         --work ms, default 4, so the flood alone exceeds what the worker can run and its lane
//         grows). Reported: the quiet keys' p99 wait with the flood / idle (issue 31's target: <= 2).
//   cpu:  --jobs jobs (default 5000) already added, all of one key vs plain ones; one Worker
//         (concurrency 50, no-op handler) runs them; CPU seconds of this process and the server
//         per job. Reported: fair / plain (target: <= 1.2).
// Usage: node dist/bench/fairness.js [--seconds 4] [--jobs 5000] [--concurrency 10] [--work 4] [--only redis,embedded,server]
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { drain, percentile } from './drain.js';
import { cpuSeconds } from './proc-stats.js';
import { eachBackend } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const SECONDS = Number(arg('seconds', '4'));
const JOBS = Number(arg('jobs', '5000'));
const CONCURRENCY = Number(arg('concurrency', '10'));
const WORK_MS = Number(arg('work', '4'));
const ONLY = arg('only', 'redis,embedded,server').split(',');
const QUIET_KEYS = 20;
const QUIET_EVERY_MS = 100;

interface Payload {
  k: string;
  at: number;
}

let run = 0;

function p99(xs: number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 99);
}

/** The quiet keys' waits (ms) over SECONDS, with or without the flood. */
async function waits(conn: Connection, flood: boolean): Promise<{ quiet: number[]; flooded: number }> {
  const stream = `{bench-fair-${process.pid}-${run++}}`;
  const producer = new Producer<Payload>(conn, { stream });
  await producer.add({ k: 'warm', at: performance.now() }); // probes outside the measure
  const quiet: number[] = [];
  let flooded = 0;
  const worker = new Worker<Payload>(conn, { stream, group: 'g', concurrency: CONCURRENCY, blockMs: 1000 }, async (job) => {
    if (job.payload.k.startsWith('q')) quiet.push(performance.now() - job.payload.at);
    else flooded++;
    await new Promise((r) => setTimeout(r, WORK_MS));
  });
  worker.on('error', (err) => console.error(err.message));
  await worker.start();
  const timers: NodeJS.Timeout[] = [];
  for (let q = 0; q < QUIET_KEYS; q++) {
    // Spread over the period so the quiet keys do not add in one burst.
    setTimeout(() => timers.push(setInterval(() => void producer.add({ k: `q${q}`, at: performance.now() }, { fairKey: `q${q}` }), QUIET_EVERY_MS)), (q * QUIET_EVERY_MS) / QUIET_KEYS);
  }
  if (flood) {
    // 100x a quiet key: 10 jobs every 10 ms.
    timers.push(setInterval(() => void producer.addMany(Array.from({ length: 10 }, () => ({ payload: { k: 'flood', at: performance.now() }, fairKey: 'flood' })), { keyed: true }), 10));
  }
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  for (const t of timers) clearInterval(t);
  await worker.close({ timeoutMs: 2000 });
  await conn.call('DEL', stream);
  return { quiet, flooded };
}

/** CPU seconds per job (this process + the server's) to run JOBS jobs, plain or all of one key. */
async function cpuPerJob(conn: Connection, serverPid: number | null, fair: boolean): Promise<number> {
  const stream = `{bench-faircpu-${process.pid}-${run++}}`;
  const producer = new Producer<Payload>(conn, { stream });
  for (let from = 0; from < JOBS; from += 100) {
    await producer.addMany(Array.from({ length: Math.min(100, JOBS - from) }, () => ({ payload: { k: 'one', at: 0 }, ...(fair ? { fairKey: 'one' } : {}) })), { keyed: true });
  }
  const cpu0 = process.cpuUsage();
  const server0 = serverPid === null ? 0 : cpuSeconds(serverPid);
  await drain(conn, { stream, group: 'g', concurrency: 50 }, JOBS, `cpu ${fair ? 'fair' : 'plain'}`);
  const cpu = process.cpuUsage(cpu0);
  const server = serverPid === null ? 0 : cpuSeconds(serverPid) - server0;
  await conn.call('DEL', stream);
  return ((cpu.user + cpu.system) / 1e6 + server) / JOBS;
}

interface Row {
  backend: string;
  idleP99: number;
  floodP99: number;
  flooded: number;
  plainCpu: number;
  fairCpu: number;
}

async function measure(backend: string, conn: Connection, serverPid: number | null): Promise<Row> {
  const idle = await waits(conn, false);
  const busy = await waits(conn, true);
  const plainCpu = await cpuPerJob(conn, serverPid, false);
  const fairCpu = await cpuPerJob(conn, serverPid, true);
  await conn.call('FLUSHALL');
  return { backend, idleP99: p99(idle.quiet), floodP99: p99(busy.quiet), flooded: busy.flooded, plainCpu, fairCpu };
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  await eachBackend(ONLY, async (backend, conn, serverPid) => {
    rows.push(await measure(backend, conn, serverPid));
  });
  console.log(`${QUIET_KEYS} quiet keys (a job each per ${QUIET_EVERY_MS} ms) + a flood key 100x as busy, ${SECONDS} s; worker concurrency ${CONCURRENCY}, ${WORK_MS} ms per job; cpu: ${JOBS} jobs`);
  console.log('backend        quiet p99 idle  with flood  ratio  flood jobs run   cpu/job plain  cpu/job fair  ratio');
  for (const r of rows) {
    console.log(
      `${r.backend.padEnd(14)} ${r.idleP99.toFixed(1).padStart(11)} ms ${r.floodP99.toFixed(1).padStart(8)} ms ${(r.floodP99 / r.idleP99).toFixed(2).padStart(6)} ${String(r.flooded).padStart(15)}   ${(r.plainCpu * 1e6).toFixed(0).padStart(10)} us ${(r.fairCpu * 1e6).toFixed(0).padStart(10)} us ${(r.fairCpu / r.plainCpu).toFixed(2).padStart(6)}`,
    );
  }
}

await main();
