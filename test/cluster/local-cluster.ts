// A throwaway Redis Cluster for tests and benchmarks: N masters with R replicas each, from the
// installed redis-server, on free loopback ports in a temp dir. Started with
// `redis-cli --cluster create`, ready once every node reports cluster_state:ok and agrees on
// the slot map. stop() kills every process it started (by pid) and removes the dir.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  process: ChildProcess;
  args: string[];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A port p whose cluster bus port p+10000 is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p + 10000 > 65535 || taken.has(p) || taken.has(p + 10000)) continue;
    const bus = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(p + 10000, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (bus) {
      taken.add(p).add(p + 10000);
      return p;
    }
  }
}

export async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class LocalCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: ClusterNode[],
  ) {}

  get ports(): number[] {
    return this.nodes.map((n) => n.port);
  }

  /** `redis+cluster://` URL naming every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
  }

  static async start(options: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {}): Promise<LocalCluster> {
    const masters = options.masters ?? 3;
    const replicas = options.replicas ?? 1;
    const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-'));
    const taken = new Set<number>();
    const nodes: ClusterNode[] = [];
    const cluster = new LocalCluster(dir, nodes);
    try {
      for (let i = 0; i < masters * (1 + replicas); i++) {
        const port = await freeClusterPort(taken);
        const args = [
          '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
          '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
          // Short node timeout: a killed master is failed over in a couple of seconds.
          '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 1500),
          '--save', '', '--appendonly', 'no', '--logfile', `redis-${port}.log`,
        ];
        nodes.push({ port, args, process: spawn('redis-server', args, { stdio: 'ignore' }) });
      }
      for (const n of nodes) await cluster.waitFor(n.port, async () => (await cli(n.port, 'PING')).trim() === 'PONG');
      await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 60_000 });
      await cluster.waitHealthy(masters);
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  async waitFor(port: number, ok: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if (await ok()) return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`node ${port}: condition not met within ${timeoutMs}ms`);
      await sleep(100);
    }
  }

  /** Ports of the nodes not killed by this harness. */
  get livePorts(): number[] {
    return this.nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null).map((n) => n.port);
  }

  /**
   * Every live node says cluster_state:ok and sees `masters` masters serving all slots, and
   * every live replica has finished its sync (else WAIT and failover have no replica to count).
   */
  async waitHealthy(masters: number, timeoutMs = 30_000): Promise<void> {
    for (const n of this.nodes) {
      if (n.process.exitCode !== null || n.process.signalCode !== null) continue;
      await this.waitFor(n.port, async () => {
        const info = await cli(n.port, 'CLUSTER', 'INFO');
        if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
        if ((await this.masterPorts(n.port)).length !== masters) return false;
        const repl = await cli(n.port, 'INFO', 'replication');
        return repl.includes('role:master') || repl.includes('master_link_status:up');
      }, timeoutMs);
    }
  }

  /** Ports of the masters serving slots, as node `via` sees them, ordered by first slot. */
  async masterPorts(via = this.livePorts[0]!): Promise<number[]> {
    const out = await cli(via, 'CLUSTER', 'NODES');
    const rows = out.trim().split('\n').map((l) => l.split(' '));
    return rows
      .filter((r) => r[2]!.includes('master') && !r[2]!.includes('fail') && r.length > 8)
      .map((r) => ({ port: Number(r[1]!.split(':')[1]!.split('@')[0]), first: Number(r[8]!.split('-')[0]) }))
      .sort((a, b) => a.first - b.first)
      .map((m) => m.port);
  }

  /** The port of the master serving `key`. */
  async masterOf(key: string): Promise<number> {
    const via = this.livePorts[0]!;
    const slot = Number((await cli(via, 'CLUSTER', 'KEYSLOT', key)).trim());
    const out = await cli(via, 'CLUSTER', 'SLOTS');
    // redis-cli prints nested arrays one value per line: start, end, ip, port, id, ...
    const lines = out.trim().split('\n');
    for (let i = 0; i + 3 < lines.length; i++) {
      const start = Number(lines[i]);
      const end = Number(lines[i + 1]);
      if (Number.isInteger(start) && Number.isInteger(end) && lines[i + 2] === '127.0.0.1' && slot >= start && slot <= end) return Number(lines[i + 3]);
    }
    throw new Error(`no master for slot ${slot}`);
  }

  node(port: number): ClusterNode {
    const n = this.nodes.find((x) => x.port === port);
    if (!n) throw new Error(`no node on port ${port}`);
    return n;
  }

  /** SIGKILL one node (no shutdown, no final replication). */
  async kill(port: number): Promise<void> {
    const n = this.node(port);
    if (n.process.exitCode !== null || n.process.signalCode !== null) return;
    const exited = new Promise((r) => n.process.once('exit', r));
    n.process.kill('SIGKILL');
    await exited;
  }

  /**
   * Starts a killed node again on its port with its nodes.conf: it rejoins the cluster and, its
   * slots having been taken over, becomes a replica of the node that replaced it. Resolves once
   * its replication link is up.
   */
  async restart(port: number): Promise<void> {
    const n = this.node(port);
    n.process = spawn('redis-server', n.args, { stdio: 'ignore' });
    await this.waitFor(port, async () => /master_link_status:up/.test(await cli(port, 'INFO', 'replication')), 30_000);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.kill(n.port).catch(() => {})));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
