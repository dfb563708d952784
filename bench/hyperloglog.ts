// PFADD on `sluice server` against redis-server, in one run, the servers taking turns:
//   sparse: DEL then one PFADD of --items random elements (default 1500), --commands times
//           (default 200): Redis's encoding fuzzer's load, every register set in the sparse form
//           (it turns dense past hll-sparse-max-bytes, 3000, as in Redis);
//   dense:  PFADD of one random element into a dense HLL, --commands x 20 times, 16 in flight.
// Prints PFADD commands/s and elements/s, the server's CPU µs per element, and sluice/redis
// ratios; medians of --rounds (default 3).
//   node dist/bench/hyperloglog.js [--items 1500] [--commands 200] [--rounds 3]
import { connect } from '../src/client/connect.js';
import type { Connection } from '../src/client/connection.js';
import { cpuSeconds } from './proc-stats.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const ITEMS = Number(arg('items', '1500'));
const COMMANDS = Number(arg('commands', '200'));
const ROUNDS = Number(arg('rounds', '3'));

interface Figures {
  commandsPerSec: number;
  elementsPerSec: number;
  cpuUsPerElement: number;
}

let seq = 0;
const element = (): string => `${process.pid}:${seq++}:${Math.random()}`;

async function timed(server: StartedServer, elements: number, commands: number, work: () => Promise<void>): Promise<Figures> {
  const cpu0 = cpuSeconds(server.child.pid!);
  const t0 = performance.now();
  await work();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(server.child.pid!) - cpu0;
  return { commandsPerSec: commands / seconds, elementsPerSec: elements / seconds, cpuUsPerElement: (cpu * 1e6) / elements };
}

function sparse(conn: Connection, server: StartedServer): Promise<Figures> {
  const batches = Array.from({ length: COMMANDS }, () => Array.from({ length: ITEMS }, element));
  return timed(server, COMMANDS * ITEMS, COMMANDS, async () => {
    for (const batch of batches) {
      await conn.call('DEL', 'bench-hll-sparse');
      await conn.call('PFADD', 'bench-hll-sparse', ...batch);
    }
  });
}

async function dense(conn: Connection, server: StartedServer): Promise<Figures> {
  await conn.call('DEL', 'bench-hll-dense');
  await conn.call('PFADD', 'bench-hll-dense', ...Array.from({ length: 5000 }, element));
  const total = COMMANDS * 100;
  const elements = Array.from({ length: total }, element);
  return timed(server, total, total, async () => {
    for (let i = 0; i < total; i += 16) {
      await Promise.all(elements.slice(i, i + 16).map((e) => conn.call('PFADD', 'bench-hll-dense', e)));
    }
  });
}

const servers: Array<[string, StartedServer]> = [
  ['sluice', await startSluice()],
  ['redis', await startRedis()],
];
try {
  const conns = new Map<string, Connection>();
  for (const [name, server] of servers) conns.set(name, await connect(`redis://127.0.0.1:${server.port}`));
  console.log(`PFADD: sparse = DEL + PFADD of ${ITEMS} elements, x${COMMANDS}; dense = PFADD of 1 element, 16 in flight, x${COMMANDS * 100}; median of ${ROUNDS}`);
  console.log(`${'load'.padEnd(8)}${'server'.padEnd(8)}${'PFADD/s'.padStart(10)}${'elements/s'.padStart(12)}${'cpu µs/el'.padStart(11)}`);
  for (const [load, run] of [
    ['sparse', sparse],
    ['dense', dense],
  ] as const) {
    const results = new Map<string, Figures[]>(servers.map(([name]) => [name, []]));
    // Rounds in turn, so the load of a shared machine falls on both alike.
    for (let r = 0; r < ROUNDS; r++) for (const [name, server] of servers) results.get(name)!.push(await run(conns.get(name)!, server));
    const med = (name: string): Figures => {
      const xs = results.get(name)!;
      return {
        commandsPerSec: median(xs.map((x) => x.commandsPerSec)),
        elementsPerSec: median(xs.map((x) => x.elementsPerSec)),
        cpuUsPerElement: median(xs.map((x) => x.cpuUsPerElement)),
      };
    };
    for (const [name] of servers) {
      const f = med(name);
      console.log(`${load.padEnd(8)}${name.padEnd(8)}${f.commandsPerSec.toFixed(0).padStart(10)}${f.elementsPerSec.toFixed(0).padStart(12)}${f.cpuUsPerElement.toFixed(2).padStart(11)}`);
    }
    const [s, r] = [med('sluice'), med('redis')];
    console.log(`${load.padEnd(8)}${'ratio'.padEnd(8)}${(s.commandsPerSec / r.commandsPerSec).toFixed(2).padStart(10)}${''.padStart(12)}${(s.cpuUsPerElement / r.cpuUsPerElement).toFixed(2).padStart(11)}   (sluice/redis)`);
  }
  for (const conn of conns.values()) await conn.close();
} finally {
  for (const [, server] of servers) await server.stop();
}
