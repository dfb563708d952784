// Stalls and memory kept: what one heavy client costs everyone else, sluice server vs
// redis-server 7 in the same run (issue 32, item 9):
//
//   node dist/bench/stalls.js [--entries 1000000] [--rounds 2] [--readers 10] [--loop-clients 200]
//                             [--loop-seconds 8] [--skip stall,restart,loop]
//
//   stall    seed a stream of --entries entries (`XADD s * f <8 bytes>`), then a separate client
//            sends one PING at a time and records the longest wait, while (1) one client runs
//            XRANGE s - + and reads the reply, (2) --readers clients send XRANGE s - + and never
//            read. RSS (VmRSS) before the peak, at its top, and 5 s after the clients left.
//   restart  --dir with a small AOF (1000 XADDs), kill -9, then the time from spawn to the
//            first PONG of the new process.
//   loop     --loop-clients clients, half adding (`XADD q * f v`, one in flight, each timed),
//            half consuming (XREADGROUP GROUP g cN COUNT 10 BLOCK 1000 STREAMS q > then XACK),
//            for --loop-seconds: XADD p50/p99, server CPU (utime+stime from /proc) and the
//            server's read/write system calls (/proc/<pid>/io), all per XADD.
//
// Each round starts both servers afresh (sluice first, then redis); the figures of every round
// are printed, then the ranges and sluice/Redis ratios. Bounded: roughly 2-3 minutes per round
// for 1M entries on a loaded 2-core machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { cpuSeconds, rssBytes } from './proc-stats.js';
import { freePort, sluiceNodeFlags, startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const ENTRIES = Number(arg('entries', '1000000'));
const ROUNDS = Number(arg('rounds', '2'));
const READERS = Number(arg('readers', '10'));
const LOOP_CLIENTS = Number(arg('loop-clients', '200'));
const LOOP_SECONDS = Number(arg('loop-seconds', '8'));
const SKIP = new Set(arg('skip', '').split(',').filter((s) => s !== ''));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function resp(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

function connectRaw(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** A client that sends PING, waits for PONG, sleeps 5 ms, again; it keeps the longest wait. */
class PingProbe {
  longest = 0;
  private stopped = false;
  private readonly done: Promise<void>;
  constructor(private readonly socket: net.Socket) {
    this.done = this.loop();
  }
  static async start(port: number): Promise<PingProbe> {
    return new PingProbe(await connectRaw(port));
  }
  private async loop(): Promise<void> {
    while (!this.stopped) {
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        let got = '';
        const onData = (d: Buffer) => {
          got += d.toString('latin1');
          if (got.endsWith('\r\n')) {
            this.socket.off('data', onData);
            resolve();
          }
        };
        this.socket.on('data', onData);
        this.socket.write('PING\r\n');
      });
      this.longest = Math.max(this.longest, performance.now() - t0);
      await sleep(5);
    }
  }
  async stop(): Promise<number> {
    this.stopped = true;
    await this.done;
    this.socket.destroy();
    return this.longest;
  }
}

async function seed(port: number): Promise<void> {
  const s = await connectRaw(port);
  const BATCH = 2000;
  const one = resp('XADD', 's', '*', 'f', 'abcdefgh');
  const batch = one.repeat(BATCH);
  for (let sent = 0; sent < ENTRIES; sent += BATCH) {
    // A batch's replies are ids (bulk strings); wait until BATCH of them arrived.
    await new Promise<void>((resolve) => {
      let lines = 0;
      const onData = (d: Buffer) => {
        for (let i = 0; i < d.length; i++) if (d[i] === 0x24) lines++; // '$' starts each reply
        if (lines >= BATCH) {
          s.off('data', onData);
          resolve();
        }
      };
      s.on('data', onData);
      s.write(batch);
    });
  }
  s.destroy();
}

/** XRANGE s - + then PING on one connection, read to the end: resolves when "+PONG" arrives. */
async function readAll(port: number): Promise<number> {
  const s = await connectRaw(port);
  let bytes = 0;
  let tail = '';
  await new Promise<void>((resolve) => {
    s.on('data', (d: Buffer) => {
      bytes += d.length;
      tail = (tail + d.subarray(Math.max(0, d.length - 16)).toString('latin1')).slice(-16);
      if (tail.endsWith('+PONG\r\n')) resolve();
    });
    s.write(resp('XRANGE', 's', '-', '+') + resp('PING'));
  });
  s.destroy();
  return bytes;
}

interface StallResult {
  oneReaderMs: number;
  oneReaderStallMs: number;
  nonReadersStallMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
}

async function stall(server: StartedServer): Promise<StallResult> {
  const pid = server.child.pid!;
  await seed(server.port);
  await sleep(2000);
  const rssBefore = rssBytes(pid);
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);

  let probe = await PingProbe.start(server.port);
  await sleep(200);
  const t0 = performance.now();
  await readAll(server.port);
  const oneReaderMs = performance.now() - t0;
  await sleep(200);
  const oneReaderStallMs = await probe.stop();

  probe = await PingProbe.start(server.port);
  await sleep(200);
  const idle: net.Socket[] = [];
  for (let i = 0; i < READERS; i++) {
    const s = await connectRaw(server.port);
    s.pause(); // never reads: the server keeps the whole reply in its output buffer
    s.write(resp('XRANGE', 's', '-', '+'));
    idle.push(s);
  }
  // Until the server has answered all of them: the probe's PINGs are answered again quickly.
  const started = performance.now();
  let quiet = 0;
  while (performance.now() - started < 60_000 && quiet < 3) {
    const before = probe.longest;
    await sleep(1000);
    quiet = probe.longest === before && performance.now() - started > 2000 ? quiet + 1 : 0;
  }
  const nonReadersStallMs = await probe.stop();
  for (const s of idle) s.destroy();
  await sleep(5000);
  clearInterval(sampler);
  return {
    oneReaderMs,
    oneReaderStallMs,
    nonReadersStallMs,
    rssBeforeMb: rssBefore / 2 ** 20,
    rssPeakMb: peak / 2 ** 20,
    rssAfterMb: rssBytes(pid) / 2 ** 20,
  };
}

/** Spawns a server on `dir`, resolves with the ms until its first PONG. */
async function firstPong(spawnIt: () => ChildProcess, port: number): Promise<{ ms: number; child: ChildProcess }> {
  const t0 = performance.now();
  const child = spawnIt();
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => s.write('PING\r\n'));
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return { ms: performance.now() - t0, child };
    await sleep(2);
  }
}

async function restart(kind: 'sluice' | 'redis'): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'stalls-'));
  const port = await freePort();
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const spawnIt = () =>
    kind === 'sluice'
      ? spawn(process.execPath, [...sluiceNodeFlags(), main, 'server', '--port', String(port), '--dir', dir], { stdio: 'ignore' })
      : spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'yes', '--dir', dir], { stdio: 'ignore' });
  const first = await firstPong(spawnIt, port);
  const s = await connectRaw(port);
  await new Promise<void>((resolve) => {
    let n = 0;
    s.on('data', (d: Buffer) => {
      for (let i = 0; i < d.length; i++) if (d[i] === 0x24) n++;
      if (n >= 1000) resolve();
    });
    s.write(resp('XADD', 's', '*', 'f', 'v').repeat(1000));
  });
  s.destroy();
  await sleep(1200); // everysec: the AOF holds them
  const killed = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  await killed;
  const second = await firstPong(spawnIt, port);
  const exited = new Promise((r) => second.child.once('exit', r));
  second.child.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
  return second.ms;
}

interface LoopResult {
  p50: number;
  p99: number;
  adds: number;
  cpuSec: number;
  /** Read and write system calls of the server (syscr, syscw of /proc/<pid>/io). */
  reads: number;
  writes: number;
}

/** The process's read and write system calls so far (NaN where /proc/<pid>/io is not readable). */
function syscalls(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'latin1');
    return { reads: Number(/syscr: (\d+)/.exec(io)![1]), writes: Number(/syscw: (\d+)/.exec(io)![1]) };
  } catch {
    return { reads: NaN, writes: NaN };
  }
}

async function loop(server: StartedServer): Promise<LoopResult> {
  const pid = server.child.pid!;
  const admin = new Redis({ port: server.port, lazyConnect: true });
  await admin.connect();
  await admin.del('q');
  await admin.xgroup('CREATE', 'q', 'g', '$', 'MKSTREAM');
  const half = LOOP_CLIENTS >> 1;
  const clients: Redis[] = [];
  for (let i = 0; i < LOOP_CLIENTS; i++) {
    const c = new Redis({ port: server.port, lazyConnect: true, maxRetriesPerRequest: 0 });
    await c.connect();
    clients.push(c);
  }
  let running = true;
  const latencies: number[] = [];
  const cpu0 = cpuSeconds(pid);
  const io0 = syscalls(pid);
  const producers = clients.slice(0, half).map(async (c) => {
    while (running) {
      const t0 = performance.now();
      await c.xadd('q', '*', 'f', 'v');
      latencies.push(performance.now() - t0);
    }
  });
  const consumers = clients.slice(half).map(async (c, i) => {
    while (running) {
      const got = (await c.xreadgroup('GROUP', 'g', `c${i}`, 'COUNT', 10, 'BLOCK', 1000, 'STREAMS', 'q', '>')) as
        | [string, [string, string[]][]][]
        | null;
      if (got !== null && got[0]![1].length > 0) await c.xack('q', 'g', ...got[0]![1].map((e) => e[0]));
    }
  });
  await sleep(LOOP_SECONDS * 1000);
  running = false;
  const cpuSec = cpuSeconds(pid) - cpu0;
  const io = syscalls(pid);
  await Promise.all([...producers, ...consumers]);
  for (const c of clients) c.disconnect();
  admin.disconnect();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { p50: q(0.5), p99: q(0.99), adds: latencies.length, cpuSec, reads: io.reads - io0.reads, writes: io.writes - io0.writes };
}

type Row = Record<string, number>;
const results: Record<'sluice' | 'redis', Row[]> = { sluice: [], redis: [] };

for (let round = 1; round <= ROUNDS; round++) {
  for (const kind of ['sluice', 'redis'] as const) {
    const row: Row = {};
    if (!SKIP.has('stall')) {
      const server = kind === 'sluice' ? await startSluice() : await startRedis();
      const r = await stall(server);
      await server.stop();
      Object.assign(row, {
        'XRANGE read ms': r.oneReaderMs,
        'PING stall, 1 reader ms': r.oneReaderStallMs,
        [`PING stall, ${READERS} non-readers ms`]: r.nonReadersStallMs,
        'RSS before MB': r.rssBeforeMb,
        'RSS peak MB': r.rssPeakMb,
        'RSS 5 s after MB': r.rssAfterMb,
      });
    }
    if (!SKIP.has('restart')) {
      const times = [await restart(kind), await restart(kind)];
      row['restart to PONG ms (best of 2)'] = Math.min(...times);
    }
    if (!SKIP.has('loop')) {
      const server = kind === 'sluice' ? await startSluice() : await startRedis();
      const r = await loop(server);
      await server.stop();
      Object.assign(row, {
        'loop XADD p50 ms': r.p50,
        'loop XADD p99 ms': r.p99,
        'loop XADDs/s': r.adds / LOOP_SECONDS,
        'loop server CPU µs per XADD': (r.cpuSec * 1e6) / r.adds,
        'loop server reads per XADD': r.reads / r.adds,
        'loop server writes per XADD': r.writes / r.adds,
      });
    }
    results[kind].push(row);
    console.log(`round ${round} ${kind}: ${JSON.stringify(row, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v))}`);
  }
}

const fmt = (xs: number[]) => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  return lo === hi ? f(lo) : `${f(lo)}-${f(hi)}`;
};
console.log('\n| measure | sluice | redis | sluice/Redis |');
console.log('|---|---|---|---|');
for (const key of Object.keys(results.sluice[0] ?? {})) {
  const s = results.sluice.map((r) => r[key]!);
  const r = results.redis.map((row) => row[key]!);
  const ratios = s.map((x, i) => x / r[i]!);
  console.log(`| ${key} | ${fmt(s)} | ${fmt(r)} | ${fmt(ratios)}x |`);
}
