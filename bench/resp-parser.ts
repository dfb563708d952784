// Parses pipelined "XADD s * f v" requests (as redis-benchmark -P sends them) in 64 KiB
// chunks and prints commands per second. Run: node dist/bench/resp-parser.js [commands]
import { encodeCommand } from '../src/resp/encoder.js';
import { RequestParser } from '../src/resp/parser.js';

const total = Number(process.argv[2] ?? 2_000_000);
const one = encodeCommand(['XADD', 's', '*', 'f', 'v']);
const perChunk = 10_000;
const stream = Buffer.concat(Array.from({ length: perChunk }, () => one));
// 64 KiB socket reads that cut requests at arbitrary places.
const chunks: Buffer[] = [];
for (let i = 0; i < stream.length; i += 65536) chunks.push(stream.subarray(i, i + 65536));

function run(commands: number): number {
  const parser = new RequestParser();
  let parsed = 0;
  let args = 0;
  while (parsed < commands) {
    for (const chunk of chunks) {
      parser.push(chunk);
      for (let argv = parser.next(); argv !== null; argv = parser.next()) {
        parsed++;
        args += argv.length;
      }
    }
  }
  if (args !== parsed * 5) throw new Error('parse mismatch');
  return parsed;
}

run(200_000); // warm up
const start = process.hrtime.bigint();
const parsed = run(total);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  `resp-parser: ${parsed} pipelined XADD requests (${one.length} bytes each) in ${seconds.toFixed(3)} s: ` +
    `${Math.round(parsed / seconds).toLocaleString('en-US')} commands/s, ` +
    `${((parsed * one.length) / seconds / 1e6).toFixed(0)} MB/s`,
);
