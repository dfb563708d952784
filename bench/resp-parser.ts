// Parses pipelined "XADD s * f v" requests (as redis-benchmark -P sends them) in 64 KiB
// chunks and prints commands per second, then the same for XRANGE replies with the reply
// parser. Run: node dist/bench/resp-parser.js [commands]
import { encodeCommand, encodeReply } from '../src/resp/encoder.js';
import { RequestParser } from '../src/resp/parser.js';
import type { Reply } from '../src/resp/reply.js';
import { ReplyParser } from '../test/support/reply-parser.js';

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

// The reply side: XRANGE-shaped replies of 100 entries, as the client and differential
// harness receive them, in 64 KiB chunks.
const entries: Reply[] = [];
for (let i = 0; i < 100; i++) entries.push([`1700000000000-${i}`, [Buffer.from('field1'), Buffer.from(`value-${i}`)]]);
const replyBytes = encodeReply(entries, 2);
const replyStream = Buffer.concat(Array.from({ length: 200 }, () => replyBytes));
const replyChunks: Buffer[] = [];
for (let i = 0; i < replyStream.length; i += 65536) replyChunks.push(replyStream.subarray(i, i + 65536));

function runReplies(rounds: number): number {
  const parser = new ReplyParser();
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    for (const chunk of replyChunks) {
      parser.push(chunk);
      for (let reply = parser.next(); reply !== undefined; reply = parser.next()) n++;
    }
  }
  return n;
}

runReplies(5);
const replyStart = process.hrtime.bigint();
const replies = runReplies(25);
const replySeconds = Number(process.hrtime.bigint() - replyStart) / 1e9;
console.log(
  `reply-parser: ${replies} XRANGE replies of 100 entries (${replyBytes.length} bytes each) in ${replySeconds.toFixed(3)} s: ` +
    `${Math.round(replies / replySeconds).toLocaleString('en-US')} replies/s, ` +
    `${((replies * replyBytes.length) / replySeconds / 1e6).toFixed(0)} MB/s`,
);
