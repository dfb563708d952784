// SADD / SISMEMBER / SREM on small intsets, `sluice server` against redis-server: KEYS keys of
// about MEMBERS small integers each (OBJECT ENCODING intset on both), then for each command
// REQUESTS requests on random keys and random members (the same sequence on both servers),
// pipelined BATCH at a time over one connection. Prints requests/s and server CPU µs per
// request (from /proc: on a shared machine requests/s swing with the scheduler, CPU per
// request less so) with the sluice/redis ratios, median of the rounds.
//
//   node dist/bench/intset-throughput.js [--requests 100000] [--keys 1000] [--members 64] [--rounds 3]
import { parseArgs } from 'node:util';
import { connect } from '../src/client/connect.js';
import type { Arg, Connection } from '../src/client/connection.js';
import { random as seededRandom } from '../test/faults/workload.js';
import { cpuSeconds } from './proc-stats.js';
import { median, startRedis, startSluice, type StartedServer } from './servers.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    keys: { type: 'string', default: '1000' },
    members: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
  },
});
const REQUESTS = Number(values.requests);
const KEYS = Number(values.keys);
const MEMBERS = Number(values.members);
const ROUNDS = Number(values.rounds);
const BATCH = 500;
const COMMANDS = ['SADD', 'SISMEMBER', 'SREM'] as const;

/** Members are drawn from twice the seeded range: half the requests hit, half miss. */
function requests(command: string, seed: number): Arg[][] {
  // Seeded (mulberry32), so both servers get the same requests.
  const random = seededRandom(seed);
  const out: Arg[][] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const key = `intset:${Math.floor(random() * KEYS)}`;
    out.push([command, key, String(Math.floor(random() * MEMBERS * 2) * 3 - MEMBERS)]);
  }
  return out;
}

async function seedKeys(conn: Connection): Promise<void> {
  await conn.call('FLUSHALL');
  const fills: Arg[][] = [];
  for (let k = 0; k < KEYS; k++) {
    const members: string[] = [];
    for (let m = 0; m < MEMBERS; m++) members.push(String(m * 6 - MEMBERS));
    fills.push(['SADD', `intset:${k}`, ...members]);
  }
  for (let i = 0; i < fills.length; i += BATCH) await conn.pipeline(fills.slice(i, i + BATCH));
  const encoding = await conn.call('OBJECT', 'ENCODING', 'intset:0');
  if (encoding !== 'intset') throw new Error(`seeded sets are ${String(encoding)}, not intset`);
}

interface Timing {
  rps: number;
  cpuUs: number;
}

async function timeCommand(conn: Connection, pid: number, batch: Arg[][]): Promise<Timing> {
  const cpu0 = cpuSeconds(pid);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch.length; i += BATCH) await conn.pipeline(batch.slice(i, i + BATCH));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = cpuSeconds(pid) - cpu0;
  return { rps: batch.length / seconds, cpuUs: (cpu * 1e6) / batch.length };
}

/** One round on one server: seed, then each command in turn. */
async function round(server: StartedServer, seed: number): Promise<Map<string, Timing>> {
  const conn = await connect(`redis://127.0.0.1:${server.port}`);
  try {
    await seedKeys(conn);
    const out = new Map<string, Timing>();
    for (const command of COMMANDS) out.set(command, await timeCommand(conn, server.child.pid!, requests(command, seed)));
    return out;
  } finally {
    await conn.close();
  }
}

const servers = { redis: await startRedis(), sluice: await startSluice() };
const results = { redis: [] as Array<Map<string, Timing>>, sluice: [] as Array<Map<string, Timing>> };
try {
  // A warm-up round on sluice first, so the figures are of optimized code.
  await round(servers.sluice, 0);
  for (let r = 1; r <= ROUNDS; r++) {
    results.redis.push(await round(servers.redis, r));
    results.sluice.push(await round(servers.sluice, r));
  }
} finally {
  await servers.redis.stop();
  await servers.sluice.stop();
}

console.log(`${KEYS} intsets of ${MEMBERS} members, ${REQUESTS} requests per command, pipelined ${BATCH}, median of ${ROUNDS} rounds`);
console.log('command     redis req/s  sluice req/s  ratio   redis CPU µs/req  sluice CPU µs/req  ratio');
for (const command of COMMANDS) {
  const stat = (rs: Array<Map<string, Timing>>, key: keyof Timing) => median(rs.map((r) => r.get(command)![key]));
  const [rRps, sRps] = [stat(results.redis, 'rps'), stat(results.sluice, 'rps')];
  const [rCpu, sCpu] = [stat(results.redis, 'cpuUs'), stat(results.sluice, 'cpuUs')];
  console.log(
    `${command.padEnd(10)}  ${rRps.toFixed(0).padStart(11)}  ${sRps.toFixed(0).padStart(12)}  ${(sRps / rRps).toFixed(2).padStart(5)}` +
      `   ${rCpu.toFixed(2).padStart(16)}  ${sCpu.toFixed(2).padStart(17)}  ${(sCpu / rCpu).toFixed(2).padStart(5)}`,
  );
}
