// `sluice demo`: the kill -9 proof. Seeds N orders, starts worker *processes*, SIGKILLs one
// while it holds entries, lets the others claim them, and checks that every order got exactly
// one receipt and nothing is left pending:
//
//   receipts  HLEN of the receipt hash (HSETNX per order: idempotent under redelivery)
//   distinct  SCARD of the set of order ids handlers saw
//   pending   XPENDING count of the group
//
// Without --url it serves sluice's own engine to the worker processes: a `sluice server` child
// with --dir in a temp directory (AOF on, removed at the end), on --port or a free port.
// The same command with `--role worker` is the worker child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, Option } from 'commander';
import { connect } from '../client/connect.js';
import type { Connection, Value } from '../client/connection.js';
import { Producer } from '../broker/producer.js';
import { Worker } from '../broker/worker.js';
import { progress } from './output.js';

const STREAM = 'demo:orders';
const GROUP = 'fulfilment';
const RECEIPTS = 'demo:receipts';
const HANDLED = 'demo:handled';
const HANDLED_COUNT = 'demo:handled-count';
const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

interface DemoOptions {
  orders: string;
  workers: string;
  url?: string;
  port?: string;
  concurrency: string;
  claimIdleMs: string;
  timeoutMs: string;
  role?: string;
  consumer?: string;
}

interface Order {
  orderId: string;
  customer: string;
  amount: number;
}

export function register(program: Command): void {
  program
    .command('demo')
    .description('kill -9 proof: seed orders, run worker processes, SIGKILL one, recover by claim')
    .option('--orders <n>', 'orders to seed', '10000')
    .option('--workers <n>', 'worker processes', '3')
    .option('--url <url>', 'redis:// URL of Redis, Valkey or sluice server (default: start a sluice server)')
    .option('--port <port>', 'port of the sluice server the demo starts without --url (default: a free port)')
    .option('--concurrency <n>', 'handlers per worker process', '10')
    .option('--claim-idle-ms <ms>', 'idle time after which entries of a dead worker are claimed', '2000')
    .option('--timeout-ms <ms>', 'give up (exit 1) after this long', '300000')
    .addOption(new Option('--role <role>').hideHelp())
    .addOption(new Option('--consumer <name>').hideHelp())
    .action(async (opts: DemoOptions) => {
      if (opts.role === 'worker') await runWorker(opts);
      else process.exitCode = (await runDemo(opts)) ? 0 : 1;
    });
}

function positive(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error('--port must be an integer from 1 to 65535');
  return n;
}

// --- worker child ---------------------------------------------------------------------------

async function runWorker(opts: DemoOptions): Promise<void> {
  const conn = await connect(opts.url!);
  const worker = new Worker<Order>(
    conn,
    {
      stream: STREAM,
      group: GROUP,
      consumer: opts.consumer,
      concurrency: positive(opts.concurrency, 'concurrency'),
      claimIdleMs: positive(opts.claimIdleMs, 'claim-idle-ms'),
      claimIntervalMs: 200,
      maxDeliveries: 10,
      handleSignals: true,
    },
    async (job) => {
      // Simulated work, then the idempotent receipt: a redelivered order writes nothing new.
      await new Promise((r) => setTimeout(r, 2 + Math.floor(Math.random() * 8)));
      const replies = await conn.pipeline([
        ['HSETNX', RECEIPTS, job.payload.orderId, worker.consumer],
        ['SADD', HANDLED, job.payload.orderId],
        ['INCR', HANDLED_COUNT],
      ]);
      const failed = replies.find((r) => r instanceof Error);
      if (failed) throw failed;
    },
  );
  worker.on('error', (err) => console.error(`${worker.consumer}: ${(err as Error).message}`));
  await worker.start();
  console.log(`worker ${worker.consumer} ready`);
  await worker.run(); // until SIGTERM: stop reading, finish in-flight, ack
  await conn.close();
  process.exit(0);
}

// --- the scenario -----------------------------------------------------------------------------

async function startServer(dir: string, port: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN, 'server', '--port', String(port), '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/ready on ([^\s:]+):(\d+)/);
      if (m) resolve(`redis://${m[1]}:${m[2]}`);
    });
    child.once('exit', (code) => reject(new Error(`sluice server exited with ${code}`)));
  });
  child.stdout!.resume();
  return { child, url };
}

/** Starts a worker child (registered in `children` at once, so a failure elsewhere reaps it). */
function spawnWorker(url: string, consumer: string, opts: DemoOptions, children: ChildProcess[]): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [MAIN, 'demo', '--role', 'worker', '--url', url, '--consumer', consumer, '--concurrency', opts.concurrency, '--claim-idle-ms', opts.claimIdleMs],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children[Number(consumer.split('-')[1]) - 1] = child;
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code, signal) => reject(new Error(`${consumer} exited early (${code ?? signal})`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** XPENDING summary → total and per-consumer counts. */
async function pendingSummary(conn: Connection): Promise<{ total: number; byConsumer: Map<string, number> }> {
  const [count, , , consumers] = (await conn.call('XPENDING', STREAM, GROUP)) as [number, Value, Value, Value[][] | null];
  const byConsumer = new Map<string, number>();
  for (const [name, n] of consumers ?? []) byConsumer.set(String(name), Number(n));
  return { total: Number(count), byConsumer };
}

async function runDemo(opts: DemoOptions): Promise<boolean> {
  const orders = positive(opts.orders, 'orders');
  const workerCount = positive(opts.workers, 'workers');
  const timeoutMs = positive(opts.timeoutMs, 'timeout-ms');
  const concurrency = positive(opts.concurrency, 'concurrency');
  if (opts.url !== undefined && opts.port !== undefined) throw new Error('--port is the port of the server the demo starts: not with --url');
  const port = opts.port === undefined ? 0 : portNumber(opts.port);
  let server: { child: ChildProcess; url: string } | null = null;
  let dir: string | null = null;
  if (opts.url === undefined) {
    dir = mkdtempSync(join(tmpdir(), 'sluice-demo-'));
    server = await startServer(dir, port);
    console.log(`sluice server on ${server.url} (AOF in ${dir})`);
  }
  const url = opts.url ?? server!.url;
  const conn = await connect(url);
  const children: ChildProcess[] = [];
  try {
    await conn.call('DEL', STREAM, RECEIPTS, HANDLED, HANDLED_COUNT);
    await conn.call('XGROUP', 'CREATE', STREAM, GROUP, '0', 'MKSTREAM');
    // Workers first, then the orders: all of them compete from the first entry on, so the one
    // we kill is surely holding entries mid-flight.
    await Promise.all(Array.from({ length: workerCount }, (_, i) => spawnWorker(url, `worker-${i + 1}`, opts, children)));
    console.log(`started ${workerCount} worker processes (pids ${children.map((c) => c.pid).join(', ')})`);

    const producer = new Producer(conn, { stream: STREAM });
    for (let i = 0; i < orders; i += 1000) {
      const batch: Order[] = [];
      for (let j = i; j < Math.min(orders, i + 1000); j++) batch.push({ orderId: `order-${j}`, customer: `customer-${j % 97}`, amount: (j * 37) % 500 });
      await producer.addMany(batch);
    }
    console.log(`seeded ${orders} orders into ${STREAM}`);

    const victim = workerCount > 1 ? children[0]! : null;
    let killed: { held: number } | null = null;
    let recovered = false;
    const deadline = Date.now() + timeoutMs;
    // Receipts so far: a bar on a terminal, a line per 10% otherwise (on stderr; results stay on stdout).
    const bar = progress({ total: orders, label: 'receipts' });
    for (;;) {
      const receipts = Number(await conn.call('HLEN', RECEIPTS));
      const pending = await pendingSummary(conn);
      // Kill while worker-1 holds at least half its concurrency in flight (re-measured after).
      const victimHolds = pending.byConsumer.get('worker-1') ?? 0;
      if (victim && killed === null && receipts >= orders * 0.2 && victimHolds >= Math.max(1, concurrency / 2)) {
        victim.kill('SIGKILL');
        await exited(victim);
        const held = (await pendingSummary(conn)).byConsumer.get('worker-1') ?? 0;
        killed = { held };
        bar.log(`SIGKILLed worker-1 (pid ${victim.pid}) mid-flight, holding ${held} pending entries`);
      }
      if (victim && killed === null && receipts >= orders) {
        // Too few orders to catch worker-1 mid-flight: kill it anyway, but say so.
        victim.kill('SIGKILL');
        await exited(victim);
        killed = { held: 0 };
        bar.log('all orders were handled before worker-1 could be killed mid-flight; use more --orders');
      }
      if (killed && killed.held > 0 && !recovered && (pending.byConsumer.get('worker-1') ?? 0) === 0) {
        recovered = true;
        bar.log(`recovered: worker-1's ${killed.held} entries were claimed by the surviving workers`);
      }
      bar.update(receipts, `pending ${pending.total}`);
      if (receipts >= orders && pending.total === 0 && (victim === null || killed !== null)) break;
      if (Date.now() > deadline) {
        bar.log('timed out');
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }

    bar.finish();

    // Graceful stop of the survivors: SIGTERM → stop reading, finish in-flight, ack, exit.
    for (const c of children) if (c !== victim) c.kill('SIGTERM');
    await Promise.all(children.map(exited));

    const receipts = Number(await conn.call('HLEN', RECEIPTS));
    const distinct = Number(await conn.call('SCARD', HANDLED));
    const pending = (await pendingSummary(conn)).total;
    const handledCount = Number(await conn.call('GET', HANDLED_COUNT));
    console.log(`handler runs ${handledCount} (${handledCount - distinct} redeliveries)`);
    console.log(`receipts ${receipts} distinct ${distinct} pending ${pending}`);
    return receipts === orders && distinct === orders && pending === 0 && (victim === null || killed !== null);
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await conn.close();
    if (server) {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
