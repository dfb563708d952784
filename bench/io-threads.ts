// Issue #16: would Redis-style io-threads pay here? That is, socket reads, RESP parsing and
// reply encoding/writes on worker_threads, with the engine (the keyspace) on the main thread.
// This is a measurement prototype, not a server: three minimal RESP servers that speak just
// enough for `redis-benchmark -t set,get` (PING, SET k v, GET k, CONFIG GET -> empty array),
// each in its own child process, measured side by side with redis-server 7:
//
//   single     everything on the main thread: net server, parse, Map, encode, write.
//   io<N>-sab  N worker threads own the listening socket and the client sockets, parse requests
//              into records in a SharedArrayBuffer ring; the main thread (the engine, the only
//              owner of the Map) drains the rings, executes, writes reply records into a ring
//              back; the worker encodes RESP and writes. Wake-ups: Atomics.notify, and
//              Atomics.waitAsync on the other side, so both threads keep a live event loop.
//   io<N>-sabspin  the same, but the main thread spins up to --spin µs after each batch
//              before it arms waitAsync again (a bounded spin: the event loop still turns).
//   io<N>-port the same records, handed over by MessagePort.postMessage (transferred
//              ArrayBuffers) instead of the rings.
//   redis      redis-server --save '' --appendonly no.
//
//   npm run build && BENCH_PORTS=8500-8599 node dist/bench/io-threads.js
//     [--rounds 3] [--clients 50] [--n1 200000] [--n16 500000]
//     [--servers single,io1-sab,io2-sab,io1-sabspin,io1-port,io2-port,redis] [--spin 30]
//     [--pingpong-only] [--no-pingpong]
//
// For each server and test it reports requests/s, the server's CPU µs per request (utime+stime
// of the whole process, every thread, from /proc/PID/stat before/after), how much of it is the
// main thread's (/proc/PID/task/PID/stat), and redis-benchmark's own CPU µs per request (it shares
// the same cores). It also measures the hand-off itself: a ping-pong of one 20-byte record
// between two threads through the ring, ns per round trip, with each waiting strategy.
//
// What it found (2-vCPU VM, Node 20.20, redis 7.0.15, 2026-12-03, 5 runs of 3 rounds). In runs
// 1-3 and half of 4 another tenant's runaway process held one core ("others" ~100%); in run 5
// no other process ran ("others" ~0) but the hypervisor stole 0-84% ("steal").
// - The hand-off: a ping-pong of one record through the ring costs 0.3-0.45 µs a round trip when
//   both threads spin on free cores, but 17 µs (71 under steal) when both block in Atomics.wait
//   (futex), 21-34 µs (one run 45) with Atomics.waitAsync, 19-26 µs (91 under steal) with
//   postMessage: on this VM waking a sleeping thread is what costs (~10-17 µs one way), and a
//   thread that keeps an event loop has to sleep to let it turn.
// - CPU per request, whole process (medians of each run): unpipelined, single 9.8-13.3 µs, io1
//   11.7-20.2, io2 13.3-24.9, redis 7.7-14.2; mostly kernel time (single ~3.5-4 µs usr + 7-9 µs
//   sys). The engine's thread needs only 1.6-3.6 µs of it, but the total grows 10-50% (more
//   sleeps and wake-ups: one cross-thread wake per 3-10 requests). Pipelined -P16: single
//   0.8-1.2 µs, io1 0.9-1.8, io2 1.2-2.0, redis 0.7-1.2.
// - Requests/s: unpipelined, no io variant beat single in any run's medians (io1 0.76-0.99x of
//   it, io2 0.68-0.99x). At -P16 some io variant beat single in 5 of 10 medians, each in a
//   test where another process held a core for some rounds, and by no more than the runs
//   scatter. With both cores free (run 5) single led all four tests: io1 0.69-0.87x, io2
//   0.62-0.72x, io1-sabspin 0.65-0.80x. redis-benchmark itself needs about as much CPU per
//   request as the server (11-21 µs unpipelined, 0.75-1.2 µs at -P16): with the client on the
//   same two cores the second core is the client's, and moving I/O to a thread only adds CPU to
//   a machine that has none to spare.
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isMainThread, MessageChannel, type MessagePort, parentPort, Worker, workerData } from 'node:worker_threads';
import { startReading } from '../src/server/socket-reads.js';
import { freePort, median, startRedis, type StartedServer } from './servers.js';

const runFile = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// Atomics.waitAsync is in V8 (Node 16+) but not in the ES2022 lib this project compiles against.
type WaitAsyncResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, t?: number): WaitAsyncResult }).waitAsync;

// ---------------------------------------------------------------------------------------------
// RESP parsing: one command at a time from (buf, pos); the argument bounds go to argS/argE.
// Enough of RESP for redis-benchmark: arrays of bulk strings, and inline commands.
const INCOMPLETE = -1;
const BAD = -2;
const MAX_ARGS = 16;
const argS = new Int32Array(MAX_ARGS);
const argE = new Int32Array(MAX_ARGS);
let argc = 0;

function parseCommand(b: Buffer, p: number): number {
  const end = b.length;
  if (b[p] === 42 /* '*' */) {
    let i = p + 1;
    let n = 0;
    while (i < end && b[i] !== 13) n = n * 10 + b[i++]! - 48;
    if (i + 1 >= end) return INCOMPLETE;
    i += 2;
    if (n > MAX_ARGS) return BAD;
    for (let a = 0; a < n; a++) {
      if (i >= end) return INCOMPLETE;
      if (b[i] !== 36 /* '$' */) return BAD;
      let len = 0;
      i++;
      while (i < end && b[i] !== 13) len = len * 10 + b[i++]! - 48;
      if (i + 1 >= end) return INCOMPLETE;
      i += 2;
      if (i + len + 2 > end) return INCOMPLETE;
      argS[a] = i;
      argE[a] = i + len;
      i += len + 2;
    }
    argc = n;
    return i;
  }
  // Inline command: words separated by spaces up to "\n" (redis-benchmark's ping_inline).
  const nl = b.indexOf(10, p);
  if (nl < 0) return INCOMPLETE;
  const lineEnd = nl > p && b[nl - 1] === 13 ? nl - 1 : nl;
  argc = 0;
  let i = p;
  while (i < lineEnd && argc < MAX_ARGS) {
    while (i < lineEnd && b[i] === 32) i++;
    if (i === lineEnd) break;
    argS[argc] = i;
    while (i < lineEnd && b[i] !== 32) i++;
    argE[argc++] = i;
  }
  return nl + 1;
}

// Operation codes the parser hands the engine (the command-table lookup is done by the parser).
const OP_SET = 1;
const OP_GET = 2;
const OP_PING = 3;
const OP_CONFIG = 4;
const OP_UNKNOWN = 5;
const OP_STATS = 6; // not Redis: this file's counters, so the orchestrator can report batch sizes
const NAMES: [number, Buffer, number][] = [
  [OP_SET, Buffer.from('SET'), 3],
  [OP_GET, Buffer.from('GET'), 2],
  [OP_PING, Buffer.from('PING'), 1],
  [OP_CONFIG, Buffer.from('CONFIG'), 2],
  [OP_STATS, Buffer.from('STATS'), 1],
];

/** The operation of the command just parsed (argc 0 means an empty line: the caller skips it). */
function classify(b: Buffer): number {
  const s = argS[0]!;
  const len = argE[0]! - s;
  for (const [op, name, minArgs] of NAMES) {
    if (len !== name.length || argc < minArgs) continue;
    let i = 0;
    while (i < len && (b[s + i]! & 0xdf) === name[i]) i++;
    if (i === len) return op;
  }
  return OP_UNKNOWN;
}

// ---------------------------------------------------------------------------------------------
// RESP encoding into a growable per-connection buffer, written (copied) once per turn.
const R_OK = Buffer.from('+OK\r\n');
const R_PONG = Buffer.from('+PONG\r\n');
const R_NIL = Buffer.from('$-1\r\n');
const R_EMPTY = Buffer.from('*0\r\n');
const R_ERR = Buffer.from('-ERR unknown command\r\n');

function copyBytes(src: Uint8Array, s: number, e: number, dst: Uint8Array, at: number): void {
  // A loop beats Uint8Array.set + subarray for the few bytes of keys and values here.
  if (e - s <= 64) for (let i = s; i < e; i++) dst[at++] = src[i]!;
  else dst.set(src.subarray(s, e), at);
}

// Buffer's latin1Slice/latin1Write skip toString/write's encoding dispatch (untyped in @types/node).
const latin1Write = (b: Buffer, v: string, at: number): number => (b as unknown as { latin1Write(v: string, at: number): number }).latin1Write(v, at);
const latin1Slice = (b: Buffer, s: number, e: number): string => (b as unknown as { latin1Slice(s: number, e: number): string }).latin1Slice(s, e);

class Out {
  buf = Buffer.allocUnsafeSlow(1024);
  len = 0;
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }
  raw(r: Buffer): void {
    this.room(r.length);
    copyBytes(r, 0, r.length, this.buf, this.len);
    this.len += r.length;
  }
  private header(n: number): void {
    this.room(n + 16);
    const b = this.buf;
    b[this.len++] = 36;
    this.len += latin1Write(b, String(n), this.len);
    b[this.len++] = 13;
    b[this.len++] = 10;
  }
  bulkString(v: string): void {
    this.header(v.length);
    this.len += latin1Write(this.buf, v, this.len);
    this.buf[this.len++] = 13;
    this.buf[this.len++] = 10;
  }
  bulkBytes(src: Uint8Array, s: number, e: number): void {
    this.header(e - s);
    copyBytes(src, s, e, this.buf, this.len);
    this.len += e - s;
    this.buf[this.len++] = 13;
    this.buf[this.len++] = 10;
  }
  /** A copy of what is buffered (the socket may hold it past this turn), and empties the buffer. */
  take(): Buffer {
    const copy = Buffer.allocUnsafe(this.len);
    copyBytes(this.buf, 0, this.len, copy, 0);
    this.len = 0;
    return copy;
  }
}


/** A connection: what it has not parsed yet, and the replies of this turn. */
interface Conn {
  id: number;
  socket: net.Socket;
  pending: Buffer | null;
  out: Out;
  queued: boolean;
}

/**
 * Calls `onCommand` for each complete command in `bytes` (plus what was left over last time);
 * `bytes` may be the shared read buffer, so the incomplete rest is copied. False: protocol error.
 */
function parseAll(conn: Conn, bytes: Buffer, onCommand: (b: Buffer, op: number) => void): boolean {
  let b = bytes;
  if (conn.pending !== null) {
    b = Buffer.concat([conn.pending, bytes]);
    conn.pending = null;
  }
  let pos = 0;
  while (pos < b.length) {
    const next = parseCommand(b, pos);
    if (next === INCOMPLETE) break;
    if (next === BAD) return false;
    pos = next;
    if (argc > 0) onCommand(b, classify(b));
  }
  if (pos < b.length) conn.pending = Buffer.from(b.subarray(pos));
  return true;
}

// Replies are written once per event-loop turn, after the poll phase (as turn-flush.ts does in
// sluice and as Redis does in beforeSleep): a write per read would wake the client mid-turn.
/** The single server's counters: commands, socket reads, write turns. */
const single = { requests: 0, reads: 0, turns: 0 };
let toFlush: Conn[] = [];
let flushScheduled = false;
function flushTurn(): void {
  flushScheduled = false;
  single.turns++;
  const batch = toFlush;
  toFlush = [];
  for (const c of batch) {
    c.queued = false;
    if (c.out.len > 0 && !c.socket.destroyed) c.socket.write(c.out.take());
  }
}
function queueFlush(c: Conn): void {
  if (c.queued) return;
  c.queued = true;
  toFlush.push(c);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushTurn);
  }
}

function createServer(onConnection: (socket: net.Socket) => void): net.Server {
  // noDelay as redis-server sets TCP_NODELAY; pauseOnConnect so startReading can use `onread`.
  return net.createServer({ pauseOnConnect: true, noDelay: true }, (socket) => {
    socket.on('error', () => undefined);
    onConnection(socket);
  });
}

// ---------------------------------------------------------------------------------------------
// 1. single: everything on the main thread.
function runSingle(port: number): void {
  const map = new Map<string, string>();
  let nextId = 0;
  const server = createServer((socket) => {
    const conn: Conn = { id: nextId++, socket, pending: null, out: new Out(), queued: false };
    const out = conn.out;
    const onCommand = (b: Buffer, op: number): void => {
      single.requests++;
      switch (op) {
        case OP_SET:
          map.set(latin1Slice(b, argS[1]!, argE[1]!), latin1Slice(b, argS[2]!, argE[2]!));
          out.raw(R_OK);
          break;
        case OP_GET: {
          const v = map.get(latin1Slice(b, argS[1]!, argE[1]!));
          if (v === undefined) out.raw(R_NIL);
          else out.bulkString(v);
          break;
        }
        case OP_PING:
          out.raw(R_PONG);
          break;
        case OP_CONFIG:
          out.raw(R_EMPTY);
          break;
        case OP_STATS:
          out.bulkString(`requests=${single.requests} batches=${single.turns} reads=${single.reads}`);
          break;
        default:
          out.raw(R_ERR);
      }
    };
    startReading(socket, (bytes) => {
      single.reads++;
      if (!parseAll(conn, bytes, onCommand)) socket.destroy();
      else if (out.len > 0) queueFlush(conn);
    });
  });
  server.listen(port, '127.0.0.1', () => console.log(`ready ${port}`));
}

// ---------------------------------------------------------------------------------------------
// The hand-off. A record is 5 int32 words — [bytes, connection id, code, a length, b length] —
// then a's and b's bytes, padded to 4. Requests: code = op, a = key, b = value. Replies: code =
// reply kind, a = payload (a GET's value). Records go into a Ring (SharedArrayBuffer) or a Linear
// buffer (sent whole by postMessage); both give `reserve(bytes)` -> a byte offset into u8/i32.
const HDR = 20;
const pad4 = (n: number): number => (n + 3) & ~3;

const RP_OK = 1;
const RP_NIL = 2;
const RP_BULK = 3;
const RP_PONG = 4;
const RP_EMPTY = 5;
const RP_ERR = 6;

interface RecordSink {
  u8: Buffer;
  i32: Int32Array;
  reserve(bytes: number): number;
}

// Control words of a ring: the producer's published tail, the consumer's released head, and the
// consumer's "asleep: notify me" flag. Each on its own 64-byte line so the two cores do not share one.
const TAIL = 0;
const HEAD = 16;
const SLEEP = 32;
const CTRL_BYTES = 256;

/**
 * A single-producer single-consumer byte ring in a SharedArrayBuffer. Positions are int32 byte
 * counters that wrap; a record that would cross the end is preceded by a -1 word ("skip to
 * start"). The producer writes records, then publishes them all with one Atomics.store (a
 * release); the consumer sees them after its Atomics.load of the tail (an acquire).
 */
class Ring implements RecordSink {
  readonly ctrl: Int32Array;
  readonly i32: Int32Array;
  readonly u8: Buffer;
  private readonly cap: number;
  private readonly mask: number;
  private tail = 0; // producer's, published or not
  private headSeen = 0; // producer's last look at the head
  head = 0; // consumer's
  private tailSeen = 0; // consumer's last look at the tail

  static create(capacity: number): SharedArrayBuffer {
    return new SharedArrayBuffer(CTRL_BYTES + capacity);
  }

  constructor(sab: SharedArrayBuffer) {
    this.cap = sab.byteLength - CTRL_BYTES;
    this.mask = this.cap - 1;
    this.ctrl = new Int32Array(sab, 0, CTRL_BYTES / 4);
    this.i32 = new Int32Array(sab, CTRL_BYTES, this.cap / 4);
    this.u8 = Buffer.from(sab, CTRL_BYTES, this.cap);
  }

  reserve(bytes: number): number {
    let at = this.tail & this.mask;
    const skip = at + bytes > this.cap ? this.cap - at : 0;
    if (((this.tail - this.headSeen) | 0) + skip + bytes > this.cap) {
      this.headSeen = Atomics.load(this.ctrl, HEAD);
      // The benchmark is closed-loop (each client has at most -P requests out), so a 4 MiB ring
      // cannot fill; a real server would stop reading sockets here (backpressure).
      if (((this.tail - this.headSeen) | 0) + skip + bytes > this.cap) throw new Error('ring full');
    }
    if (skip > 0) {
      this.i32[at >> 2] = -1;
      this.tail = (this.tail + skip) | 0;
      at = 0;
    }
    this.tail = (this.tail + bytes) | 0;
    return at;
  }

  /** Makes the records written so far visible; true when there were any. */
  publish(): boolean {
    if (Atomics.load(this.ctrl, TAIL) === this.tail) return false;
    Atomics.store(this.ctrl, TAIL, this.tail);
    return true;
  }

  /** The next record's offset, or -1 when the ring is empty. */
  next(): number {
    if (this.head === this.tailSeen) {
      this.tailSeen = Atomics.load(this.ctrl, TAIL);
      if (this.head === this.tailSeen) return -1;
    }
    let at = this.head & this.mask;
    let len = this.i32[at >> 2]!;
    if (len === -1) {
      this.head = (this.head + this.cap - at) | 0;
      at = 0;
      len = this.i32[0]!;
    }
    this.head = (this.head + len) | 0;
    return at;
  }

  /** Hands the space of the records read back to the producer. */
  release(): void {
    Atomics.store(this.ctrl, HEAD, this.head);
  }

  hasData(): boolean {
    return Atomics.load(this.ctrl, TAIL) !== this.head;
  }
}

/** Records appended to a plain ArrayBuffer, taken whole to be transferred by postMessage. */
class Linear implements RecordSink {
  private ab = new ArrayBuffer(1 << 16);
  u8 = Buffer.from(this.ab);
  i32 = new Int32Array(this.ab);
  pos = 0;
  reserve(bytes: number): number {
    if (this.pos + bytes > this.ab.byteLength) {
      const bigger = new ArrayBuffer(Math.max(this.ab.byteLength * 2, this.pos + bytes));
      new Uint8Array(bigger).set(new Uint8Array(this.ab, 0, this.pos));
      this.ab = bigger;
      this.u8 = Buffer.from(bigger);
      this.i32 = new Int32Array(bigger);
    }
    const at = this.pos;
    this.pos += bytes;
    return at;
  }
  take(): ArrayBuffer {
    const taken = this.ab.slice(0, this.pos);
    this.pos = 0;
    return taken;
  }
}

function writeRecord(sink: RecordSink, conn: number, code: number, src: Uint8Array | null, aS: number, aE: number, bS: number, bE: number): void {
  const aLen = aE - aS;
  const bLen = bE - bS;
  const bytes = HDR + pad4(aLen + bLen);
  const at = sink.reserve(bytes);
  const w = at >> 2;
  const i32 = sink.i32;
  i32[w] = bytes;
  i32[w + 1] = conn;
  i32[w + 2] = code;
  i32[w + 3] = aLen;
  i32[w + 4] = bLen;
  if (src !== null) {
    copyBytes(src, aS, aE, sink.u8, at + HDR);
    copyBytes(src, bS, bE, sink.u8, at + HDR + aLen);
  }
}

function writeBulkRecord(replies: RecordSink, conn: number, v: string): void {
  const bytes = HDR + pad4(v.length);
  const r = replies.reserve(bytes);
  const rw = r >> 2;
  replies.i32[rw] = bytes;
  replies.i32[rw + 1] = conn;
  replies.i32[rw + 2] = RP_BULK;
  replies.i32[rw + 3] = v.length;
  replies.i32[rw + 4] = 0;
  latin1Write(replies.u8, v, r + HDR);
}

// Counters of the io servers. The engine's own: requests executed and its wake-ups (a waitAsync
// resolved, a message received, or a drain that found work while spinning). Each worker's, in
// a SharedArrayBuffer the engine reads: batches handed over, doorbells rung, reply wake-ups, reads.
const engine = { requests: 0, wakes: 0 };
const W_BATCHES = 0;
const W_BELLS = 1;
const W_REPLY_WAKES = 2;
const W_READS = 3;
let workerStats: Int32Array = new Int32Array(64);
function engineStats(): string {
  const sum = (field: number): number => {
    let t = 0;
    for (let i = field; i < workerStats.length; i += 8) t += Atomics.load(workerStats, i);
    return t;
  };
  return (
    `requests=${engine.requests} batches=${sum(W_BATCHES)} mainWakes=${engine.wakes} bells=${sum(W_BELLS)} ` +
    `replyWakes=${sum(W_REPLY_WAKES)} reads=${sum(W_READS)}`
  );
}

/** The engine's part: executes one request record from (u8, i32, at) and writes its reply record. */
function executeRecord(map: Map<string, string>, u8: Buffer, i32: Int32Array, at: number, replies: RecordSink): void {
  const w = at >> 2;
  const conn = i32[w + 1]!;
  const op = i32[w + 2]!;
  engine.requests++;
  const k = at + HDR;
  const kEnd = k + i32[w + 3]!;
  switch (op) {
    case OP_SET:
      map.set(latin1Slice(u8, k, kEnd), latin1Slice(u8, kEnd, kEnd + i32[w + 4]!));
      writeRecord(replies, conn, RP_OK, null, 0, 0, 0, 0);
      break;
    case OP_GET: {
      const v = map.get(latin1Slice(u8, k, kEnd));
      if (v === undefined) writeRecord(replies, conn, RP_NIL, null, 0, 0, 0, 0);
      else writeBulkRecord(replies, conn, v);
      break;
    }
    case OP_STATS:
      writeBulkRecord(replies, conn, engineStats());
      break;
    case OP_PING:
      writeRecord(replies, conn, RP_PONG, null, 0, 0, 0, 0);
      break;
    case OP_CONFIG:
      writeRecord(replies, conn, RP_EMPTY, null, 0, 0, 0, 0);
      break;
    default:
      writeRecord(replies, conn, RP_ERR, null, 0, 0, 0, 0);
  }
}

/** The I/O thread's part: encodes one reply record into its connection's output. */
function encodeReply(out: Out, u8: Buffer, i32: Int32Array, at: number): void {
  const w = at >> 2;
  switch (i32[w + 2]) {
    case RP_OK:
      return out.raw(R_OK);
    case RP_NIL:
      return out.raw(R_NIL);
    case RP_BULK:
      return out.bulkBytes(u8, at + HDR, at + HDR + i32[w + 3]!);
    case RP_PONG:
      return out.raw(R_PONG);
    case RP_EMPTY:
      return out.raw(R_EMPTY);
    default:
      return out.raw(R_ERR);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. io<N>: the main thread starts N I/O workers and is the engine.
interface IoWorkerData {
  role: 'io';
  index: number;
  port: number;
  handoff: 'sab' | 'port';
  req?: SharedArrayBuffer;
  rep?: SharedArrayBuffer;
  bell?: SharedArrayBuffer;
  replyPort?: MessagePort;
  stats: SharedArrayBuffer;
}

// The engine's doorbell, shared by every worker: [0] "asleep, ring me", [16] a ring counter.
const BELL_SLEEP = 0;
const BELL_COUNT = 16;

function runIoMain(port: number, workers: number, handoff: 'sab' | 'port', spinUs: number): void {
  const map = new Map<string, string>();
  const me = fileURLToPath(import.meta.url);
  const statsSab = new SharedArrayBuffer(64 * 4);
  workerStats = new Int32Array(statsSab);
  let listening = 0;
  const started: Worker[] = [];
  const onListening = (msg: { fd: number }): void => {
    // Worker 0 listened on the port; the others accept on its listening socket too (Node 20 has
    // no reusePort; a file descriptor is the process's, so a worker can listen on it).
    if (++listening === 1) for (const w of started.slice(1)) w.postMessage({ fd: msg.fd });
    if (listening === workers) console.log(`ready ${port}`);
  };

  if (handoff === 'port') {
    for (let i = 0; i < workers; i++) {
      const { port1, port2 } = new MessageChannel();
      const replies = new Linear();
      port1.on('message', (ab: ArrayBuffer) => {
        engine.wakes++;
        const u8 = Buffer.from(ab);
        const i32 = new Int32Array(ab);
        for (let at = 0; at < ab.byteLength; at += i32[at >> 2]!) executeRecord(map, u8, i32, at, replies);
        const out = replies.take();
        port1.postMessage(out, [out]);
      });
      const data: IoWorkerData = { role: 'io', index: i, port, handoff, replyPort: port2, stats: statsSab };
      const w = new Worker(me, { workerData: data, transferList: [port2] });
      w.on('message', onListening);
      started.push(w);
    }
    return;
  }

  const bellSab = new SharedArrayBuffer(128);
  const bell = new Int32Array(bellSab);
  const reqs: Ring[] = [];
  const reps: Ring[] = [];
  for (let i = 0; i < workers; i++) {
    const req = Ring.create(4 << 20);
    const rep = Ring.create(4 << 20);
    reqs.push(new Ring(req));
    reps.push(new Ring(rep));
    const data: IoWorkerData = { role: 'io', index: i, port, handoff, req, rep, bell: bellSab, stats: statsSab };
    const w = new Worker(me, { workerData: data });
    w.on('message', onListening);
    started.push(w);
  }

  const drain = (): boolean => {
    engine.wakes++;
    let any = false;
    for (let i = 0; i < workers; i++) {
      const req = reqs[i]!;
      const rep = reps[i]!;
      let at: number;
      while ((at = req.next()) >= 0) executeRecord(map, req.u8, req.i32, at, rep);
      req.release();
      if (rep.publish()) {
        any = true;
        // Notify only a worker that said it is waiting (its flag is set before it re-checks).
        if (Atomics.load(rep.ctrl, SLEEP) === 1) Atomics.notify(rep.ctrl, TAIL);
      }
    }
    return any;
  };
  const anyRequests = (): boolean => reqs.some((r) => r.hasData());

  const wake = (): void => {
    Atomics.store(bell, BELL_SLEEP, 0);
    drain();
    if (spinUs > 0) {
      // Bounded spin: keep draining while requests keep coming within spinUs of the last ones.
      let last = performance.now();
      while (performance.now() - last < spinUs / 1000) {
        if (anyRequests()) {
          drain();
          last = performance.now();
        }
      }
    }
    sleep();
  };
  const sleep = (): void => {
    // Dekker-style: announce sleep, then look; a worker publishes, then looks at the flag.
    Atomics.store(bell, BELL_SLEEP, 1);
    const seq = Atomics.load(bell, BELL_COUNT);
    if (anyRequests()) {
      setImmediate(wake); // yield to the event loop rather than loop here
      return;
    }
    const r = waitAsync(bell, BELL_COUNT, seq);
    if (r.async) void r.value.then(wake);
    else setImmediate(wake);
  };
  sleep();
  // A timer, as a real server has (expiry, stats): the loop must keep turning.
  setInterval(() => undefined, 100);
}

function runIoWorker(d: IoWorkerData): void {
  const conns: (Conn | undefined)[] = [];
  const freeIds: number[] = [];
  const req = d.handoff === 'sab' ? new Ring(d.req!) : null;
  const rep = d.handoff === 'sab' ? new Ring(d.rep!) : null;
  const bell = d.handoff === 'sab' ? new Int32Array(d.bell!) : null;
  const staging = new Linear();
  const sink: RecordSink = req ?? staging;
  const stats = new Int32Array(d.stats, d.index * 8 * 4, 8);

  // Requests of a turn are published once, after the poll phase has read every ready socket.
  let publishScheduled = false;
  const publish = (): void => {
    publishScheduled = false;
    stats[W_BATCHES]!++;
    if (req !== null) {
      req.publish();
      if (Atomics.load(bell!, BELL_SLEEP) === 1) {
        stats[W_BELLS]!++;
        Atomics.add(bell!, BELL_COUNT, 1);
        Atomics.notify(bell!, BELL_COUNT);
      }
    } else if (staging.pos > 0) {
      const ab = staging.take();
      d.replyPort!.postMessage(ab, [ab]);
    }
  };

  let touched: Conn[] = [];
  const onReplies = (u8: Buffer, i32: Int32Array, at: number): void => {
    const c = conns[i32[(at >> 2) + 1]!];
    if (c === undefined) return;
    encodeReply(c.out, u8, i32, at);
    if (!c.queued) {
      c.queued = true;
      touched.push(c);
    }
  };
  const writeTouched = (): void => {
    const batch = touched;
    touched = [];
    for (const c of batch) {
      c.queued = false;
      if (c.out.len > 0 && !c.socket.destroyed) c.socket.write(c.out.take());
    }
  };

  if (rep !== null) {
    const wake = (): void => {
      stats[W_REPLY_WAKES]!++;
      Atomics.store(rep.ctrl, SLEEP, 0);
      let at: number;
      while ((at = rep.next()) >= 0) onReplies(rep.u8, rep.i32, at);
      rep.release();
      writeTouched();
      sleep();
    };
    const sleep = (): void => {
      Atomics.store(rep.ctrl, SLEEP, 1);
      const r = waitAsync(rep.ctrl, TAIL, rep.head);
      if (r.async) void r.value.then(wake);
      else setImmediate(wake);
    };
    sleep();
  } else {
    d.replyPort!.on('message', (ab: ArrayBuffer) => {
      stats[W_REPLY_WAKES]!++;
      const u8 = Buffer.from(ab);
      const i32 = new Int32Array(ab);
      for (let at = 0; at < ab.byteLength; at += i32[at >> 2]!) onReplies(u8, i32, at);
      writeTouched();
    });
  }

  const server = createServer((socket) => {
    const id = freeIds.pop() ?? conns.length;
    const conn: Conn = { id, socket, pending: null, out: new Out(), queued: false };
    conns[id] = conn;
    // Ids are reused after close; a real server would tag them with a generation so that a late
    // reply cannot reach the next connection (redis-benchmark keeps its connections open).
    socket.on('close', () => {
      conns[id] = undefined;
      freeIds.push(id);
    });
    const onCommand = (b: Buffer, op: number): void => {
      // The record carries key and value; PING/CONFIG/unknown carry nothing.
      if (op === OP_SET) writeRecord(sink, id, op, b, argS[1]!, argE[1]!, argS[2]!, argE[2]!);
      else if (op === OP_GET) writeRecord(sink, id, op, b, argS[1]!, argE[1]!, 0, 0);
      else writeRecord(sink, id, op, null, 0, 0, 0, 0);
    };
    startReading(socket, (bytes) => {
      stats[W_READS]!++;
      if (!parseAll(conn, bytes, onCommand)) socket.destroy();
      else if (!publishScheduled) {
        publishScheduled = true;
        setImmediate(publish);
      }
    });
  });
  const announce = (): void => {
    const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
    parentPort!.postMessage({ fd });
  };
  if (d.index === 0) server.listen(d.port, '127.0.0.1', announce);
  else parentPort!.once('message', (m: { fd: number }) => server.listen({ fd: m.fd }, announce));
}

// ---------------------------------------------------------------------------------------------
// Hand-off latency: one 20-byte record there and back through a pair of rings, N times.
//   spin       both threads poll the tail (a core each; the floor of a cache-line hand-off)
//   wait       both block in Atomics.wait / wake with Atomics.notify (futex, no event loop)
//   waitAsync  both wait with Atomics.waitAsync, as the servers above (futex + event loop wake)
//   port       MessagePort.postMessage of a transferred ArrayBuffer holding the record
type PingMode = 'spin' | 'wait' | 'waitAsync' | 'port';

interface PingData {
  role: 'pong';
  mode: PingMode;
  a: SharedArrayBuffer;
  b: SharedArrayBuffer;
  port?: MessagePort;
  n: number;
}

/** Blocks (or spins) until the ring has data, according to mode. For spin and wait only. */
function awaitSync(ring: Ring, mode: PingMode): void {
  if (mode === 'spin') while (!ring.hasData());
  else
    while (!ring.hasData()) {
      Atomics.store(ring.ctrl, SLEEP, 1);
      Atomics.wait(ring.ctrl, TAIL, ring.head);
      Atomics.store(ring.ctrl, SLEEP, 0);
    }
}

function send(ring: Ring, mode: PingMode): void {
  writeRecord(ring, 7, OP_PING, null, 0, 0, 0, 0);
  ring.publish();
  if (mode !== 'spin' && Atomics.load(ring.ctrl, SLEEP) === 1) Atomics.notify(ring.ctrl, TAIL);
}

function take(ring: Ring): void {
  ring.next();
  ring.release();
}

/** Resolves when the ring has data, waiting with waitAsync (the event loop keeps turning). */
function awaitAsync(ring: Ring): Promise<void> | null {
  if (ring.hasData()) return null;
  Atomics.store(ring.ctrl, SLEEP, 1);
  const r = waitAsync(ring.ctrl, TAIL, ring.head);
  if (!r.async) {
    Atomics.store(ring.ctrl, SLEEP, 0);
    return null;
  }
  return r.value.then(() => {
    Atomics.store(ring.ctrl, SLEEP, 0);
  });
}

function runPong(d: PingData): void {
  const inRing = new Ring(d.a);
  const outRing = new Ring(d.b);
  if (d.mode === 'port') {
    d.port!.on('message', (ab: ArrayBuffer) => d.port!.postMessage(ab, [ab]));
    return;
  }
  if (d.mode === 'waitAsync') {
    // A pending waitAsync does not keep a worker's event loop alive; a timer does.
    const keepAlive = setInterval(() => undefined, 1000);
    let left = d.n;
    const step = (): void => {
      for (;;) {
        const p = awaitAsync(inRing);
        if (p !== null) {
          void p.then(step);
          return;
        }
        take(inRing);
        send(outRing, 'waitAsync');
        if (--left === 0) return clearInterval(keepAlive);
      }
    };
    step();
    return;
  }
  for (let i = 0; i < d.n; i++) {
    awaitSync(inRing, d.mode);
    take(inRing);
    send(outRing, d.mode);
  }
}

async function pingPong(mode: PingMode, n: number): Promise<number> {
  const a = Ring.create(1 << 16);
  const b = Ring.create(1 << 16);
  const out = new Ring(a);
  const back = new Ring(b);
  const { port1, port2 } = new MessageChannel();
  const data: PingData = { role: 'pong', mode, a, b, n, ...(mode === 'port' ? { port: port2 } : {}) };
  const w = new Worker(fileURLToPath(import.meta.url), { workerData: data, transferList: mode === 'port' ? [port2] : [] });
  await new Promise((r) => w.once('online', r));
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  if (mode === 'port') {
    const rec = new Linear();
    await new Promise<void>((resolve) => {
      let left = n;
      port1.on('message', (ab: ArrayBuffer) => {
        if (--left === 0) return resolve();
        writeRecord(rec, 7, OP_PING, null, 0, 0, 0, 0);
        const m = rec.take();
        port1.postMessage(m, [m]);
        void ab;
      });
      writeRecord(rec, 7, OP_PING, null, 0, 0, 0, 0);
      const m = rec.take();
      port1.postMessage(m, [m]);
    });
  } else if (mode === 'waitAsync') {
    await new Promise<void>((resolve) => {
      let left = n;
      const step = (): void => {
        for (;;) {
          const p = awaitAsync(back);
          if (p !== null) {
            void p.then(step);
            return;
          }
          take(back);
          if (--left === 0) return resolve();
          send(out, mode);
        }
      };
      send(out, mode);
      step();
    });
  } else {
    for (let i = 0; i < n; i++) {
      send(out, mode);
      awaitSync(back, mode);
      take(back);
    }
  }
  const ns = ((performance.now() - t0) * 1e6) / n;
  port1.close();
  await w.terminate();
  return ns;
}

// ---------------------------------------------------------------------------------------------
// The orchestrator.
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

interface Ticks {
  user: number;
  sys: number;
  main: number;
}

function statFields(statPath: string): string[] {
  const stat = readFileSync(statPath, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds of the whole process (user, system) and of its main thread (tid = pid). */
function cpu(pid: number): Ticks {
  const f = statFields(`/proc/${pid}/stat`);
  const m = statFields(`/proc/${pid}/task/${pid}/stat`);
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100, main: (Number(m[11]) + Number(m[12])) / 100 };
}

/** The machine's busy and stolen CPU seconds (all CPUs, from the first line of /proc/stat). */
function machine(): { busy: number; steal: number } {
  const f = readFileSync('/proc/stat', 'latin1').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return { busy: (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) / 100, steal: f[7]! / 100 };
}

/** Starts `node io-threads.js --serve kind` on a free port of BENCH_PORTS; resolves on "ready". */
async function startProto(kind: string, spinUs: number): Promise<StartedServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', kind, '--port', String(port), '--spin', String(spinUs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
  });
  return {
    child,
    port,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The prototype's STATS counters (requests, hand-off batches, thread wake-ups), or null for redis. */
function serverStats(port: number): Promise<Record<string, number> | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.startsWith('-')) {
        socket.destroy();
        resolve(null);
      }
      const m = /^\$(\d+)\r\n/.exec(got);
      if (m !== null && got.length >= m[0].length + Number(m[1]) + 2) {
        socket.destroy();
        const line = got.slice(m[0].length, m[0].length + Number(m[1]));
        resolve(Object.fromEntries(line.split(' ').map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])])));
      }
    });
    socket.on('error', () => resolve(null));
    socket.write('STATS\r\n');
  });
}

interface Run {
  rps: number;
  cpuUs: number;
  userUs: number;
  sysUs: number;
  mainUs: number;
  clientUs: number;
  /** Requests per hand-off batch (io) or per write turn (single). */
  perBatch: number;
  /** Cross-thread wake-ups (engine + reply) per request, io servers only. */
  wakesPerReq: number;
  /** CPU used meanwhile by everything but the server and redis-benchmark, in % of one core. */
  othersPct: number;
  stealPct: number;
}

/** One redis-benchmark test; redis-benchmark's own CPU comes from bash's `times` (its children). */
async function benchmark(server: StartedServer, test: string, pipeline: number, n: number, clients: number): Promise<Run> {
  const args = ['-p', String(server.port), '-q', '-c', String(clients), '-n', String(n), '-P', String(pipeline), '-t', test];
  const pid = server.child.pid!;
  const s0 = await serverStats(server.port);
  const before = cpu(pid);
  const m0 = machine();
  const t0 = performance.now();
  const { stdout } = await runFile('bash', ['-c', 'redis-benchmark "$@"; times', 'bash', ...args], { maxBuffer: 16 << 20 });
  const wall = (performance.now() - t0) / 1000;
  const m1 = machine();
  const after = cpu(pid);
  const s1 = await serverStats(server.port);
  const m = /: ([\d.]+) requests per second/.exec(stdout);
  const t = /\n(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(stdout);
  if (m === null || t === null) throw new Error(`no result from redis-benchmark ${args.join(' ')}: ${stdout}`);
  const clientSec = Number(t[1]) * 60 + Number(t[2]) + Number(t[3]) * 60 + Number(t[4]);
  const user = after.user - before.user;
  const sys = after.sys - before.sys;
  const d = (k: string): number => (s0 !== null && s1 !== null ? s1[k]! - s0[k]! : NaN);
  const requests = d('requests');
  return {
    rps: Number(m[1]),
    cpuUs: ((user + sys) * 1e6) / n,
    userUs: (user * 1e6) / n,
    sysUs: (sys * 1e6) / n,
    mainUs: ((after.main - before.main) * 1e6) / n,
    clientUs: (clientSec * 1e6) / n,
    perBatch: requests / d('batches'),
    wakesPerReq: (d('mainWakes') + d('replyWakes')) / requests,
    othersPct: ((m1.busy - m0.busy - user - sys - clientSec) / wall) * 100,
    stealPct: ((m1.steal - m0.steal) / wall) * 100,
  };
}

const fmt = (x: number, w: number, digits = 2): string => (Number.isNaN(x) ? '-' : x.toFixed(digits)).padStart(w);

async function orchestrate(): Promise<void> {
  const rounds = Number(arg('rounds', '3'));
  const clients = Number(arg('clients', '50'));
  const n1 = Number(arg('n1', '200000'));
  const n16 = Number(arg('n16', '500000'));
  const spinUs = Number(arg('spin', '30'));
  const names = arg('servers', 'single,io1-sab,io2-sab,io1-sabspin,io1-port,io2-port,redis').split(',');

  if (!process.argv.includes('--no-pingpong')) {
    console.log('hand-off ping-pong between two threads, one 20-byte record each way (ns per round trip; 5 runs)');
    for (const mode of ['spin', 'wait', 'waitAsync', 'port'] as const) {
      const n = mode === 'spin' ? 500_000 : 50_000;
      const runs: number[] = [];
      for (let r = 0; r < 5; r++) runs.push(await pingPong(mode, n));
      console.log(`  ${mode.padEnd(10)} ${runs.map((x) => x.toFixed(0).padStart(7)).join('')}   median ${median(runs).toFixed(0)} ns/round trip`);
    }
    if (process.argv.includes('--pingpong-only')) return;
  }

  const servers = new Map<string, StartedServer>();
  try {
    for (const name of names) servers.set(name, name === 'redis' ? await startRedis() : await startProto(name, spinUs));
    // Warm-up: JIT the Node servers (and page in redis) before anything is measured.
    for (const s of servers.values()) {
      await benchmark(s, 'set,get', 16, 100_000, clients);
      await benchmark(s, 'set,get', 1, 20_000, clients);
    }
    const results = new Map<string, Run[]>();
    console.log(`\nredis-benchmark -c ${clients}; every run (server order reverses each round). µs per request: cpu = server process`);
    console.log('(all threads) = usr + sys; main = its main thread; client = redis-benchmark. req/b = requests per hand-off');
    console.log('batch (single: per write turn); wk/req = cross-thread wake-ups per request; others = CPU % (of one core) used by');
    console.log('other processes on the machine meanwhile; steal = CPU % stolen by the hypervisor');
    const head =
      `${'test'.padEnd(10)}${'rnd'.padStart(4)} ${'server'.padEnd(12)}${'rps'.padStart(8)}${'cpu'.padStart(7)}${'usr'.padStart(7)}` +
      `${'sys'.padStart(7)}${'main'.padStart(7)}${'client'.padStart(7)}${'req/b'.padStart(7)}${'wk/req'.padStart(7)}${'others'.padStart(7)}${'steal'.padStart(6)}`;
    console.log(head);
    for (const [pipeline, n] of [
      [1, n1],
      [16, n16],
    ] as const) {
      for (const test of ['set', 'get']) {
        const label = `${test} -P ${pipeline}`;
        for (let r = 0; r < rounds; r++) {
          const order = r % 2 === 0 ? names : [...names].reverse();
          for (const name of order) {
            const run = await benchmark(servers.get(name)!, test, pipeline, n, clients);
            const key = `${label}|${name}`;
            results.set(key, [...(results.get(key) ?? []), run]);
            console.log(
              `${label.padEnd(10)}${String(r + 1).padStart(4)} ${name.padEnd(12)}${run.rps.toFixed(0).padStart(8)}${fmt(run.cpuUs, 7)}` +
                `${fmt(run.userUs, 7)}${fmt(run.sysUs, 7)}${fmt(run.mainUs, 7)}${fmt(run.clientUs, 7)}${fmt(run.perBatch, 7, 1)}` +
                `${fmt(run.wakesPerReq, 7, 3)}${fmt(run.othersPct, 7, 0)}${fmt(run.stealPct, 6, 0)}`,
            );
          }
        }
      }
    }
    console.log(`\nmedians of ${rounds} rounds; x = ratio against redis (rps: higher is better; cpu: lower is better)`);
    console.log(
      `${'test'.padEnd(10)}${'server'.padEnd(12)}${'rps'.padStart(8)}${'x'.padStart(6)}${'cpu'.padStart(7)}${'x'.padStart(6)}` +
        `${'usr'.padStart(7)}${'sys'.padStart(7)}${'main'.padStart(7)}${'client'.padStart(7)}${'req/b'.padStart(7)}${'wk/req'.padStart(7)}`,
    );
    for (const pipeline of [1, 16]) {
      for (const test of ['set', 'get']) {
        const label = `${test} -P ${pipeline}`;
        const med = (name: string, f: (r: Run) => number): number => median(results.get(`${label}|${name}`)!.map(f));
        const redisRps = names.includes('redis') ? med('redis', (r) => r.rps) : NaN;
        const redisCpu = names.includes('redis') ? med('redis', (r) => r.cpuUs) : NaN;
        for (const name of names) {
          const rps = med(name, (r) => r.rps);
          const c = med(name, (r) => r.cpuUs);
          console.log(
            `${label.padEnd(10)}${name.padEnd(12)}${rps.toFixed(0).padStart(8)}${fmt(rps / redisRps, 6)}${fmt(c, 7)}${fmt(c / redisCpu, 6)}` +
              `${fmt(med(name, (r) => r.userUs), 7)}${fmt(med(name, (r) => r.sysUs), 7)}${fmt(med(name, (r) => r.mainUs), 7)}` +
              `${fmt(med(name, (r) => r.clientUs), 7)}${fmt(med(name, (r) => r.perBatch), 7, 1)}${fmt(med(name, (r) => r.wakesPerReq), 7, 3)}`,
          );
        }
      }
    }
    // How the connections spread over two I/O workers (threads other than main that used CPU).
    for (const [name, s] of servers) {
      if (!name.startsWith('io2')) continue;
      const pid = s.child.pid!;
      const threads = readdirSync(`/proc/${pid}/task`)
        .map((tid) => {
          const f = statFields(`/proc/${pid}/task/${tid}/stat`);
          return { tid, sec: (Number(f[11]) + Number(f[12])) / 100 };
        })
        .filter((t) => t.sec > 1)
        .map((t) => `${t.tid === String(pid) ? 'main' : t.tid}:${t.sec.toFixed(1)}s`);
      console.log(`${name} threads with >1 s CPU: ${threads.join(' ')}`);
    }
  } finally {
    for (const s of servers.values()) await s.stop();
  }
}

// ---------------------------------------------------------------------------------------------
if (!isMainThread) {
  const d = workerData as IoWorkerData | PingData;
  if (d.role === 'io') runIoWorker(d);
  else runPong(d);
} else if (process.argv.includes('--serve')) {
  const kind = arg('serve', 'single');
  const port = Number(arg('port', '0'));
  process.on('SIGTERM', () => process.exit(0));
  const io = /^io(\d+)-(sab|sabspin|port)$/.exec(kind);
  if (kind === 'single') runSingle(port);
  else if (io !== null) runIoMain(port, Number(io[1]), io[2] === 'port' ? 'port' : 'sab', io[2] === 'sabspin' ? Number(arg('spin', '30')) : 0);
  else throw new Error(`unknown server ${kind}`);
} else {
  orchestrate().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
