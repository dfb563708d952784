// Durability benchmark, sluice server vs redis-server 7 with the same settings:
//   node dist/bench/aof.js [--requests 50000] [--clients 50] [--entries 1000000] [--skip-load]
// 1. XADD throughput with appendfsync always and everysec (redis-benchmark, -c clients).
// 2. Load time of the same 1,000,000-entry AOF (one XADD per entry, Redis 7 multi-part layout,
//    written once and copied for each server): time from spawn until the server accepts
//    commands, plus the load time each server reports itself.
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
import { freePort } from './servers.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const requests = arg('requests', '50000');
const clients = arg('clients', '50');
const entries = Number(arg('entries', '1000000'));
const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

interface Started {
  child: ChildProcess;
  port: number;
  /** ms from spawn until it accepted commands. */
  readyMs: number;
  /** The load time the server reported, in seconds, if any. */
  reportedSec: number | null;
}

function startSluice(dir: string, fsync: string): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [MAIN, 'server', '--port', '0', '--dir', dir, '--appendfsync', fsync], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`sluice server exited with ${code}: ${err}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready on [^\s:]+:(\d+)/.exec(out);
      if (m) {
        const rep = /loaded from append only file: ([\d.]+) seconds/.exec(err);
        resolve({ child, port: Number(m[1]), readyMs: performance.now() - t0, reportedSec: rep ? Number(rep[1]) : null });
      }
    });
  });
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

/** requests/second of XADD from redis-benchmark. */
async function xaddRate(port: number): Promise<number> {
  const { stdout } = await run(
    'redis-benchmark',
    ['-p', String(port), '-n', requests, '-c', clients, '--csv', 'XADD', 'bench:stream', '*', 'field', 'value'],
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

async function throughput(): Promise<void> {
  console.log(`XADD throughput, redis-benchmark -n ${requests} -c ${clients} (requests/s)`);
  console.log('appendfsync  sluice      redis       sluice/redis');
  for (const fsync of ['always', 'everysec']) {
    const sd = tempDir('s');
    const rd = tempDir('r');
    try {
      const s = await startSluice(sd, fsync);
      const sRate = await xaddRate(s.port).finally(() => stop(s));
      const r = await startRedis(rd, fsync);
      const rRate = await xaddRate(r.port).finally(() => stop(r));
      console.log(`${fsync.padEnd(12)} ${fmt(sRate).padEnd(11)} ${fmt(rRate).padEnd(11)} ${(sRate / rRate).toFixed(2)}`);
    } finally {
      rmSync(sd, { recursive: true, force: true });
      rmSync(rd, { recursive: true, force: true });
    }
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

async function loadTime(): Promise<void> {
  const master = tempDir('log');
  try {
    const size = await writeLog(master, entries);
    console.log(`\nLoad time of a ${entries}-entry stream AOF (${(size / 1e6).toFixed(1)} MB)`);
    const sd = tempDir('ls');
    const rd = tempDir('lr');
    cpSync(master, sd, { recursive: true });
    cpSync(master, rd, { recursive: true });
    try {
      const s = await startSluice(sd, 'everysec');
      const sLen = await run('redis-cli', ['-p', String(s.port), 'XLEN', 'events']);
      await stop(s);
      const r = await startRedis(rd, 'everysec');
      const rLen = await run('redis-cli', ['-p', String(r.port), 'XLEN', 'events']);
      await stop(r);
      if (sLen.stdout.trim() !== String(entries) || rLen.stdout.trim() !== String(entries)) {
        throw new Error(`XLEN after load: sluice ${sLen.stdout.trim()} redis ${rLen.stdout.trim()}`);
      }
      console.log('             spawn-to-ready  reported load');
      console.log(`sluice       ${(s.readyMs / 1000).toFixed(2)} s          ${s.reportedSec?.toFixed(3) ?? '?'} s`);
      console.log(`redis        ${(r.readyMs / 1000).toFixed(2)} s          ${r.reportedSec?.toFixed(3) ?? '?'} s`);
      console.log(`sluice/redis ${(s.readyMs / r.readyMs).toFixed(2)}            ${s.reportedSec && r.reportedSec ? (s.reportedSec / r.reportedSec).toFixed(2) : '?'}`);
    } finally {
      rmSync(sd, { recursive: true, force: true });
      rmSync(rd, { recursive: true, force: true });
    }
  } finally {
    rmSync(master, { recursive: true, force: true });
  }
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

await throughput();
if (!process.argv.includes('--skip-load')) await loadTime();
const stallEntries = Math.min(entries, 200_000);
console.log('\nEvent-loop stalls during BGREWRITEAOF (in-process)');
await rewriteStall(`${stallEntries} small string keys`, async (db) => {
  for (let i = 0; i < stallEntries; i++) await db.call('SET', `key:${i}`, `value:${i}`);
});
await rewriteStall(`one stream of ${stallEntries} entries`, async (db) => {
  for (let i = 0; i < stallEntries; i++) await db.call('XADD', 'big', `${i + 1}-0`, 'seq', i, 'payload', 'x'.repeat(40));
});
