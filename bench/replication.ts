// Replication figures, sluice vs redis-server 7.0 in the same run (issue 29 §6):
//   node dist/bench/replication.js [--parts load,sync] [--requests 500000] [--clients 50]
//     [--rounds 3] [--warmup 1000000] [--entries 1000000] [--sync-rounds 1]
// load: redis-benchmark `XADD s * f v` with -P 16 on a primary with one replica attached,
//   sluice primary + sluice replica against redis primary + redis replica: requests/s and their
//   ratio (target >= 0.8), the primary's CPU per request, the replica's lag in bytes of the
//   replication stream (primary master_repl_offset - replica offset, both read at once every
//   50 ms during the load: median and max), and the time the replica takes to catch up after it.
//   The same load on a primary of each kind with no replica gives the cost of the replica:
//   ops/s with one replica / ops/s without, sluice's beside redis's, and the CPU per write of the
//   primary alone, with its replica, and of the replica.
//   Every server (primaries alone and pairs) first takes --warmup requests untimed: the figures
//   are a running server's, not a fresh Node process's still compiling its hot path (sluice's
//   ops/s rose round by round without it: 570k, 699k, 787k alone in one run).
// sync: a full sync of a stream of --entries entries (2 fields each, a consumer group with
//   10,000 pending) in every direction, sluice->sluice, sluice->redis, redis->sluice and
//   redis->redis: the time from REPLICAOF to master_link_status:up with equal offsets (target:
//   <= 2x redis->redis; --directions sluice-sluice,redis-sluice picks some). Meanwhile the primary's memory is sampled every 10 ms: the backlog
//   (INFO memory mem_replication_backlog), replicas' output buffers (mem_clients_slaves, and
//   CLIENT LIST TYPE replica omem) and used_memory; the peaks are printed, and each side's
//   main-thread CPU during the sync.
// Both parts also print each round's figures (ratios per round, sluice's run against redis's
// right after it): the spread, on a shared machine, beside the medians.
// Primaries run with repl-diskless-sync yes and repl-diskless-sync-delay 0 (Redis's default
// delay of 5 s would be most of the time measured); redis replicas keep repl-diskless-load's
// default (disabled: the RDB goes through a file in a temporary dir), as a deployment would.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { cpuSeconds, threadCpuSeconds } from './proc-stats.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

const run = promisify(execFile);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const parts = arg('parts', 'load,sync').split(',');
const requests = Number(arg('requests', '500000'));
const warmup = Number(arg('warmup', '1000000'));
const clients = arg('clients', '50');
const rounds = Number(arg('rounds', '3'));
const entries = Number(arg('entries', '1000000'));
const syncRounds = Number(arg('sync-rounds', '1'));
const directionsArg = arg('directions', 'sluice-sluice,sluice-redis,redis-sluice,redis-redis');

type Kind = 'sluice' | 'redis';
const dirs: string[] = [];

/** A server of either kind; redis-server gets a temporary dir (a replica writes its RDB there). */
async function start(kind: Kind, replicaOf?: number): Promise<StartedServer> {
  if (kind === 'sluice') return startSluice(replicaOf === undefined ? [] : ['--replicaof', `127.0.0.1 ${replicaOf}`]);
  const dir = mkdtempSync(join(tmpdir(), 'sluice-repl-bench-'));
  dirs.push(dir);
  return startRedis(['--dir', dir, ...(replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)])]);
}

async function info(c: Redis, section: string): Promise<Record<string, string>> {
  const text = (await c.info(section)) as string;
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** The replica's processed offset (slave_repl_offset; master_repl_offset on a replica is the same). */
async function replicaOffset(replica: Redis): Promise<{ up: boolean; offset: number }> {
  const r = await info(replica, 'replication');
  return { up: r['master_link_status'] === 'up', offset: Number(r['slave_repl_offset'] ?? -1) };
}

async function primaryOffset(primary: Redis): Promise<number> {
  return Number((await info(primary, 'replication'))['master_repl_offset']);
}

/** Resolves with the ms until the replica's link is up and its offset equals the primary's. */
async function untilInSync(primary: Redis, replica: Redis, since: number, everyMs: number, sample?: () => Promise<void>): Promise<number> {
  for (;;) {
    const [p, r] = await Promise.all([primaryOffset(primary), replicaOffset(replica)]);
    if (r.up && r.offset === p) return performance.now() - since;
    if (performance.now() - since > 300_000) throw new Error(`the replica never caught up: offset ${r.offset} (link ${r.up ? 'up' : 'down'}), primary ${p}`);
    if (sample !== undefined) await sample();
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- load: XADD -P 16 with one replica ------------------------------------------------------------

interface LoadResult {
  rps: number;
  /** Primary CPU µs per request. */
  primaryCpuUs: number;
  replicaCpuUs: number;
  lagMedian: number;
  lagMax: number;
  catchUpMs: number;
}

async function loadRound(pair: { primary: StartedServer; replica: StartedServer }): Promise<LoadResult> {
  const p = new Redis({ port: pair.primary.port });
  const r = new Redis({ port: pair.replica.port });
  try {
    await p.del('s');
    await untilInSync(p, r, performance.now(), 5);
    const lags: number[] = [];
    let done = false;
    const sampler = (async () => {
      while (!done) {
        const [po, ro] = await Promise.all([primaryOffset(p), replicaOffset(r)]);
        lags.push(Math.max(0, po - ro.offset));
        await sleep(50);
      }
    })();
    const pcpu = cpuSeconds(pair.primary.child.pid!);
    const rcpu = cpuSeconds(pair.replica.child.pid!);
    const args = ['-p', String(pair.primary.port), '-q', '-c', clients, '-n', String(requests), '-P', '16', 'XADD', 's', '*', 'f', 'v'];
    const { stdout } = await run('redis-benchmark', args, { maxBuffer: 16 << 20 });
    const end = performance.now();
    const primaryCpu = cpuSeconds(pair.primary.child.pid!) - pcpu;
    done = true;
    await sampler;
    const catchUpMs = await untilInSync(p, r, end, 1);
    const replicaCpu = cpuSeconds(pair.replica.child.pid!) - rcpu;
    const m = /([^\r\n]+): ([\d.]+) requests per second/.exec(stdout);
    if (m === null) throw new Error(`no result from redis-benchmark ${args.join(' ')}: ${stdout}`);
    const [plen, rlen] = await Promise.all([p.xlen('s'), r.xlen('s')]);
    if (plen !== rlen) throw new Error(`replica has ${rlen} entries, primary ${plen}`);
    return {
      rps: Number(m[2]),
      primaryCpuUs: (primaryCpu * 1e6) / requests,
      replicaCpuUs: (replicaCpu * 1e6) / requests,
      lagMedian: median(lags.length > 0 ? lags : [0]),
      lagMax: Math.max(0, ...lags),
      catchUpMs,
    };
  } finally {
    p.disconnect();
    r.disconnect();
  }
}

/** redis-benchmark's XADD load on a server, its stream emptied first: requests/s. */
async function xaddLoad(server: StartedServer, n: number): Promise<number> {
  const c = new Redis({ port: server.port });
  try {
    await c.del('s');
  } finally {
    c.disconnect();
  }
  const args = ['-p', String(server.port), '-q', '-c', clients, '-n', String(n), '-P', '16', 'XADD', 's', '*', 'f', 'v'];
  const { stdout } = await run('redis-benchmark', args, { maxBuffer: 16 << 20 });
  const m = /([^\r\n]+): ([\d.]+) requests per second/.exec(stdout);
  if (m === null) throw new Error(`no result from redis-benchmark ${args.join(' ')}: ${stdout}`);
  return Number(m[2]);
}

/** redis-benchmark's XADD load on a primary with no replica: requests/s and CPU µs per request. */
async function aloneRound(server: StartedServer): Promise<{ rps: number; cpuUs: number }> {
  const cpu = cpuSeconds(server.child.pid!);
  const rps = await xaddLoad(server, requests);
  const cpuUs = ((cpuSeconds(server.child.pid!) - cpu) * 1e6) / requests;
  return { rps, cpuUs };
}

async function loadPart(): Promise<void> {
  const pairs = new Map<Kind, { primary: StartedServer; replica: StartedServer }>();
  const alone = new Map<Kind, StartedServer>();
  try {
    for (const kind of ['sluice', 'redis'] as const) alone.set(kind, await start(kind));
    for (const kind of ['sluice', 'redis'] as const) {
      const primary = await start(kind);
      const replica = await start(kind, primary.port);
      pairs.set(kind, { primary, replica });
      const p = new Redis({ port: primary.port });
      const r = new Redis({ port: replica.port });
      await untilInSync(p, r, performance.now(), 20);
      p.disconnect();
      r.disconnect();
    }
    if (warmup > 0) {
      for (const server of [...alone.values(), ...[...pairs.values()].map((pair) => pair.primary)]) await xaddLoad(server, warmup);
      for (const pair of pairs.values()) {
        const p = new Redis({ port: pair.primary.port });
        const r = new Redis({ port: pair.replica.port });
        await untilInSync(p, r, performance.now(), 20);
        p.disconnect();
        r.disconnect();
      }
    }
    const results = new Map<Kind, LoadResult[]>([['sluice', []], ['redis', []]]);
    const aloneRps = new Map<Kind, number[]>([['sluice', []], ['redis', []]]);
    const aloneCpu = new Map<Kind, number[]>([['sluice', []], ['redis', []]]);
    for (let round = 0; round < rounds; round++) {
      // Alternate, so a noisy machine affects both alike.
      for (const kind of ['sluice', 'redis'] as const) {
        results.get(kind)!.push(await loadRound(pairs.get(kind)!));
        const a = await aloneRound(alone.get(kind)!);
        aloneRps.get(kind)!.push(a.rps);
        aloneCpu.get(kind)!.push(a.cpuUs);
      }
    }
    const med = (kind: Kind, f: (x: LoadResult) => number) => median(results.get(kind)!.map(f));
    console.log(`\nXADD s * f v, redis-benchmark -c ${clients} -n ${requests} -P 16 (after ${warmup} untimed), primary + 1 replica; median of ${rounds} round(s)`);
    console.log(
      `${'pair'.padEnd(16)}${'ops/s'.padStart(10)}${'p cpu µs'.padStart(10)}${'r cpu µs'.padStart(10)}` +
        `${'lag med B'.padStart(11)}${'lag max B'.padStart(11)}${'catch-up ms'.padStart(13)}`,
    );
    for (const kind of ['sluice', 'redis'] as const) {
      console.log(
        `${`${kind}->${kind}`.padEnd(16)}${med(kind, (x) => x.rps).toFixed(0).padStart(10)}` +
          `${med(kind, (x) => x.primaryCpuUs).toFixed(2).padStart(10)}${med(kind, (x) => x.replicaCpuUs).toFixed(2).padStart(10)}` +
          `${med(kind, (x) => x.lagMedian).toFixed(0).padStart(11)}${med(kind, (x) => x.lagMax).toFixed(0).padStart(11)}` +
          `${med(kind, (x) => x.catchUpMs).toFixed(1).padStart(13)}`,
      );
    }
    const ratio = med('sluice', (x) => x.rps) / med('redis', (x) => x.rps);
    console.log(`ops/s ratio sluice/redis: ${ratio.toFixed(2)} (target >= 0.80)`);
    // The spread on a shared machine: each round's ratio (its sluice run against the redis run
    // right after it), and each kind's ops/s per round.
    const perRound = results.get('sluice')!.map((x, i) => x.rps / results.get('redis')![i]!.rps);
    console.log(`per round: ratio ${perRound.map((r) => r.toFixed(2)).join(' ')} (min ${Math.min(...perRound).toFixed(2)}, max ${Math.max(...perRound).toFixed(2)})`);
    for (const kind of ['sluice', 'redis'] as const) {
      console.log(`  ${kind} ops/s with replica: ${results.get(kind)!.map((x) => x.rps.toFixed(0)).join(' ')}; alone: ${aloneRps.get(kind)!.map((x) => x.toFixed(0)).join(' ')}`);
    }
    // What one replica costs each kind: ops/s with it over ops/s of the same kind without.
    const cost = (kind: Kind) => med(kind, (x) => x.rps) / median(aloneRps.get(kind)!);
    for (const kind of ['sluice', 'redis'] as const) {
      console.log(`${kind} primary alone: ${median(aloneRps.get(kind)!).toFixed(0)} ops/s; with one replica / alone: ${cost(kind).toFixed(2)}`);
    }
    console.log(`replica cost ratio (sluice with/alone) / (redis with/alone): ${(cost('sluice') / cost('redis')).toFixed(2)} (1.00: a replica costs sluice what it costs redis)`);
    // CPU is steadier than ops/s on a shared machine: the primary's µs per write with a replica
    // beside its µs alone (the difference is what feeding the replica costs it per write), and
    // the replica's µs per write applied; on a 2-core machine both come out of the same cores.
    for (const kind of ['sluice', 'redis'] as const) {
      const withCpu = med(kind, (x) => x.primaryCpuUs);
      const aloneUs = median(aloneCpu.get(kind)!);
      console.log(
        `${kind} CPU per write: primary alone ${aloneUs.toFixed(2)} µs, with a replica ${withCpu.toFixed(2)} µs (+${(withCpu - aloneUs).toFixed(2)}), replica ${med(kind, (x) => x.replicaCpuUs).toFixed(2)} µs`,
      );
    }
  } finally {
    for (const server of alone.values()) await server.stop();
    for (const pair of pairs.values()) {
      await pair.replica.stop();
      await pair.primary.stop();
    }
  }
}

// --- sync: a full sync of 1M entries in every direction ------------------------------------------

async function fill(port: number): Promise<void> {
  const c = new Redis({ port });
  for (let i = 0; i < entries; i += 1000) {
    const p = c.pipeline();
    for (let j = i; j < Math.min(entries, i + 1000); j++) p.xadd('stream', `${j + 1}-0`, 'n', String(j), 'payload', `order-${j}`);
    await p.exec();
  }
  await c.xgroup('CREATE', 'stream', 'g', '0');
  await c.xreadgroup('GROUP', 'g', 'c', 'COUNT', '10000', 'STREAMS', 'stream', '>');
  await c.config('SET', 'repl-diskless-sync', 'yes');
  await c.config('SET', 'repl-diskless-sync-delay', '0');
  c.disconnect();
}

interface SyncResult {
  ms: number;
  /** Main-thread CPU ms of the primary and of the replica from REPLICAOF to in sync. */
  primaryCpuMs: number;
  replicaCpuMs: number;
  backlogPeak: number;
  slavesPeak: number;
  omemPeak: number;
  usedGrowth: number;
}

async function syncOnce(from: Kind, primary: StartedServer, to: Kind): Promise<SyncResult> {
  const replica = await start(to);
  const p = new Redis({ port: primary.port });
  const r = new Redis({ port: replica.port });
  const usedBefore = Number((await info(p, 'memory'))['used_memory']);
  const peaks = { backlogPeak: 0, slavesPeak: 0, omemPeak: 0, usedGrowth: 0 };
  const sample = async (): Promise<void> => {
    const [mem, list] = await Promise.all([info(p, 'memory'), p.call('CLIENT', 'LIST', 'TYPE', 'replica') as Promise<string>]);
    peaks.backlogPeak = Math.max(peaks.backlogPeak, Number(mem['mem_replication_backlog']));
    peaks.slavesPeak = Math.max(peaks.slavesPeak, Number(mem['mem_clients_slaves']));
    peaks.usedGrowth = Math.max(peaks.usedGrowth, Number(mem['used_memory']) - usedBefore);
    for (const m of list.matchAll(/omem=(\d+)/g)) peaks.omemPeak = Math.max(peaks.omemPeak, Number(m[1]));
  };
  try {
    const pcpu = threadCpuSeconds(primary.child.pid!).main;
    const rcpu = threadCpuSeconds(replica.child.pid!).main;
    const t0 = performance.now();
    await r.replicaof('127.0.0.1', primary.port);
    const ms = await untilInSync(p, r, t0, 10, sample);
    const primaryCpuMs = (threadCpuSeconds(primary.child.pid!).main - pcpu) * 1000;
    const replicaCpuMs = (threadCpuSeconds(replica.child.pid!).main - rcpu) * 1000;
    await sample();
    const len = await r.xlen('stream');
    if (len !== entries) throw new Error(`${from}->${to}: replica has ${len} entries of ${entries}`);
    return { ms, primaryCpuMs, replicaCpuMs, ...peaks };
  } finally {
    p.disconnect();
    r.disconnect();
    await replica.stop();
  }
}

async function syncPart(): Promise<void> {
  const primaries = new Map<Kind, StartedServer>();
  try {
    for (const kind of ['sluice', 'redis'] as const) {
      const primary = await start(kind);
      primaries.set(kind, primary);
      await fill(primary.port);
    }
    // redis->redis always runs: the others are measured against it.
    const wanted = new Set([...directionsArg.split(','), 'redis-redis']);
    const directions = ([['sluice', 'sluice'], ['sluice', 'redis'], ['redis', 'sluice'], ['redis', 'redis']] as Array<[Kind, Kind]>).filter(([a, b]) => wanted.has(`${a}-${b}`));
    const results = new Map<string, SyncResult[]>(directions.map(([a, b]) => [`${a}->${b}`, []]));
    for (let round = 0; round < syncRounds; round++) {
      for (const [from, to] of directions) results.get(`${from}->${to}`)!.push(await syncOnce(from, primaries.get(from)!, to));
    }
    const base = median(results.get('redis->redis')!.map((x) => x.ms));
    console.log(`\nfull sync of ${entries} stream entries (+ a group with 10,000 pending), REPLICAOF to link up and equal offsets; median of ${syncRounds} round(s)`);
    console.log('memory on the primary during the sync (peaks): backlog = mem_replication_backlog, slaves = mem_clients_slaves, omem = CLIENT LIST omem, used+ = used_memory growth');
    console.log(
      `${'direction'.padEnd(16)}${'ms'.padStart(9)}${'vs r->r'.padStart(9)}${'backlog'.padStart(11)}` +
        `${'slaves'.padStart(11)}${'omem'.padStart(11)}${'used+'.padStart(11)}`,
    );
    for (const [name, xs] of results) {
      const med = (f: (x: SyncResult) => number) => median(xs.map(f));
      console.log(
        `${name.padEnd(16)}${med((x) => x.ms).toFixed(0).padStart(9)}${(med((x) => x.ms) / base).toFixed(2).padStart(9)}` +
          `${med((x) => x.backlogPeak).toFixed(0).padStart(11)}${med((x) => x.slavesPeak).toFixed(0).padStart(11)}` +
          `${med((x) => x.omemPeak).toFixed(0).padStart(11)}${med((x) => x.usedGrowth).toFixed(0).padStart(11)}`,
      );
    }
    console.log('target: every direction <= 2.00x redis->redis');
    // CPU, steadier than wall time on a shared machine: each side's main thread during the sync
    // (a redis primary's is its parent's only: the RDB is written by a forked child, not counted).
    for (const [name, xs] of results) {
      const med = (f: (x: SyncResult) => number) => median(xs.map(f));
      console.log(`  ${name.padEnd(16)} main-thread CPU ms: primary ${med((x) => x.primaryCpuMs).toFixed(0)}, replica ${med((x) => x.replicaCpuMs).toFixed(0)}`);
    }
    // The spread: each round's time over the redis->redis time of the same round.
    const baseRounds = results.get('redis->redis')!.map((x) => x.ms);
    for (const [name, xs] of results) {
      const ratios = xs.map((x, i) => x.ms / baseRounds[i]!);
      console.log(`  ${name.padEnd(16)} ms per round ${xs.map((x) => x.ms.toFixed(0)).join(' ')}; vs r->r ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
    }
  } finally {
    for (const primary of primaries.values()) await primary.stop();
  }
}

async function main(): Promise<void> {
  try {
    if (parts.includes('load')) await loadPart();
    if (parts.includes('sync')) await syncPart();
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
