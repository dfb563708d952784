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
// Each measure runs --rounds times (default 3), idle and flood, plain and fair alternated, and
// the table shows each ratio's median with its range: one round of either scatters by tens of
// percent on a shared 2-core machine (a collection or another process landing in it).
// --key-concurrency N gives the wait's worker `fairness: { concurrency: N }`: the flood then holds
// at most N of the worker's slots, and a quiet key's job finds one free instead of waiting for a
// flood job to end.
// Usage: node dist/bench/fairness.js [--seconds 4] [--jobs 5000] [--rounds 3] [--concurrency 10] [--work 4]
//        [--key-concurrency N] [--only redis,embedded,server]
import type { Connection } from '../src/client/connection.js';
import { Producer } from '../src/broker/producer.js';
import { Worker } from '../src/broker/worker.js';
import { drain, percentile } from './drain.js';
import { cpuSeconds } from './proc-stats.js';
import { eachBackend, median } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const SECONDS = Number(arg('seconds', '4'));
const JOBS = Number(arg('jobs', '5000'));
const CONCURRENCY = Number(arg('concurrency', '10'));
const WORK_MS = Number(arg('work', '4'));
const ROUNDS = Number(arg('rounds', '3'));
const KEY_CONCURRENCY = arg('key-concurrency', '') === '' ? undefined : Number(arg('key-concurrency', ''));
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
  const fairness = KEY_CONCURRENCY === undefined ? {} : { fairness: { concurrency: KEY_CONCURRENCY } };
  const worker = new Worker<Payload>(conn, { stream, group: 'g', concurrency: CONCURRENCY, blockMs: 1000, ...fairness }, async (job) => {
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

/**
 * CPU seconds per job (this process + the server's) to add JOBS jobs, plain or all of one key,
 * and to run them: the adds, then one Worker draining them.
 */
async function cpuPerJob(conn: Connection, serverPid: number | null, fair: boolean): Promise<{ add: number; run: number }> {
  const stream = `{bench-faircpu-${process.pid}-${run++}}`;
  const producer = new Producer<Payload>(conn, { stream });
  await producer.add({ k: 'warm', at: 0 }); // probes outside the measure
  const cpu = (): number => {
    const own = process.cpuUsage();
    return (own.user + own.system) / 1e6 + (serverPid === null ? 0 : cpuSeconds(serverPid));
  };
  const before = cpu();
  for (let from = 0; from < JOBS; from += 100) {
    await producer.addMany(Array.from({ length: Math.min(100, JOBS - from) }, () => ({ payload: { k: 'one', at: 0 }, ...(fair ? { fairKey: 'one' } : {}) })), { keyed: true });
  }
  const added = cpu();
  await drain(conn, { stream, group: 'g', concurrency: 50 }, JOBS + 1, `cpu ${fair ? 'fair' : 'plain'}`);
  const ran = cpu();
  await conn.call('DEL', stream);
  return { add: (added - before) / JOBS, run: (ran - added) / JOBS };
}

interface Round {
  idleP99: number;
  floodP99: number;
  flooded: number;
  plainCpu: { add: number; run: number };
  fairCpu: { add: number; run: number };
}

interface Row {
  backend: string;
  rounds: Round[];
}

async function measure(backend: string, conn: Connection, serverPid: number | null): Promise<Row> {
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const idle = await waits(conn, false);
    const busy = await waits(conn, true);
    const plainCpu = await cpuPerJob(conn, serverPid, false);
    const fairCpu = await cpuPerJob(conn, serverPid, true);
    rounds.push({ idleP99: p99(idle.quiet), floodP99: p99(busy.quiet), flooded: busy.flooded, plainCpu, fairCpu });
    await conn.call('FLUSHALL');
  }
  return { backend, rounds };
}

/** `median (min-max)` of a figure over the rounds. */
function spread(values: number[], digits: number, scale = 1): string {
  const xs = values.map((v) => v * scale);
  return `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  await eachBackend(ONLY, async (backend, conn, serverPid) => {
    rows.push(await measure(backend, conn, serverPid));
  });
  console.log(`${QUIET_KEYS} quiet keys (a job each per ${QUIET_EVERY_MS} ms) + a flood key 100x as busy, ${SECONDS} s; worker concurrency ${CONCURRENCY}${KEY_CONCURRENCY === undefined ? '' : `, fairness.concurrency ${KEY_CONCURRENCY}`}, ${WORK_MS} ms per job; cpu: ${JOBS} jobs`);
  console.log(`medians of ${ROUNDS} rounds (min-max)`);
  console.log('cpu/job: add + run (run alone) in us; ratio: fair / plain, of add + run (of run alone)');
  console.log(`${'backend'.padEnd(14)} ${'quiet p99 idle ms'.padEnd(20)} ${'with flood ms'.padEnd(20)} ${'ratio'.padEnd(18)} ${'cpu/job plain'.padEnd(28)} ${'cpu/job fair'.padEnd(28)} ratio`);
  for (const r of rows) {
    const x = r.rounds;
    console.log(
      [
        r.backend.padEnd(14),
        spread(x.map((v) => v.idleP99), 1).padEnd(20),
        spread(x.map((v) => v.floodP99), 1).padEnd(20),
        spread(x.map((v) => v.floodP99 / v.idleP99), 2).padEnd(18),
        `${spread(x.map((v) => v.plainCpu.add + v.plainCpu.run), 0, 1e6)} (${spread(x.map((v) => v.plainCpu.run), 0, 1e6)})`.padEnd(28),
        `${spread(x.map((v) => v.fairCpu.add + v.fairCpu.run), 0, 1e6)} (${spread(x.map((v) => v.fairCpu.run), 0, 1e6)})`.padEnd(28),
        `${spread(x.map((v) => (v.fairCpu.add + v.fairCpu.run) / (v.plainCpu.add + v.plainCpu.run)), 2)} (${spread(x.map((v) => v.fairCpu.run / v.plainCpu.run), 2)})`,
      ].join(' '),
    );
  }
}

await main();
