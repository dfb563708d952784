// Bytes of JavaScript heap a request allocates, and where, garbage included:
//
//   node dist/bench/allocations.js [--requests 100000] [--warmup 100000] [--clients 50]
//        [--pipeline 1] [--appendfsync everysec|always|no|off] [--top 20] -- XADD s '*' f v
//
// Serves sluice in this process (serve(), with the AOF in a temporary directory unless
// --appendfsync off), warms it with --warmup untimed requests, then runs V8's sampling heap
// profiler, counting objects that minor and major collections already freed, while
// redis-benchmark sends --requests of the command after `--`. Prints the bytes per request in
// all and by allocating function (an optimized function's inlined callees count as its own).
// Allocation is not time: a scavenge costs what survives, not what died; use it to find what a
// change should remove, and time the change with the other benches.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve } from '../src/server/serve.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = Number(arg('requests', '100000'));
const warmup = Number(arg('warmup', '100000'));
const clients = arg('clients', '50');
const pipeline = arg('pipeline', '1');
const fsync = arg('appendfsync', 'everysec');
const top = Number(arg('top', '20'));
const dash = process.argv.indexOf('--');
const command = dash > 0 ? process.argv.slice(dash + 1) : ['XADD', 's', '*', 'f', 'v'];

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const session = new Session();
session.connect();
function post<T>(method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
}

function benchmark(port: number, n: number): Promise<unknown> {
  const args = ['-p', String(port), '-c', clients, '-n', String(n), '-P', pipeline, '-q', ...command];
  return run('redis-benchmark', args, { maxBuffer: 1 << 20 });
}

/** Bytes by "function file:line", summed over the profile tree. */
function bytesByFunction(head: ProfileNode): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (node: ProfileNode): void => {
    if (node.selfSize > 0) {
      const f = node.callFrame;
      const file = f.url.split('/').slice(-2).join('/');
      const name = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
      out.set(name, (out.get(name) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child);
  };
  walk(head);
  return out;
}

const dir = fsync === 'off' ? undefined : mkdtempSync(join(tmpdir(), 'sluice-alloc-'));
const server = await serve({
  port: 0,
  ...(dir === undefined ? {} : { dir, appendfsync: fsync as 'always' | 'everysec' | 'no' }),
});
try {
  if (warmup > 0) await benchmark(server.port, warmup);
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMinorGC: true,
    includeObjectsCollectedByMajorGC: true,
  });
  await benchmark(server.port, requests);
  const { profile } = await post<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
  const byFunction = bytesByFunction(profile.head);
  let total = 0;
  for (const bytes of byFunction.values()) total += bytes;
  const where = dir === undefined ? 'no AOF' : `appendfsync ${fsync}`;
  console.log(`${command.join(' ')}, -c ${clients} -P ${pipeline}, ${where}: ${(total / requests).toFixed(0)} bytes allocated per request`);
  for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(bytes / requests).toFixed(1).padStart(9)}  ${name}`);
  }
} finally {
  await server.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  session.disconnect();
}
