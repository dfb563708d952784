// A request's arguments as the parser found them: offsets into the connection's read arena,
// read only as the handler needs them. A key is decoded straight to its string, an option is
// compared in place, a value is copied once into what is stored. Creating a Buffer view per
// argument (about 85 ns) plus the argv array was the largest cost of a pipelined SET or GET
// (docs/server.md, "Pipelined requests").
//
// The parser's RequestArgs object is reused for every command of its connection, so nothing may
// keep the object itself past the handler's return. The Buffers it hands out (buffer(i),
// buffers(), toArgv()) stay valid, since the arena is append-only (input-buffer.ts): that is what
// a MULTI queue, the AOF or a blocked command keeps.
import { Buffer } from 'node:buffer';
import { MAX_INTERNED, sharedArgs } from './arg-intern.js';

const EMPTY = Buffer.alloc(0);
const WIRE: { buf: Buffer; start: number } = { buf: EMPTY, start: 0 };

function decimalDigits(n: number): number {
  return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : String(n).length;
}
const NO_OFFSETS = new Int32Array(0);

/** Buffer's own latin1 decoder, which toString('latin1') reaches after its generic checks. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice: (this: Buffer, start: number, end: number) => string }).latin1Slice;

/** Values up to this size are copied in JS: Buffer.from's generic checks cost more (~60 vs ~100 ns). */
const SHORT_COPY = 32;

/** Keys up to this length are remembered by latin1Key (compared in JS, char by char). */
const REMEMBERED_KEY = 32;
let lastKey = '';

/** buf[start, end) as a key: one latin1 char per byte, as keyspace.ts's keyOf. */
function latin1Key(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  // One-byte keys come from V8's one-char string cache, without a native call.
  if (n === 1) return String.fromCharCode(buf[start]!);
  // Consecutive requests often name the same key (a producer's stream, a counter): the string
  // decoded last is reused (no native call, and its hash for the keyspace lookup is known).
  if (n === lastKey.length && n <= REMEMBERED_KEY) {
    let j = 0;
    while (j < n && lastKey.charCodeAt(j) === buf[start + j]) j++;
    if (j === n) return lastKey;
  }
  const key = latin1Slice.call(buf, start, end);
  if (n <= REMEMBERED_KEY) lastKey = key;
  return key;
}

/** A copy of buf[start, end) that the caller owns (a value to store). */
export function ownedCopy(buf: Buffer, start: number, end: number): Buffer {
  const n = end - start;
  if (n > SHORT_COPY) return Buffer.from(buf.subarray(start, end));
  const out = Buffer.allocUnsafe(n);
  for (let j = 0; j < n; j++) out[j] = buf[start + j]!;
  return out;
}

/** buf[start, end) equals `lowerWord` (lower-case ASCII), ignoring ASCII case. */
export function equalsLower(buf: Buffer, start: number, end: number, lowerWord: string): boolean {
  if (end - start !== lowerWord.length) return false;
  for (let j = 0; j < lowerWord.length; j++) {
    let c = buf[start + j]!;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lowerWord.charCodeAt(j)) return false;
  }
  return true;
}

/** What takes arguments as byte ranges (the engine's EntryFields), without a Buffer per argument. */
export interface ByteRangeSink {
  push(source: Buffer, start: number, end: number): void;
}

export class RequestArgs {
  /** How many arguments the request has (the command name included). */
  length = 0;
  /** The arena arguments [heldCount, length) point into. */
  private buf: Buffer = EMPTY;
  // Allocated by the first push: RequestArgs.of() needs none.
  private starts = NO_OFFSETS;
  private ends = NO_OFFSETS;
  /**
   * Arguments [0, heldCount) as Buffers: all of them for a request given as an argv, the
   * first ones of a request whose arena was replaced while it was still arriving.
   */
  private held: Buffer[];
  private heldCount = 0;
  /** The request as Buffers, once toArgv() built it. */
  private argv: Buffer[] | null = null;
  /**
   * Set by the parser for a multibulk request it read: the arena then holds each argument's
   * `$<len>` header before it, as the parser found it (wire()). Arguments pushed otherwise (an
   * embedded call's, written back to back) have no headers around them.
   */
  fromResp = false;

  constructor(argv?: Buffer[]) {
    this.held = argv ?? [];
    if (argv !== undefined) {
      this.length = this.heldCount = argv.length;
      this.argv = argv;
    }
  }

  /** An argv as RequestArgs (the embedded client, MULTI's queue, AOF replay). */
  static of(argv: Buffer[]): RequestArgs {
    return new RequestArgs(argv);
  }

  /**
   * This request kept past its turn (MULTI's queue) without a Buffer view per argument
   * (toArgv(): a worker's MULTIs of record writes made 5 KB of views a job). The arena is
   * append-only, so offsets into it stay valid: a request laid out as the parser's fast path
   * reads it (each `$<len>` header, in canonical digits, right after the argument before) is
   * kept as its first argument's offsets alone, load() finding the others from the headers;
   * any other, as the offsets of every argument.
   */
  keep(): QueuedRequest {
    if (this.heldCount > 0) return new QueuedRequest(this.length, EMPTY, 0, 0, null, this.toArgv());
    const n = this.length;
    const starts = this.starts;
    const ends = this.ends;
    let canonical = true;
    for (let i = 1; i < n && canonical; i++) {
      // CRLF, "$", the digits, CRLF.
      canonical = starts[i] === ends[i - 1]! + 5 + decimalDigits(ends[i]! - starts[i]!);
    }
    if (canonical) return new QueuedRequest(n, this.buf, starts[0]!, ends[0]!, null, null, this.fromResp);
    const ranges = new Array<number>(2 * n);
    for (let i = 0; i < n; i++) {
      ranges[2 * i] = starts[i]!;
      ranges[2 * i + 1] = ends[i]!;
    }
    return new QueuedRequest(n, this.buf, 0, 0, ranges, null);
  }

  /**
   * The request as it arrived, when those bytes are exactly RESP's encoding of its arguments
   * (every `$<len>` header in canonical digits, right after the argument before): its arena
   * and where its first `$` is. null otherwise (an inline command, an argv, leading zeros).
   * A log may then copy the bytes instead of encoding the arguments again (WireCommand).
   */
  wire(): { buf: Buffer; start: number } | null {
    const n = this.length;
    if (!this.fromResp || this.heldCount > 0 || n === 0) return null;
    const starts = this.starts;
    const ends = this.ends;
    let first = 0;
    for (let i = 0; i < n; i++) {
      // "$", the digits, CRLF.
      const header = 3 + decimalDigits(ends[i]! - starts[i]!);
      if (i > 0 ? starts[i] !== ends[i - 1]! + 2 + header : this.buf[(first = starts[0]! - header)] !== 36) return null;
    }
    // One object for every call: read at once, never kept.
    WIRE.buf = this.buf;
    WIRE.start = first;
    return WIRE;
  }

  /** The Buffer argument i lies in, at [argStart(i), argEnd(i)): to read it in place. */
  argBuffer(i: number): Buffer {
    return i < this.heldCount ? this.held[i]! : this.buf;
  }

  /** Where argument i starts in argBuffer(i) (in the arena: after its header). */
  argStart(i: number): number {
    return i < this.heldCount ? 0 : this.starts[i]!;
  }

  /** Where argument i ends in argBuffer(i) (in the arena: before its CRLF). */
  argEnd(i: number): number {
    return i < this.heldCount ? this.held[i]!.length : this.ends[i]!;
  }

  /** Makes this the request `kept` holds (a RequestArgs reused for each queued command of an EXEC). */
  load(kept: QueuedRequest): this {
    this.reset();
    if (kept.argv !== null) {
      this.pushAll(kept.argv);
      this.argv = kept.argv;
      return this;
    }
    const n = kept.length;
    while (this.starts.length < n) this.grow();
    const starts = this.starts;
    const ends = this.ends;
    const ranges = kept.ranges;
    if (ranges !== null) {
      for (let i = 0; i < n; i++) {
        starts[i] = ranges[2 * i]!;
        ends[i] = ranges[2 * i + 1]!;
      }
    } else {
      const buf = kept.buf;
      let end = kept.firstEnd;
      starts[0] = kept.firstStart;
      ends[0] = end;
      for (let i = 1; i < n; i++) {
        let p = end + 3; // past CRLF and "$"
        let len = 0;
        for (let c = buf[p]!; c >= 48 && c <= 57; c = buf[++p]!) len = len * 10 + (c - 48);
        starts[i] = p + 2;
        end = p + 2 + len;
        ends[i] = end;
      }
    }
    this.buf = kept.buf;
    this.held.length = 0;
    this.length = n;
    this.fromResp = kept.fromResp;
    return this;
  }

  // --- filled by the parser ------------------------------------------------------------------

  /** Starts a new request. */
  reset(): void {
    this.length = 0;
    this.heldCount = 0;
    this.argv = null;
    this.fromResp = false;
  }

  /** Forgets the arena and held Buffers, so an idle connection pins no memory. */
  clear(): void {
    this.reset();
    this.buf = EMPTY;
    this.held.length = 0;
  }

  /** Appends the argument buf[start, end). */
  push(buf: Buffer, start: number, end: number): void {
    // The arena changed while this request was arriving: earlier arguments keep the old one.
    if (buf !== this.buf) {
      this.hold();
      this.buf = buf;
    }
    const n = this.length;
    if (n === this.starts.length) this.grow();
    this.starts[n] = start;
    this.ends[n] = end;
    this.length = n + 1;
  }

  /** Sets the whole request from Buffers (an inline command's words). */
  pushAll(argv: Buffer[]): void {
    this.hold();
    for (const arg of argv) this.held[this.length++] = arg;
    this.heldCount = this.length;
  }

  private hold(): void {
    for (let i = this.heldCount; i < this.length; i++) this.held[i] = this.view(i);
    this.heldCount = this.length;
  }

  private grow(): void {
    const size = Math.max(16, this.starts.length * 2);
    const starts = new Int32Array(size);
    const ends = new Int32Array(size);
    starts.set(this.starts);
    ends.set(this.ends);
    this.starts = starts;
    this.ends = ends;
  }

  private view(i: number): Buffer {
    const start = this.starts[i]!;
    const len = this.ends[i]! - start;
    return len <= MAX_INTERNED ? sharedArgs.get(this.buf, start, len) : this.buf.subarray(start, start + len);
  }

  // --- read by handlers ----------------------------------------------------------------------

  /** Argument i as a Buffer: shared with the read arena, never to be written into. */
  buffer(i: number): Buffer {
    return i < this.heldCount ? this.held[i]! : this.view(i);
  }

  /** Argument i as a key: one latin1 char per byte (keyspace.ts). */
  key(i: number): string {
    if (i < this.heldCount) {
      const arg = this.held[i]!;
      return latin1Key(arg, 0, arg.length);
    }
    return latin1Key(this.buf, this.starts[i]!, this.ends[i]!);
  }

  /** Arguments [from, length) as Buffers (a stream entry's fields and values). */
  buffers(from: number): Buffer[] {
    const out = new Array<Buffer>(this.length - from);
    for (let i = from; i < this.length; i++) out[i - from] = this.buffer(i);
    return out;
  }

  /** Pushes arguments [from, length) to `into` as ranges of the buffers they lie in. */
  rangesInto<T extends ByteRangeSink>(from: number, into: T): T {
    for (let i = from; i < this.length; i++) {
      if (i < this.heldCount) {
        const arg = this.held[i]!;
        into.push(arg, 0, arg.length);
      } else {
        into.push(this.buf, this.starts[i]!, this.ends[i]!);
      }
    }
    return into;
  }

  /** Argument i's length in bytes. */
  byteLength(i: number): number {
    return i < this.heldCount ? this.held[i]!.length : this.ends[i]! - this.starts[i]!;
  }

  /** A copy of argument i that the caller owns (a value to store). */
  copy(i: number): Buffer {
    if (i < this.heldCount) {
      const arg = this.held[i]!;
      return ownedCopy(arg, 0, arg.length);
    }
    return ownedCopy(this.buf, this.starts[i]!, this.ends[i]!);
  }

  /** Byte j of argument i, ASCII letters lower-cased (a command name's first byte). */
  lowerByte(i: number, j: number): number {
    const c = i < this.heldCount ? this.held[i]![j]! : this.buf[this.starts[i]! + j]!;
    return c >= 65 && c <= 90 ? c + 32 : c;
  }

  /** Argument i equals `lowerWord` (lower-case ASCII), ignoring ASCII case. */
  is(i: number, lowerWord: string): boolean {
    if (i < this.heldCount) {
      const arg = this.held[i]!;
      return equalsLower(arg, 0, arg.length, lowerWord);
    }
    return equalsLower(this.buf, this.starts[i]!, this.ends[i]!, lowerWord);
  }

  /**
   * The request as Buffers that stay valid after it ran, argument `at` replaced by `value`: a
   * command's propagated form (XADD's generated id), without toArgv()'s array to copy first.
   */
  argvWith<T>(at: number, value: T): Array<Buffer | T> {
    const out = new Array<Buffer | T>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = i === at ? value : this.buffer(i);
    return out;
  }

  /** The request as Buffers that stay valid after it ran (built once per request). */
  toArgv(): Buffer[] {
    if (this.argv !== null) return this.argv;
    const argv = new Array<Buffer>(this.length);
    for (let i = 0; i < this.length; i++) argv[i] = this.buffer(i);
    this.argv = argv;
    return argv;
  }
}

/** A request kept by RequestArgs.keep(): where its arguments are in its arena, or its Buffers. */
export class QueuedRequest {
  constructor(
    readonly length: number,
    readonly buf: Buffer,
    /** The first argument's offsets in `buf` (the others follow it, canonically) when `ranges` is null. */
    readonly firstStart: number,
    readonly firstEnd: number,
    /** start, end of each argument in `buf`, for a request laid out otherwise. */
    readonly ranges: number[] | null,
    /** The request as Buffers (an argv queued by execute()): buf and the offsets unused. */
    readonly argv: Buffer[] | null,
    /** Read by the parser from RESP (RequestArgs.fromResp): its headers are in `buf`. */
    readonly fromResp = false,
  ) {}

  /** An argv as a queued request (a command queued by execute()). */
  static of(argv: Buffer[]): QueuedRequest {
    return new QueuedRequest(argv.length, EMPTY, 0, 0, null, argv);
  }

  /** The request as Buffers (views of the arena). */
  toArgv(): Buffer[] {
    if (this.argv !== null) return this.argv;
    return new RequestArgs().load(this).toArgv();
  }
}
