// The consumer-group loop of bench/stream-server.ts in-process, without the network's noise:
// a stream of `entries` entries ("order_id" N "total" N%997) is drained by one consumer
// looping XREADGROUP GROUP g c0 COUNT n STREAMS orders > then XACK of the ids it got. Only
// execute + encode is timed, each request a batch of its own (the ids for XACK are read out
// of the reply bytes outside the clock). Prints ns per entry, median of the rounds. Run:
//   node dist/bench/group-path.js [--entries 50000] [--count 10] [--rounds 5]
import { parseArgs } from 'node:util';
import { allCommands } from '../src/commands/index.js';
import { Instance } from '../src/commands/core/instance.js';
import { Encoder } from '../src/resp/encoder.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '50000' },
    count: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
  },
});
const entries = Number(values.entries);
const count = Number(values.count);
const rounds = Number(values.rounds);

const argv = (...args: Array<string | number>) => args.map((a) => Buffer.from(String(a)));

function run(): number {
  const instance = new Instance(allCommands);
  const client = instance.newClient('tcp', '127.0.0.1:1', '127.0.0.1:6379');
  for (let j = 0; j < entries; j++) instance.execute(client, argv('XADD', 'orders', '*', 'order_id', j, 'total', j % 997));
  instance.execute(client, argv('XGROUP', 'CREATE', 'orders', 'g', '0'));
  const encoder = new Encoder(2);
  const read = argv('XREADGROUP', 'GROUP', 'g', 'c0', 'COUNT', count, 'STREAMS', 'orders', '>');
  /** Executes and encodes one command as a batch of one, as an unpipelined client's request. */
  const timed = (command: Buffer[]): { reply: Buffer; ns: bigint } => {
    const start = process.hrtime.bigint();
    instance.beginBatch();
    const reply = instance.execute(client, command);
    if (reply instanceof Promise) throw new Error('blocked');
    encoder.write(reply);
    instance.endBatch();
    const bytes = encoder.take();
    return { reply: bytes, ns: process.hrtime.bigint() - start };
  };
  let ns = 0n;
  let handled = 0;
  for (;;) {
    const got = timed(read);
    ns += got.ns;
    // The ids are the only "ms-seq" bulk strings: the values are plain integers.
    const ids = [...got.reply.toString('latin1').matchAll(/\$\d+\r\n(\d+-\d+)\r\n/g)].map((m) => m[1]!);
    if (ids.length === 0) break;
    handled += ids.length;
    ns += timed(argv('XACK', 'orders', 'g', ...ids)).ns;
  }
  if (handled !== entries) throw new Error(`handled ${handled} of ${entries}`);
  instance.stop();
  return Number(ns) / entries;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

run(); // warm-up
const times = Array.from({ length: rounds }, run);
console.log(
  `XREADGROUP COUNT ${count} + XACK in-process, ${entries} entries, median of ${rounds} rounds: ` +
    `${median(times).toFixed(0)} ns/entry (${times.map((t) => t.toFixed(0)).join(' ')})`,
);
