// Encodes XRANGE-shaped replies (arrays of [id, [field, value, ...]] with small bulk strings)
// and prints replies/s and MB/s. Run: node dist/bench/resp-encoder.js
import { Encoder, encodeReply } from '../src/resp/encoder.js';
import { OK, type Reply } from '../src/resp/reply.js';

function xrangeReply(entries: number): Reply {
  const out: Reply[] = [];
  for (let i = 0; i < entries; i++) {
    out.push([`1700000000000-${i}`, [Buffer.from('field1'), Buffer.from(`value-${i}`), Buffer.from('f2'), Buffer.from('v')]]);
  }
  return out;
}

function bench(name: string, reply: Reply, protocol: 2 | 3, seconds = 1): void {
  const size = encodeReply(reply, protocol).length;
  const encoder = new Encoder(protocol);
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(seconds * 1e9);
  while (process.hrtime.bigint() < deadline) {
    for (let i = 0; i < 20; i++) encoder.write(reply).take();
    n += 20;
  }
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`resp-encoder ${name}: ${Math.round(n / s).toLocaleString('en-US')} replies/s, ${((n * size) / s / 1e6).toFixed(0)} MB/s (${size} bytes each)`);
}

bench('XRANGE 100 entries RESP2', xrangeReply(100), 2);
bench('XRANGE 100 entries RESP3', xrangeReply(100), 3);
bench('XRANGE 10 entries RESP2', xrangeReply(10), 2);
bench('+OK', OK, 2);
bench('bulk 64 KiB', Buffer.alloc(65536, 120), 2);
