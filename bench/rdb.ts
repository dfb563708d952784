// RDB figures, sluice vs redis-server 7.0 on the same data:
//   node dist/bench/rdb.js [--entries 500000] [--keys 200000]
// The dataset: one stream of --entries entries (2 fields each) with a consumer group holding
// 10,000 pending entries, and --keys small strings. For each server: the SAVE time, the
// dump.rdb size, and the time a fresh server takes from spawn until it accepts commands with
// that file (sluice loads redis-server's file and its own).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const entries = Number(arg('entries', '500000'));
const keys = Number(arg('keys', '200000'));
const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** Spawns a server on `dir` and resolves once it says it is ready (after loading dump.rdb). */
async function start(kind: 'sluice' | 'redis', dir: string): Promise<{ child: ChildProcess; port: number; readyMs: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child =
    kind === 'sluice'
      ? spawn(process.execPath, [MAIN, 'server', '--port', String(port), '--dir', dir, '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('redis-server', ['--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ready = kind === 'sluice' ? /ready on/ : /Ready to accept connections/;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve();
    });
    child.stderr!.on('data', () => undefined);
    child.once('exit', (code) => reject(new Error(`${kind} exited (${code}): ${out}`)));
  });
  return { child, port, readyMs: performance.now() - t0 };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function fill(port: number): Promise<void> {
  const c = new Redis({ port });
  for (let i = 0; i < entries; i += 1000) {
    const p = c.pipeline();
    for (let j = i; j < Math.min(entries, i + 1000); j++) p.xadd('stream', `${j + 1}-0`, 'n', String(j), 'payload', `order-${j}`);
    await p.exec();
  }
  await c.xgroup('CREATE', 'stream', 'g', '0');
  await c.xreadgroup('GROUP', 'g', 'c', 'COUNT', '10000', 'STREAMS', 'stream', '>');
  for (let i = 0; i < keys; i += 1000) {
    const p = c.pipeline();
    for (let j = i; j < Math.min(keys, i + 1000); j++) p.set(`key:${j}`, `value-${j}`);
    await p.exec();
  }
  c.disconnect();
}

async function saveMs(port: number): Promise<number> {
  const c = new Redis({ port });
  const t0 = performance.now();
  await c.save();
  const ms = performance.now() - t0;
  c.disconnect();
  return ms;
}

const root = mkdtempSync(join(tmpdir(), 'sluice-rdb-bench-'));
try {
  const rows: string[] = [];
  const saved: Record<string, string> = {};
  for (const kind of ['redis', 'sluice'] as const) {
    const dir = join(root, kind);
    mkdirSync(dir);
    const server = await start(kind, dir);
    await fill(server.port);
    const ms = await saveMs(server.port);
    await stop(server.child);
    saved[kind] = join(dir, 'dump.rdb');
    rows.push(`${kind.padEnd(7)} SAVE ${ms.toFixed(0).padStart(6)} ms   dump.rdb ${(statSync(saved[kind]!).size / 1e6).toFixed(1)} MB`);
  }
  for (const [server, file] of [['redis', 'redis'], ['sluice', 'redis'], ['sluice', 'sluice'], ['redis', 'sluice']] as const) {
    const dir = join(root, `load-${server}-${file}`);
    mkdirSync(dir);
    copyFileSync(saved[file]!, join(dir, 'dump.rdb'));
    const s = await start(server, dir);
    await stop(s.child);
    rows.push(`${server.padEnd(7)} start with ${file}'s dump.rdb: ${s.readyMs.toFixed(0).padStart(6)} ms`);
  }
  console.log(`${entries} stream entries (10,000 pending), ${keys} string keys`);
  for (const r of rows) console.log(r);
} finally {
  rmSync(root, { recursive: true, force: true });
}
