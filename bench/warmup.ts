// The first requests a fresh server answers, before its JIT has warmed up:
//
//   node dist/bench/warmup.js [--requests 20000] [--rounds 5] [--clients 50]
//
// Each round starts `sluice server` and redis-server afresh and sends them the same
// redis-benchmark run of pipelined (-P 16) XADDs; prints the median requests/s and server CPU
// µs per request (the start-up CPU before the run is not counted). For sluice it also splits
// that CPU into the main thread (the event loop: parsing, commands, replies, and code not yet
// optimized) and the other threads (mostly V8 compiling the hot path with TurboFan, and GC
// helpers): on a 2-core machine the latter compete with the main thread and the client.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { threadCpuSeconds } from './proc-stats.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '20000');
const rounds = Number(arg('rounds', '5'));
const clients = arg('clients', '50');

interface FirstRequests {
  rps: number;
  /** Server CPU µs per request, all threads, and the main thread's share. */
  cpuUs: number;
  mainUs: number;
}

async function firstRequests(server: StartedServer): Promise<FirstRequests> {
  const pid = server.child.pid!;
  try {
    const before = threadCpuSeconds(pid);
    const args = ['-p', String(server.port), '-q', '-c', clients, '-n', requests, '-P', '16', 'XADD', 's', '*', 'f', 'v'];
    const { stdout } = await run('redis-benchmark', args, { maxBuffer: 16 << 20 });
    const after = threadCpuSeconds(pid);
    const m = /([\d.]+) requests per second/.exec(stdout);
    if (m === null) throw new Error(`no result from redis-benchmark: ${stdout}`);
    const perRequest = (seconds: number) => (seconds * 1e6) / Number(requests);
    return { rps: Number(m[1]), cpuUs: perRequest(after.all - before.all), mainUs: perRequest(after.main - before.main) };
  } finally {
    await server.stop();
  }
}

const runs = { sluice: [] as FirstRequests[], redis: [] as FirstRequests[] };
for (let r = 0; r < rounds; r++) {
  runs.sluice.push(await firstRequests(await startSluice()));
  runs.redis.push(await firstRequests(await startRedis()));
}
const medianOf = (xs: FirstRequests[], k: keyof FirstRequests) => median(xs.map((x) => x[k]));
const s = { rps: medianOf(runs.sluice, 'rps'), cpu: medianOf(runs.sluice, 'cpuUs'), main: medianOf(runs.sluice, 'mainUs') };
const r = { rps: medianOf(runs.redis, 'rps'), cpu: medianOf(runs.redis, 'cpuUs') };
console.log(`first ${requests} XADDs (-P 16, -c ${clients}) of a fresh server, median of ${rounds} rounds`);
console.log(`requests/s  sluice ${s.rps.toFixed(0)}  redis ${r.rps.toFixed(0)}  ratio ${(s.rps / r.rps).toFixed(2)}`);
console.log(`CPU µs/req  sluice ${s.cpu.toFixed(2)}  redis ${r.cpu.toFixed(2)}  ratio ${(s.cpu / r.cpu).toFixed(2)}`);
console.log(`sluice's CPU µs/req by thread: main ${s.main.toFixed(2)}, other threads (V8's compiler, GC helpers) ${(s.cpu - s.main).toFixed(2)}`);
