// Commands on small sorted sets (Redis's listpack encoding), `sluice server` against redis-server:
// --keys keys (default 200) of --members members (default 128, short names, scores m * 1.5),
// then per operation --commands commands (default 20000), 16 in flight, on random keys:
//   ZADD    moves an existing member to a new score (the set keeps its size and encoding)
//   ZSCORE  of a random member
//   ZRANK   of a random member
//   ZRANGE  10 members WITHSCORES from a random rank
// Prints commands/s and the server's CPU µs per command, medians of --rounds (default 3), the
// servers taking turns, and sluice/redis ratios.
//   node dist/bench/zset-small-ops.js [--keys 200] [--members 128] [--commands 20000] [--rounds 3]
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { cpuSeconds } from './proc-stats.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const KEYS = Number(arg('keys', '200'));
const MEMBERS = Number(arg('members', '128'));
const COMMANDS = Number(arg('commands', '20000'));
const ROUNDS = Number(arg('rounds', '3'));
const IN_FLIGHT = 16;

const key = (k: number) => `zsmall:${k}`;
const member = (m: number) => `member:${m}`;
const pick = (n: number) => Math.floor(Math.random() * n);

const OPERATIONS: Record<string, () => string[]> = {
  ZADD: () => ['ZADD', key(pick(KEYS)), String(pick(MEMBERS * 4) * 0.75), member(pick(MEMBERS))],
  ZSCORE: () => ['ZSCORE', key(pick(KEYS)), member(pick(MEMBERS))],
  ZRANK: () => ['ZRANK', key(pick(KEYS)), member(pick(MEMBERS))],
  ZRANGE: () => {
    const start = pick(MEMBERS - 10);
    return ['ZRANGE', key(pick(KEYS)), String(start), String(start + 9), 'WITHSCORES'];
  },
};

interface Figures {
  commandsPerSec: number;
  cpuUsPerCommand: number;
}

async function fill(conn: Connection): Promise<void> {
  await conn.call('FLUSHALL');
  for (let k = 0; k < KEYS; k++) {
    const args: string[] = [];
    for (let m = 0; m < MEMBERS; m++) args.push(String(m * 1.5), member(m));
    await conn.call('ZADD', key(k), ...args);
  }
  const encoding = await conn.call('OBJECT', 'ENCODING', key(0));
  if (encoding !== 'listpack') throw new Error(`expected a listpack, got ${String(encoding)}`);
}

async function run(conn: Connection, server: StartedServer, make: () => string[]): Promise<Figures> {
  const commands = Array.from({ length: COMMANDS }, make);
  const cpu0 = cpuSeconds(server.child.pid!);
  const t0 = performance.now();
  for (let i = 0; i < commands.length; i += IN_FLIGHT) {
    await Promise.all(commands.slice(i, i + IN_FLIGHT).map(([name, ...args]) => conn.call(name!, ...args)));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(server.child.pid!) - cpu0;
  return { commandsPerSec: COMMANDS / seconds, cpuUsPerCommand: (cpu * 1e6) / COMMANDS };
}

const servers: Array<[string, StartedServer]> = [
  ['sluice', await startSluice()],
  ['redis', await startRedis()],
];
try {
  const conns = new Map<string, Connection>();
  for (const [name, server] of servers) {
    const conn = await connect(`redis://127.0.0.1:${server.port}`);
    await fill(conn);
    conns.set(name, conn);
  }
  console.log(`${KEYS} keys of ${MEMBERS} members (listpack); ${COMMANDS} commands per operation, ${IN_FLIGHT} in flight; median of ${ROUNDS}`);
  console.log(`${'command'.padEnd(8)}${'server'.padEnd(8)}${'cmds/s'.padStart(10)}${'cpu µs/cmd'.padStart(12)}`);
  for (const [name, make] of Object.entries(OPERATIONS)) {
    const results = new Map<string, Figures[]>(servers.map(([server]) => [server, []]));
    // Rounds in turn, so the load of a shared machine falls on both alike.
    for (let r = 0; r < ROUNDS; r++) for (const [server, s] of servers) results.get(server)!.push(await run(conns.get(server)!, s, make));
    const med = (server: string): Figures => {
      const xs = results.get(server)!;
      return { commandsPerSec: median(xs.map((x) => x.commandsPerSec)), cpuUsPerCommand: median(xs.map((x) => x.cpuUsPerCommand)) };
    };
    for (const [server] of servers) {
      const f = med(server);
      console.log(`${name.padEnd(8)}${server.padEnd(8)}${f.commandsPerSec.toFixed(0).padStart(10)}${f.cpuUsPerCommand.toFixed(2).padStart(12)}`);
    }
    const [s, r] = [med('sluice'), med('redis')];
    console.log(`${name.padEnd(8)}${'ratio'.padEnd(8)}${(s.commandsPerSec / r.commandsPerSec).toFixed(2).padStart(10)}${(s.cpuUsPerCommand / r.cpuUsPerCommand).toFixed(2).padStart(12)}   (sluice/redis)`);
  }
  for (const conn of conns.values()) await conn.close();
} finally {
  for (const [, server] of servers) await server.stop();
}
