// redis-benchmark against `sluice server` and redis-server side by side:
//   node dist/bench/redis-benchmark.js [--requests 100000] [--clients 50]
//     [--tests ping_inline,ping_mbulk,set,get] [--rounds 3] [--command 'XADD s * f v']
//     [--pipelines 1,16] [--seed 0] [--lean]
// --seed N first adds N entries to the stream "s" on both servers (for XRANGE s - + COUNT 100).
// --command runs one custom command line instead of the -t tests (redis-benchmark's own
// "command mode"; `*` is passed through literally), e.g. the stream benchmark of XADD.
// Runs each test (without and with -P 16) on both servers, alternating, and prints the median
// requests per second with the sluice/redis ratio, and the median server CPU time per request (from
// /proc/PID/stat: on a busy machine requests/s swing with the scheduler, CPU per request does
// not). Both servers run without persistence.
// --lean adds bench/lean-server.js, run the same way: a Node.js server that only reads, counts
// requests and answers each with a fixed reply (no data). Its row is Node's own floor here;
// what sluice spends beyond it is sluice's. (It answers any command but PING and CONFIG with a
// stream id, so it stands in for XADD, not for reads.)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpuSeconds } from './proc-stats.js';
import { median, startLean, startRedis, startSluice, type StartedServer } from './servers.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '100000');
const clients = arg('clients', '50');
const tests = arg('tests', 'ping_inline,ping_mbulk,set,get').split(',');
const rounds = Number(arg('rounds', '3'));
const pipelines = arg('pipelines', '1,16').split(',').map(Number);
const customCommand = arg('command', '');
const seedEntries = Number(arg('seed', '0'));
const withLean = process.argv.includes('--lean');

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
  const lean = withLean ? await startLean() : null;
  try {
    for (const server of [sluice, redis]) {
      if (seedEntries > 0) {
        await run('redis-benchmark', ['-p', String(server.port), '-q', '-c', '10', '-P', '16', '-n', String(seedEntries), 'XADD', 's', '*', 'field', 'value'], { maxBuffer: 16 << 20 });
      }
    }
    console.log(`redis-benchmark -c ${clients} -n ${requests}, median of ${rounds} round(s); cpu = server CPU µs/request, its ratio sluice/redis`);
    if (lean !== null) console.log('"  lean" rows: bench/lean-server.js, a Node.js server doing no work (Node\'s floor); ratios lean/redis');
    console.log(
      `${'test'.padEnd(18)}${'sluice rps'.padStart(12)}${'redis rps'.padStart(12)}${'ratio'.padStart(7)}` +
        `${'sluice cpu'.padStart(12)}${'redis cpu'.padStart(11)}${'ratio'.padStart(7)}`,
    );
    const servers: Array<[string, StartedServer]> = [['sluice', sluice], ['redis', redis]];
    if (lean !== null) servers.push(['lean', lean]);
    for (const pipeline of pipelines) {
      for (const test of customCommand !== '' ? [customCommand] : tests) {
        const runs = new Map<string, Result[]>(servers.map(([name]) => [name, []]));
        for (let r = 0; r < rounds; r++) {
          // Alternate servers so a noisy machine affects both alike.
          for (const [name, server] of servers) runs.get(name)!.push(await benchmark(server.port, server.child.pid!, test, pipeline));
        }
        const medians = (name: string): Result => {
          const xs = runs.get(name)!;
          return { rps: median(xs.map((x) => x.rps)), cpuUs: median(xs.map((x) => x.cpuUs)) };
        };
        const [s, r] = [medians('sluice'), medians('redis')];
        const label = `${test.slice(0, 14)}${pipeline > 1 ? ` -P ${pipeline}` : ''}`;
        console.log(
          `${label.padEnd(18)}${s.rps.toFixed(0).padStart(12)}${r.rps.toFixed(0).padStart(12)}` +
            `${(s.rps / r.rps).toFixed(2).padStart(7)}${s.cpuUs.toFixed(2).padStart(12)}` +
            `${r.cpuUs.toFixed(2).padStart(11)}${(s.cpuUs / r.cpuUs).toFixed(2).padStart(7)}`,
        );
        if (lean === null) continue;
        const l = medians('lean');
        console.log(
          `${'  lean'.padEnd(18)}${l.rps.toFixed(0).padStart(12)}${''.padStart(12)}${(l.rps / r.rps).toFixed(2).padStart(7)}` +
            `${l.cpuUs.toFixed(2).padStart(12)}${''.padStart(11)}${(l.cpuUs / r.cpuUs).toFixed(2).padStart(7)}`,
        );
      }
    }
  } finally {
    await sluice.stop();
    await redis.stop();
    await lean?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
