// The least a Node.js RESP server does per request: Node's floor, measured beside sluice server
// and redis-server by bench/redis-benchmark.js (--lean) and bench/aof.js. It reads with
// sluice's own socket path (socket-reads.ts: one shared buffer, no 'data' events), counts
// complete requests, and at the end of each event-loop turn writes every client its replies
// with one socket.write, as sluice does. It keeps no data: PING answers +PONG, CONFIG an empty
// array (what redis-benchmark asks first), any other command a fixed stream id (XADD's reply
// shape). With --appendfsync always or everysec the bytes of every other command are appended
// to a file with one write(2) per turn, before the replies, and under always fdatasync'd there
// (group commit, as Redis's beforeSleep); under everysec a timer fdatasyncs once a second.
// Whatever sluice spends beyond this server is its own: parsing into arguments, the command
// table, the engine, the AOF's encoding, stats, client bookkeeping.
//
//   node dist/bench/lean-server.js [--port 0] [--appendfsync no|always|everysec] [--dir DIR]
// prints "ready on 127.0.0.1:PORT" once it listens.
import { Buffer } from 'node:buffer';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startReading } from '../src/server/socket-reads.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    appendfsync: { type: 'string', default: 'no' },
    dir: { type: 'string' },
  },
});
const fsync = values.appendfsync!;
if (!['no', 'always', 'everysec'].includes(fsync)) throw new Error(`--appendfsync: no, always or everysec, not ${fsync}`);
const logFd = fsync === 'no' ? -1 : fs.openSync(join(values.dir ?? '.', 'lean.aof'), 'a');

const ID = Buffer.from('$15\r\n1700000000000-0\r\n');
const PONG = Buffer.from('+PONG\r\n');
const EMPTY = Buffer.from('*0\r\n');

/** The decimal number from `i` up to the CR, and the index past its CRLF; null past `end`. */
function lineNumber(b: Buffer, i: number, end: number): [number, number] | null {
  let n = 0;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c === 13) return i + 1 < end ? [n, i + 2] : null;
    n = n * 10 + c - 48;
  }
  return null;
}

/** The reply to the command whose first letter is `c` (upper or lower case). */
function replyTo(c: number): Buffer {
  const upper = c & ~32;
  return upper === 80 /* P */ ? PONG : upper === 67 /* C */ ? EMPTY : ID;
}

const ARENA_BYTES = 64 * 1024;

/**
 * Bytes appended at `pos` and handed out from `mark` as one Buffer (take()). A Buffer handed
 * to socket.write may still be queued, so the arena is never rewound: a full one is replaced.
 */
class Arena {
  private buf = Buffer.allocUnsafe(ARENA_BYTES);
  private mark = 0;
  private pos = 0;

  get pending(): number {
    return this.pos - this.mark;
  }

  append(src: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.buf.length - this.pos < n) {
      const next = Buffer.allocUnsafe(Math.max(ARENA_BYTES, 2 * (this.pending + n)));
      this.buf.copy(next, 0, this.mark, this.pos);
      this.buf = next;
      this.pos -= this.mark;
      this.mark = 0;
    }
    src.copy(this.buf, this.pos, start, end);
    this.pos += n;
  }

  take(): Buffer {
    const out = this.buf.subarray(this.mark, this.pos);
    this.mark = this.pos;
    return out;
  }
}

/** The turn's log bytes, written (and fsynced under always) before any reply goes out. */
const log = new Arena();
const queued: LeanConnection[] = [];
let flushScheduled = false;

function flushTurn(): void {
  flushScheduled = false;
  if (log.pending > 0) {
    fs.writeSync(logFd, log.take());
    if (fsync === 'always') fs.fdatasyncSync(logFd);
  }
  for (const c of queued) c.flush();
  queued.length = 0;
}

class LeanConnection {
  /** Bytes of an incomplete request, kept until the rest arrives. */
  private rest: Buffer | null = null;
  private readonly replies = new Arena();
  private queued = false;

  constructor(private readonly socket: net.Socket) {
    socket.on('error', () => socket.destroy());
    startReading(socket, (bytes) => this.onBytes(bytes));
  }

  private onBytes(chunk: Buffer): void {
    // The shared read buffer is reused after this returns: what is kept is copied.
    const b = this.rest === null ? chunk : Buffer.concat([this.rest, chunk]);
    this.rest = null;
    let i = 0;
    while (i < b.length) {
      const end = b[i] === 42 ? this.multibulkEnd(b, i) : this.inlineEnd(b, i);
      if (end < 0) {
        this.rest = Buffer.from(b.subarray(i));
        break;
      }
      i = end;
    }
    if (this.replies.pending > 0 && !this.queued) {
      this.queued = true;
      queued.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushTurn);
      }
    }
  }

  /** Takes the request `*N` at `start`; returns the index past it, or -1 when incomplete. */
  private multibulkEnd(b: Buffer, start: number): number {
    const head = lineNumber(b, start + 1, b.length);
    if (head === null) return -1;
    let [argc, i] = head;
    let first = 0;
    for (let a = 0; a < argc; a++) {
      const len = i < b.length ? lineNumber(b, i + 1, b.length) : null;
      if (len === null) return -1;
      if (a === 0) first = b[len[1]] ?? 0;
      i = len[1] + len[0] + 2;
      if (i > b.length) return -1;
    }
    this.answer(first, b, start, i);
    return i;
  }

  /** An inline request (redis-benchmark's PING_INLINE): up to its LF. */
  private inlineEnd(b: Buffer, start: number): number {
    const lf = b.indexOf(10, start);
    if (lf < 0) return -1;
    this.answer(b[start]!, b, start, lf + 1);
    return lf + 1;
  }

  private answer(first: number, b: Buffer, start: number, end: number): void {
    const reply = replyTo(first);
    this.replies.append(reply, 0, reply.length);
    if (logFd >= 0 && reply === ID) log.append(b, start, end);
  }

  flush(): void {
    this.queued = false;
    this.socket.write(this.replies.take());
  }
}

if (fsync === 'everysec') setInterval(() => fs.fdatasyncSync(logFd), 1000).unref();
const server = net.createServer({ noDelay: true, pauseOnConnect: true }, (socket) => new LeanConnection(socket));
server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`ready on 127.0.0.1:${(server.address() as net.AddressInfo).port}`);
});
process.on('SIGTERM', () => process.exit(0));
