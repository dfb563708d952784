// The first requests a fresh server answers, before its JIT has warmed up:
//
//   node dist/bench/warmup.js [--requests 20000] [--rounds 5] [--clients 50]
//
// Each round starts `sluice server` and redis-server afresh and sends them the same
// redis-benchmark run of pipelined (-P 16) XADDs; prints the median requests/s and server CPU
// µs per request (the start-up CPU before the run is not counted).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpuSeconds, median, startRedis, startSluice, type StartedServer } from './servers.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '20000');
const rounds = Number(arg('rounds', '5'));
const clients = arg('clients', '50');

async function firstRequests(server: StartedServer): Promise<{ rps: number; cpuUs: number }> {
  const pid = server.child.pid!;
  try {
    const before = cpuSeconds(pid);
    const args = ['-p', String(server.port), '-q', '-c', clients, '-n', requests, '-P', '16', 'XADD', 's', '*', 'f', 'v'];
    const { stdout } = await run('redis-benchmark', args, { maxBuffer: 16 << 20 });
    const cpu = cpuSeconds(pid) - before;
    const m = /([\d.]+) requests per second/.exec(stdout);
    if (m === null) throw new Error(`no result from redis-benchmark: ${stdout}`);
    return { rps: Number(m[1]), cpuUs: (cpu * 1e6) / Number(requests) };
  } finally {
    await server.stop();
  }
}

const runs = { sluice: [] as Array<{ rps: number; cpuUs: number }>, redis: [] as Array<{ rps: number; cpuUs: number }> };
for (let r = 0; r < rounds; r++) {
  runs.sluice.push(await firstRequests(await startSluice()));
  runs.redis.push(await firstRequests(await startRedis()));
}
const s = { rps: median(runs.sluice.map((x) => x.rps)), cpu: median(runs.sluice.map((x) => x.cpuUs)) };
const r = { rps: median(runs.redis.map((x) => x.rps)), cpu: median(runs.redis.map((x) => x.cpuUs)) };
console.log(`first ${requests} XADDs (-P 16, -c ${clients}) of a fresh server, median of ${rounds} rounds`);
console.log(`requests/s  sluice ${s.rps.toFixed(0)}  redis ${r.rps.toFixed(0)}  ratio ${(s.rps / r.rps).toFixed(2)}`);
console.log(`CPU µs/req  sluice ${s.cpu.toFixed(2)}  redis ${r.cpu.toFixed(2)}  ratio ${(s.cpu / r.cpu).toFixed(2)}`);
