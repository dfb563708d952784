// Durability benchmark, sluice server vs redis-server 7 with the same settings:
//   node dist/bench/aof.js [--requests 50000] [--warmup 100000] [--clients 50] [--entries 1000000]
//                          [--rounds 3] [--skip-throughput] [--skip-lean] [--skip-load] [--skip-rss] [--skip-stall]
// Each figure is the median of --rounds runs, sluice and redis alternating in the same round, so
// the load of a shared machine hits both alike. Besides wall-clock, the server process's own CPU
// time (utime+stime of all its threads) is reported, and syscall counts from `perf stat`.
// 1. XADD throughput with appendfsync always and everysec (redis-benchmark, -c clients): req/s,
//    CPU µs per request, commands per fdatasync and per write(2). Each server first takes
//    --warmup untimed XADDs, split between two other keys, so the figures are a running server's,
//    not those of a fresh process still compiling its code (bench/warmup.js measures that;
//    --warmup 0 mixes it back in). Two keys, because the second stream a Node process sees
//    deoptimizes some of what the first trained, and the recompiling (about 1.5 µs of CPU per
//    request over the next 50k) would fall in the timed run (bench/stream-server.js says more).
//    A third row, "lean", is bench/lean-server.js under the same policy: a Node.js server that
//    only reads, logs the request bytes, fsyncs per turn and answers a fixed id. It is the
//    floor any Node.js server has here; what sluice spends beyond it is its own (--skip-lean).
// 2. Load time of the same 1,000,000-entry AOF (one XADD per entry, Redis 7 multi-part layout,
//    written once and copied for each server): time from spawn until the server accepts
//    commands, the load time each server reports itself, CPU seconds, and RSS after the load.
// 3. RSS growth per entry while a fresh server takes 1,000,000 pipelined XADDs.
// 3. (in-process) the longest event-loop stall while BGREWRITEAOF compacts many small keys and
//    one big stream, i.e. how long clients can be held up by a rewrite slice.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { open } from '../src/client/embedded.js';
import { encodeCommand } from '../src/resp/encoder.js';
import { freePort, readyPort } from './servers.js';
import { cpuSeconds, median, privateRssBytes, rssBytes, SyscallCounter } from './proc-stats.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '50000');
const warmup = arg('warmup', '100000');
const clients = arg('clients', '50');
const entries = Number(arg('entries', '1000000'));
const rounds = Number(arg('rounds', '3'));
const lean = !process.argv.includes('--skip-lean');
const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LEAN = fileURLToPath(new URL('./lean-server.js', import.meta.url));

interface Started {
  child: ChildProcess;
  port: number;
  /** ms from spawn until it accepted commands. */
  readyMs: number;
  /** The load time the server reported, in seconds, if any. */
  reportedSec: number | null;
}

async function startSluice(dir: string, fsync: string): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [MAIN, 'server', '--port', '0', '--dir', dir, '--appendfsync', fsync], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const port = await readyPort(child, 'sluice server');
  const rep = /loaded from append only file: ([\d.]+) seconds/.exec(err);
  return { child, port, readyMs: performance.now() - t0, reportedSec: rep ? Number(rep[1]) : null };
}

/** bench/lean-server.js with the same fsync policy: what any Node.js server pays (see there). */
async function startLean(dir: string, fsync: string): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [LEAN, '--port', '0', '--dir', dir, '--appendfsync', fsync], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await readyPort(child, 'lean server');
  return { child, port, readyMs: performance.now() - t0, reportedSec: null };
}

async function startRedis(dir: string, fsync: string): Promise<Started> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--dir', dir, '--appendonly', 'yes', '--appendfsync', fsync, '--aof-use-rdb-preamble', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  for (;;) {
    if (/Ready to accept connections/.test(log)) break;
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${log}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const rep = /DB loaded from append only file: ([\d.]+) seconds/.exec(log);
  return { child, port, readyMs: performance.now() - t0, reportedSec: rep ? Number(rep[1]) : null };
}

async function stop(s: Started): Promise<void> {
  if (s.child.exitCode !== null) return;
  const done = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await done;
}

/** requests/second of `count` XADDs to `key` from redis-benchmark. */
async function xaddRate(port: number, count = requests, key = 'bench:stream'): Promise<number> {
  const { stdout } = await run(
    'redis-benchmark',
    ['-p', String(port), '-n', count, '-c', clients, '--csv', 'XADD', key, '*', 'field', 'value'],
    { maxBuffer: 1 << 20 },
  );
  // CSV: "test","rps",...  — the second line holds the figures.
  const line = stdout.trim().split('\n').pop()!;
  return Number(line.split(',')[1]!.replace(/"/g, ''));
}

function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `sluice-bench-${tag}-`));
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(2);
}

interface RateFigures {
  rps: number;
  /** Server CPU µs per request. */
  cpuUs: number;
  /** Commands per fdatasync, and per write(2), when perf could count them. */
  perSync: number;
  perWrite: number;
}

async function measureRate(s: Started): Promise<RateFigures> {
  const pid = s.child.pid!;
  const half = String(Math.ceil(Number(warmup) / 2));
  if (Number(warmup) > 0) for (const key of ['bench:warmup:0', 'bench:warmup:1']) await xaddRate(s.port, half, key);
  const counter = await SyscallCounter.attach(pid);
  const cpu0 = cpuSeconds(pid);
  const rps = await xaddRate(s.port);
  const cpu = cpuSeconds(pid) - cpu0;
  const calls = await counter.stop();
  const n = Number(requests);
  return { rps, cpuUs: (cpu * 1e6) / n, perSync: calls ? n / calls.fdatasync : NaN, perWrite: calls ? n / calls.write : NaN };
}

async function rateOf(start: (dir: string) => Promise<Started>): Promise<RateFigures> {
  const dir = tempDir('t');
  try {
    const s = await start(dir);
    return await measureRate(s).finally(() => stop(s));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function medianOf(xs: RateFigures[]): RateFigures {
  return {
    rps: median(xs.map((x) => x.rps)),
    cpuUs: median(xs.map((x) => x.cpuUs)),
    perSync: median(xs.map((x) => x.perSync)),
    perWrite: median(xs.map((x) => x.perWrite)),
  };
}

async function throughput(): Promise<void> {
  console.log(`XADD, redis-benchmark -n ${requests} -c ${clients} after ${warmup} untimed, median of ${rounds} rounds`);
  console.log('appendfsync  server  req/s     cpu µs/req  cmds/fdatasync  cmds/write');
  for (const fsync of ['always', 'everysec']) {
    const ours: RateFigures[] = [];
    const theirs: RateFigures[] = [];
    const floor: RateFigures[] = [];
    for (let i = 0; i < rounds; i++) {
      ours.push(await rateOf((d) => startSluice(d, fsync)));
      theirs.push(await rateOf((d) => startRedis(d, fsync)));
      if (lean) floor.push(await rateOf((d) => startLean(d, fsync)));
    }
    const [s, r] = [medianOf(ours), medianOf(theirs)];
    const row = (name: string, f: RateFigures) =>
      console.log(`${fsync.padEnd(12)} ${name.padEnd(7)} ${fmt(f.rps).padEnd(9)} ${f.cpuUs.toFixed(1).padEnd(11)} ${f.perSync.toFixed(1).padEnd(15)} ${f.perWrite.toFixed(2)}`);
    const ratio = (name: string, f: RateFigures) =>
      console.log(`${fsync.padEnd(12)} ratio   ${(f.rps / r.rps).toFixed(2).padEnd(9)} ${(f.cpuUs / r.cpuUs).toFixed(2)}  (${name}/redis)`);
    row('sluice', s);
    row('redis', r);
    if (lean) row('lean', medianOf(floor));
    ratio('sluice', s);
    if (lean) ratio('lean', medianOf(floor));
  }
}

/** Writes DIR/appendonlydir with one incr file of `n` XADDs (Redis 7 layout both servers read). */
async function writeLog(dir: string, n: number): Promise<number> {
  const aof = join(dir, 'appendonlydir');
  mkdirSync(aof, { recursive: true });
  writeFileSync(join(aof, 'appendonly.aof.manifest'), 'file appendonly.aof.1.incr.aof seq 1 type i\n');
  const out = createWriteStream(join(aof, 'appendonly.aof.1.incr.aof'));
  const write = (b: Buffer) => (out.write(b) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write(encodeCommand(['SELECT', '0']));
  const payload = 'x'.repeat(40);
  let chunk: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    chunk.push(encodeCommand(['XADD', 'events', `${1_700_000_000_000 + Math.floor(i / 10)}-${i % 10}`, 'seq', String(i), 'payload', payload]));
    if (chunk.length === 1000) {
      await write(Buffer.concat(chunk));
      chunk = [];
    }
  }
  if (chunk.length > 0) await write(Buffer.concat(chunk));
  await new Promise<void>((r) => out.end(() => r()));
  return statSync(join(aof, 'appendonly.aof.1.incr.aof')).size;
}

interface LoadFigures {
  readyMs: number;
  reportedSec: number;
  cpuSec: number;
  rss: number;
  /** RssAnon: the process's own pages (see privateRssBytes). */
  anon: number;
}

async function loadOnce(master: string, start: (dir: string) => Promise<Started>): Promise<LoadFigures> {
  const dir = tempDir('l');
  try {
    cpSync(master, dir, { recursive: true });
    const s = await start(dir);
    try {
      const len = await run('redis-cli', ['-p', String(s.port), 'XLEN', 'events']);
      if (len.stdout.trim() !== String(entries)) throw new Error(`XLEN after load: ${len.stdout.trim()}`);
      const pid = s.child.pid!;
      return { readyMs: s.readyMs, reportedSec: s.reportedSec ?? NaN, cpuSec: cpuSeconds(pid), rss: rssBytes(pid), anon: privateRssBytes(pid) };
    } finally {
      await stop(s);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function loadTime(): Promise<void> {
  const master = tempDir('log');
  try {
    const size = await writeLog(master, entries);
    console.log(`\nLoad of a ${entries}-entry stream AOF (${(size / 1e6).toFixed(1)} MB), median of ${rounds} rounds`);
    const ours: LoadFigures[] = [];
    const theirs: LoadFigures[] = [];
    for (let i = 0; i < rounds; i++) {
      ours.push(await loadOnce(master, (d) => startSluice(d, 'everysec')));
      theirs.push(await loadOnce(master, (d) => startRedis(d, 'everysec')));
    }
    const med = (xs: LoadFigures[], k: keyof LoadFigures) => median(xs.map((x) => x[k]));
    console.log('             spawn-to-ready  reported load  cpu (whole process)  RSS after load  of which private');
    const row = (name: string, xs: LoadFigures[]) =>
      console.log(
        `${name.padEnd(12)} ${(med(xs, 'readyMs') / 1000).toFixed(2).padEnd(15)} ${med(xs, 'reportedSec').toFixed(3).padEnd(14)} ` +
          `${med(xs, 'cpuSec').toFixed(2).padEnd(20)} ${`${(med(xs, 'rss') / 1e6).toFixed(1)} MB`.padEnd(15)} ${(med(xs, 'anon') / 1e6).toFixed(1)} MB`,
      );
    row('sluice', ours);
    row('redis', theirs);
    const ratio = (k: keyof LoadFigures) => (med(ours, k) / med(theirs, k)).toFixed(2);
    console.log(`sluice/redis ${ratio('readyMs').padEnd(15)} ${ratio('reportedSec').padEnd(14)} ${ratio('cpuSec').padEnd(20)} ${ratio('rss').padEnd(15)} ${ratio('anon')}`);
    // What each process holds before any data (Node's runtime against Redis's), and what the
    // load added to it: the two parts of "RSS after load".
    const emptySluice = await emptyRss((d) => startSluice(d, 'everysec'));
    const emptyRedis = await emptyRss((d) => startRedis(d, 'everysec'));
    const addedSluice = med(ours, 'rss') - emptySluice;
    const addedRedis = med(theirs, 'rss') - emptyRedis;
    const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
    console.log(`RSS of an empty server: sluice ${mb(emptySluice)}, redis ${mb(emptyRedis)}`);
    console.log(`RSS the load added:     sluice ${mb(addedSluice)}, redis ${mb(addedRedis)}, ratio ${(addedSluice / addedRedis).toFixed(2)}`);
  } finally {
    rmSync(master, { recursive: true, force: true });
  }
}

/** RSS of a server started on an empty directory, once it answers. */
async function emptyRss(start: (dir: string) => Promise<Started>): Promise<number> {
  const dir = tempDir('e');
  try {
    const s = await start(dir);
    try {
      await run('redis-cli', ['-p', String(s.port), 'PING']);
      return rssBytes(s.child.pid!);
    } finally {
      await stop(s);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** RSS growth per entry while `entries` XADDs (pipelined, over the socket) fill a fresh server. */
async function rssGrowthOnce(start: (dir: string) => Promise<Started>): Promise<number> {
  const dir = tempDir('m');
  try {
    const s = await start(dir);
    try {
      const pid = s.child.pid!;
      // Warm up (compiled code, client buffers), then measure the fill.
      await run('redis-benchmark', ['-p', String(s.port), '-n', '20000', '-P', '50', '-c', '1', '-q', 'XADD', 'warmup', '*', 'f', 'v']);
      await run('redis-cli', ['-p', String(s.port), 'DEL', 'warmup']);
      const before = rssBytes(pid);
      await run('redis-benchmark', [
        '-p', String(s.port), '-n', String(entries), '-P', '50', '-c', '1', '-r', '1000000', '-q',
        'XADD', 'orders', '*', 'order_id', '__rand_int__', 'total', '__rand_int__',
      ], { maxBuffer: 1 << 20 });
      return (rssBytes(pid) - before) / entries;
    } finally {
      await stop(s);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rssGrowth(): Promise<void> {
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    ours.push(await rssGrowthOnce((d) => startSluice(d, 'everysec')));
    theirs.push(await rssGrowthOnce((d) => startRedis(d, 'everysec')));
  }
  const [o, t] = [median(ours), median(theirs)];
  console.log(`\nRSS growth filling ${entries} entries (XADD orders * order_id N total N), median of ${rounds}`);
  console.log(`sluice ${o.toFixed(1)} B/entry, redis ${t.toFixed(1)} B/entry, sluice/redis ${(o / t).toFixed(2)}`);
}

/** Longest gap between 1 ms timer ticks while a rewrite runs. */
async function rewriteStall(label: string, fill: (db: Awaited<ReturnType<typeof open>>) => Promise<void>): Promise<void> {
  const dir = tempDir('stall');
  try {
    const db = await open({ dir, appendfsync: 'no' });
    await db.call('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    await fill(db);
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    await db.call('BGREWRITEAOF');
    for (;;) {
      const info = (await db.call('INFO', 'persistence')) as string;
      if (info.includes('aof_rewrite_in_progress:0')) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    clearInterval(timer);
    console.log(`${label.padEnd(34)} rewrite ${((performance.now() - t0) / 1000).toFixed(2)} s, longest stall ${worst.toFixed(1)} ms`);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!process.argv.includes('--skip-throughput')) await throughput();
if (!process.argv.includes('--skip-load')) await loadTime();
if (!process.argv.includes('--skip-rss')) await rssGrowth();
if (process.argv.includes('--skip-stall')) process.exit(0);
const stallEntries = Math.min(entries, 200_000);
console.log('\nEvent-loop stalls during BGREWRITEAOF (in-process)');
await rewriteStall(`${stallEntries} small string keys`, async (db) => {
  for (let i = 0; i < stallEntries; i++) await db.call('SET', `key:${i}`, `value:${i}`);
});
await rewriteStall(`one stream of ${stallEntries} entries`, async (db) => {
  for (let i = 0; i < stallEntries; i++) await db.call('XADD', 'big', `${i + 1}-0`, 'seq', i, 'payload', 'x'.repeat(40));
});
