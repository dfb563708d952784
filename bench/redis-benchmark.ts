// redis-benchmark against `sluice server` and redis-server side by side:
//   node dist/bench/redis-benchmark.js [--requests 100000] [--clients 50]
//     [--tests ping_inline,ping_mbulk,set,get] [--rounds 1] [--command 'XADD s * f v']
// --command runs one custom command line instead of the -t tests (redis-benchmark's own
// "command mode"; `*` is passed through literally), e.g. the stream benchmark of XADD.
// Runs each test (without and with -P 16) on both servers, alternating, and prints the requests
// per second with the sluice/redis ratio, and the server CPU time per request (from
// /proc/PID/stat: on a busy machine requests/s swing with the scheduler, CPU per request does
// not). Both servers run without persistence.
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startRedis, startSluice } from './servers.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '100000');
const clients = arg('clients', '50');
const tests = arg('tests', 'ping_inline,ping_mbulk,set,get').split(',');
const rounds = Number(arg('rounds', '1'));
const customCommand = arg('command', '');

/** CPU time (user + system) a process has used, in seconds; NaN where /proc is unavailable. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface Result {
  rps: number;
  /** Server CPU microseconds per request. */
  cpuUs: number;
}

/** Runs one redis-benchmark test (-q) and measures the server's CPU time meanwhile. */
async function benchmark(port: number, pid: number, test: string, pipeline: number): Promise<Result> {
  const args = ['-p', String(port), '-q', '-c', clients, '-n', requests];
  if (pipeline > 1) args.push('-P', String(pipeline));
  if (customCommand !== '') args.push(...customCommand.split(' '));
  else args.push('-t', test);
  const before = cpuSeconds(pid);
  const { stdout } = await run('redis-benchmark', args, { maxBuffer: 16 << 20 });
  const cpu = cpuSeconds(pid) - before;
  // -q prints progress lines ending in \r; the final line is "NAME: N requests per second".
  const m = /([^\r\n]+): ([\d.]+) requests per second/.exec(stdout);
  if (m === null) throw new Error(`no result from redis-benchmark ${args.join(' ')}: ${stdout}`);
  return { rps: Number(m[2]), cpuUs: (cpu * 1e6) / Number(requests) };
}

async function main(): Promise<void> {
  const sluice = await startSluice();
  const redis = await startRedis();
  try {
    console.log(`redis-benchmark -c ${clients} -n ${requests}, best of ${rounds} round(s); cpu = server CPU µs/request`);
    console.log(
      `${'test'.padEnd(18)}${'sluice rps'.padStart(12)}${'redis rps'.padStart(12)}${'ratio'.padStart(7)}` +
        `${'sluice cpu'.padStart(12)}${'redis cpu'.padStart(11)}${'ratio'.padStart(7)}`,
    );
    for (const pipeline of [1, 16]) {
      for (const test of customCommand !== '' ? [customCommand] : tests) {
        const best = { sluice: { rps: 0, cpuUs: Infinity }, redis: { rps: 0, cpuUs: Infinity } };
        for (let r = 0; r < rounds; r++) {
          // Alternate servers so a noisy machine affects both alike.
          for (const [name, server] of [['sluice', sluice], ['redis', redis]] as const) {
            const result = await benchmark(server.port, server.child.pid!, test, pipeline);
            best[name].rps = Math.max(best[name].rps, result.rps);
            best[name].cpuUs = Math.min(best[name].cpuUs, result.cpuUs);
          }
        }
        const s = best.sluice;
        const r = best.redis;
        const label = `${test.slice(0, 14)}${pipeline > 1 ? ` -P ${pipeline}` : ''}`;
        console.log(
          `${label.padEnd(18)}${s.rps.toFixed(0).padStart(12)}${r.rps.toFixed(0).padStart(12)}` +
            `${(s.rps / r.rps).toFixed(2).padStart(7)}${s.cpuUs.toFixed(2).padStart(12)}` +
            `${r.cpuUs.toFixed(2).padStart(11)}${(r.cpuUs / s.cpuUs).toFixed(2).padStart(7)}`,
        );
      }
    }
  } finally {
    await sluice.stop();
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
