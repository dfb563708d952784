// redis-benchmark against `sluice server` and redis-server side by side:
//   node dist/bench/redis-benchmark.js [--requests 100000] [--clients 50] [--tests ping,set,get] [--rounds 1]
// Runs each configuration (without and with -P 16) on both servers, alternating, and prints the
// requests per second with the sluice/redis ratio. Both servers run without persistence.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '100000');
const clients = arg('clients', '50');
const tests = arg('tests', 'ping,set,get');
const rounds = Number(arg('rounds', '1'));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `sluice server --port 0` and resolves with its port once it prints "ready on". */
function startSluice(): Promise<{ child: ChildProcess; port: number }> {
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const child = spawn(process.execPath, [main, 'server', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`sluice server exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready on [^\s:]+:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
  });
}

async function startRedis(): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      await run('redis-cli', ['-p', String(port), 'ping']);
      return { child, port };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('redis-server did not start');
}

/** Runs redis-benchmark -q and returns requests per second by test name. */
async function benchmark(port: number, pipeline: number): Promise<Map<string, number>> {
  const args = ['-p', String(port), '-t', tests, '-q', '-c', clients, '-n', requests];
  if (pipeline > 1) args.push('-P', String(pipeline));
  const { stdout } = await run('redis-benchmark', args, { maxBuffer: 16 << 20 });
  const out = new Map<string, number>();
  // -q prints progress lines ending in \r; the final line per test is "NAME: N requests per second".
  for (const m of stdout.matchAll(/([A-Z_]+): ([\d.]+) requests per second/g)) out.set(m[1]!, Number(m[2]));
  return out;
}

async function main(): Promise<void> {
  const sluice = await startSluice();
  const redis = await startRedis();
  try {
    console.log(`redis-benchmark -t ${tests} -c ${clients} -n ${requests} (best of ${rounds} round(s))`);
    console.log(`${'test'.padEnd(22)}${'sluice'.padStart(12)}${'redis'.padStart(12)}${'ratio'.padStart(8)}`);
    for (const pipeline of [1, 16]) {
      const best = { sluice: new Map<string, number>(), redis: new Map<string, number>() };
      for (let r = 0; r < rounds; r++) {
        // Alternate servers so a noisy machine affects both alike.
        for (const [name, port] of [['sluice', sluice.port], ['redis', redis.port]] as const) {
          for (const [test, rps] of await benchmark(port, pipeline)) {
            best[name].set(test, Math.max(best[name].get(test) ?? 0, rps));
          }
        }
      }
      for (const [test, s] of best.sluice) {
        const r = best.redis.get(test) ?? NaN;
        const label = `${test}${pipeline > 1 ? ` -P ${pipeline}` : ''}`;
        console.log(`${label.padEnd(22)}${s.toFixed(0).padStart(12)}${r.toFixed(0).padStart(12)}${(s / r).toFixed(2).padStart(8)}`);
      }
    }
  } finally {
    sluice.child.kill('SIGTERM');
    redis.child.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
