// The server's per-request CPU without the network: pipelined requests are parsed, executed and
// their replies encoded, in one process, as a connection does for 16 pipelined requests at a
// time. Prints ns per request for each command line, median of the rounds. Run:
//   node dist/bench/command-path.js [--requests N] [--rounds R] [--seed N] [--appendonly]
//                                   [--backlog] [--command 'XADD s * f v' ...]
// --seed N first XADDs N entries ("f v") to the key each command names (its second word), so a
// read such as XRANGE s - + COUNT 10 has entries to return.
// --appendonly logs the writes to an AOF in a temporary directory (appendfsync no: written once
// per event-loop turn, as a server does after its reads), so the figure includes building what
// a command propagates and encoding it for the log.
// --backlog attaches a replication backlog whose bytes go to a listener once per batch, as a
// primary with one replica does (the replica's socket left out): what feeding a replica costs.
// The figures track what changes in the request path buy; the socket's system calls and the
// event loop are left out (redis-benchmark.ts measures those, beside redis-server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { allCommands } from '../src/commands/index.js';
import { Instance } from '../src/commands/core/instance.js';
import { Encoder, encodeCommand } from '../src/resp/encoder.js';
import { RequestParser } from '../src/resp/parser.js';
import { loadAof } from '../src/persist/attach.js';
import { createBacklog } from '../src/replication/backlog.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '500000' },
    rounds: { type: 'string', default: '5' },
    pipeline: { type: 'string', default: '16' },
    seed: { type: 'string', default: '0' },
    command: { type: 'string', multiple: true },
    appendonly: { type: 'boolean', default: false },
    backlog: { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const pipeline = Number(values.pipeline);
const seed = Number(values.seed);
const commands = values.command ?? ['XADD s * f v', 'SET key:000000001 xxx', 'GET key:000000001', 'PING'];

/** Wall and CPU (all threads, user + system) ns per request. */
interface Timing {
  wall: number;
  cpu: number;
}

/** Batches between turns of the event loop, where the AOF writes what they logged. */
const BATCHES_PER_TURN = 64;

async function run(line: string): Promise<Timing> {
  const instance = new Instance(allCommands);
  const dir = values.appendonly ? mkdtempSync(join(tmpdir(), 'command-path-')) : null;
  const aof = dir === null ? null : await loadAof(instance, { dir, appendfsync: 'no' });
  let streamed = 0;
  if (values.backlog) createBacklog(instance).onBytes = (bytes) => (streamed += bytes.length);
  const client = instance.newClient('tcp', '127.0.0.1:1', '127.0.0.1:6379');
  const key = line.split(' ')[1];
  if (seed > 0 && key !== undefined) {
    const xadd = ['XADD', key, '*', 'f', 'v'].map((a) => Buffer.from(a));
    for (let i = 0; i < seed; i++) instance.execute(client, xadd);
  }
  const batch = Buffer.concat(Array.from({ length: pipeline }, () => encodeCommand(line.split(' '))));
  const encoder = new Encoder(2);
  const parser = new RequestParser();
  let replyBytes = 0;
  const dirtyBefore = instance.dirty;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let done = 0, turn = 0; done < requests; done += pipeline) {
    if (aof !== null && ++turn % BATCHES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    parser.push(batch);
    instance.beginBatch();
    for (let args = parser.nextArgs(); args !== null; args = parser.nextArgs()) {
      const reply = instance.executeArgs(client, args);
      if (reply instanceof Promise) throw new Error(`${line} blocked`);
      encoder.write(reply);
    }
    instance.endBatch();
    replyBytes += encoder.take().length;
  }
  const ns = Number(process.hrtime.bigint() - start) / requests;
  // CPU time is less disturbed than wall time when other processes share the cores.
  const cpu = process.cpuUsage(cpuStart);
  const cpuNs = ((cpu.user + cpu.system) * 1000) / requests;
  if (replyBytes === 0) throw new Error('no replies');
  // A write must reach the backlog (a read such as GET has nothing to stream).
  if (values.backlog && streamed === 0 && instance.dirty > dirtyBefore) throw new Error('nothing reached the backlog');
  aof?.stop();
  instance.stop();
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  return { wall: ns, cpu: cpuNs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const seeded = seed > 0 ? `, ${seed} entries seeded` : '';
const logged = (values.appendonly ? ', AOF on' : '') + (values.backlog ? ', replication backlog on' : '');
console.log(`command path in-process, ${requests} requests, pipelines of ${pipeline}${seeded}${logged}, median of ${rounds} rounds`);
for (const line of commands) {
  await run(line); // warm-up
  const times: Timing[] = [];
  for (let r = 0; r < rounds; r++) times.push(await run(line));
  const wall = median(times.map((t) => t.wall)).toFixed(0).padStart(6);
  const cpu = median(times.map((t) => t.cpu)).toFixed(0).padStart(6);
  console.log(`${line.padEnd(28)} ${wall} ns/request (cpu ${cpu})`);
}
