// Clients that pipeline PINGs without pause and never read their replies, against sluice server
// and redis-server (both with --requirepass), while one well-behaved client PINGs every 50 ms:
//
//   node dist/bench/starvation.js [--attackers 1000] [--seconds 4] [--auth no|yes|both]
//
// Each server is started afresh per run. Prints the well-behaved PING's latency (median and
// worst), how many attackers the server disconnected, the server's RSS during the attack and
// 1.5 s after the attackers left, and used_memory then. Unauthenticated attackers are
// disconnected by both servers once 16 KiB of replies are unsent; authenticated ones are not
// (client-output-buffer-limit normal is 0 0 0), so their cost is the time each takes per turn.
import * as net from 'node:net';
import { rssBytes } from './proc-stats.js';
import { startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const attackers = Number(arg('attackers', '1000'));
const seconds = Number(arg('seconds', '4'));
const modes = arg('auth', 'both') === 'both' ? [false, true] : [arg('auth', 'both') === 'yes'];

const PINGS = Buffer.from('*1\r\n$4\r\nPING\r\n'.repeat(4681));
const AUTH = '*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n';

interface Result {
  p50: number;
  max: number;
  closedByServer: number;
  rssDuringMB: number;
  rssAfterMB: number;
  usedMemoryAfterMB: number;
}

async function attack(server: StartedServer, auth: boolean): Promise<Result> {
  const pid = server.child.pid!;
  let stopping = false;
  let closedByServer = 0;
  const sockets: net.Socket[] = [];
  for (let i = 0; i < attackers; i++) {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    s.on('close', () => {
      if (!stopping) closedByServer++;
    });
    s.on('connect', () => {
      s.pause(); // never reads
      if (auth) s.write(AUTH);
      const pump = (): void => {
        while (!stopping && !s.destroyed) if (!s.write(PINGS)) return void s.once('drain', pump);
      };
      pump();
    });
    sockets.push(s);
  }
  const legit = net.connect(server.port, '127.0.0.1');
  await new Promise((resolve) => legit.once('connect', resolve));
  let waiter: ((text: string) => void) | null = null;
  let received = '';
  legit.on('data', (d) => {
    received += d.toString('latin1');
    // One reply at a time: a simple string, or INFO's bulk once complete.
    const bulk = /^\$(\d+)\r\n/.exec(received);
    if (bulk !== null && received.length < bulk[0].length + Number(bulk[1]) + 2) return;
    const w = waiter;
    waiter = null;
    const text = received;
    received = '';
    w?.(text);
  });
  const call = (command: string): Promise<string> => new Promise((resolve) => ((waiter = resolve), legit.write(command)));
  await call(AUTH);
  const latencies: number[] = [];
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    const t = performance.now();
    await call('PING\r\n');
    latencies.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const rssDuring = rssBytes(pid);
  stopping = true;
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const info = await call('INFO memory\r\n');
  legit.destroy();
  latencies.sort((a, b) => a - b);
  return {
    p50: latencies[latencies.length >> 1]!,
    max: latencies[latencies.length - 1]!,
    closedByServer,
    rssDuringMB: rssDuring / 2 ** 20,
    rssAfterMB: rssBytes(pid) / 2 ** 20,
    usedMemoryAfterMB: Number(/used_memory:(\d+)/.exec(info)![1]) / 2 ** 20,
  };
}

console.log(`${attackers} connections pipelining PINGs and never reading, ${seconds} s; a PING every 50 ms from another client`);
for (const auth of modes) {
  for (const [name, start] of [['sluice', startSluice], ['redis', startRedis]] as const) {
    const server = await start(['--requirepass', 'secret']);
    try {
      const r = await attack(server, auth);
      console.log(
        `${auth ? 'authenticated  ' : 'unauthenticated'} ${name.padEnd(6)} PING p50 ${r.p50.toFixed(1).padStart(7)} ms  max ${r.max.toFixed(1).padStart(7)} ms  ` +
          `closed by server ${String(r.closedByServer).padStart(5)}  RSS during ${r.rssDuringMB.toFixed(0).padStart(5)} MB  after ${r.rssAfterMB.toFixed(0).padStart(5)} MB  used_memory after ${r.usedMemoryAfterMB.toFixed(1)} MB`,
      );
    } finally {
      await server.stop();
    }
  }
}
