import { Buffer } from 'node:buffer';
import {
  BooleanReply, DirectReply, DoubleReply, ErrorReply, MapReply, NULL_ARRAY, OK, PushReply, Replies,
  type Reply, type ReplyWriter, SetReply, SimpleString, StreamIdReply, VerbatimReply,
} from './reply.js';

export type Protocol = 2 | 3;

/** Formats a double the way Redis does (%.17g, with inf/-inf/nan spelled out). */
export function formatDouble(value: number): string {
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Number.isNaN(value)) return 'nan';
  if (Object.is(value, -0)) return '-0';
  // Integers print exactly below 2^53; above it String() gives the shortest round-trip form, not %.17g.
  if (Number.isInteger(value) && Math.abs(value) <= 2 ** 53) return String(value);
  // %.17g: 17 significant digits, exponent form below 1e-4 and from 1e17 (toPrecision would
  // keep fixed form down to 1e-6).
  const [digits, x] = significant17(value);
  const sign = value < 0 ? '-' : '';
  if (x < -4 || x >= 17) {
    return `${sign}${trimZeros(`${digits[0]}.${digits.slice(1)}`)}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  }
  if (x < 0) return `${sign}${trimZeros(`0.${'0'.repeat(-x - 1)}${digits}`)}`;
  return `${sign}${x === 16 ? digits : trimZeros(`${digits.slice(0, x + 1)}.${digits.slice(x + 1)}`)}`;
}

/**
 * The 17 significant digits of |value| and its decimal exponent, rounded as glibc rounds: to
 * nearest, ties to even on the exact binary value. JS's toExponential breaks ties upwards, so
 * 366376387901483.125 would print ...483.13 where Redis prints ...483.12.
 */
function significant17(value: number): [string, number] {
  const magnitude = Math.abs(value);
  const [mantissa, exp] = magnitude.toExponential(16).split('e') as [string, string];
  const eighteen = magnitude.toExponential(17);
  if (eighteen[18] === '5' && Number(mantissa[17]) % 2 === 1) {
    // Rounded up to an odd last digit: a tie only if the exact expansion ends at the 5.
    const [exact, exactExp] = magnitude.toExponential(100).split('e') as [string, string];
    if (/^0*$/.test(exact.slice(19))) return [exact[0] + exact.slice(2, 18), Number(exactExp)];
  }
  return [mantissa[0] + mantissa.slice(2), Number(exp)];
}

function trimZeros(digits: string): string {
  return digits.includes('.') ? digits.replace(/\.?0+$/, '') : digits;
}

/** Smallest output arena; replies are written straight into it. */
const MIN_ARENA = 16 * 1024;
/** Strings up to this many UTF-16 units are scanned for ASCII in JS instead of byteLength(). */
const SHORT_STRING = 256;
/** Buffers up to this size are copied byte by byte; a native copy costs more than that. */
const SHORT_BUFFER = 32;
const CRLF_BYTES = 2;
/** Room for a type byte, a 64-bit length and CRLF. */
const HEADER_ROOM = 24;
/** take() drops the arena when less than this is left in it. */
const RELEASE_BELOW = 1024;
/**
 * take() also drops an arena bigger than this: one that grew for a big reply (an XRANGE of a
 * 1M-entry stream: ~60 MB, in an arena up to twice that) would otherwise stay with its
 * connection for as long as the connection lives, as Redis's reply buffers do not.
 */
const KEEP_AFTER_TAKE = 1 << 20;
const EMPTY = Buffer.alloc(0);

/**
 * Serialises replies into RESP, straight into a Buffer arena (no intermediate strings or
 * chunk lists). take() returns a view of the bytes written since the last take() and later
 * writes continue after them, so a returned Buffer is never overwritten; a full arena is
 * replaced by a fresh one, twice the size of what is pending.
 */
export class Encoder implements ReplyWriter {
  private buf: Buffer = EMPTY;
  private pos = 0;
  /** Start of the bytes not yet handed out by take(). */
  private mark = 0;
  /** The ms of the last stream id written (safe integers only) and its decimal digits. */
  private idMs = -1;
  private readonly idMsDigits = new Uint8Array(16);
  private idMsLength = 0;

  constructor(private readonly protocol: Protocol) {}

  write(reply: Reply): this {
    this.encode(reply);
    return this;
  }

  /**
   * A command as the AOF logs it: an array of bulk strings given as Buffers, texts or stream
   * ids (written from their numbers). The same bytes as write() of that array, without a
   * reply's type checks for every argument.
   */
  command(argv: ReadonlyArray<Buffer | string | StreamIdReply>): this {
    this.header(42, argv.length);
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!;
      if (typeof arg === 'string') this.bulkText(arg);
      else if (arg instanceof StreamIdReply) this.streamId(arg.ms, arg.seq);
      else this.bulk(arg);
    }
    return this;
  }

  /** Bytes written since the last take(). */
  get pending(): number {
    return this.pos - this.mark;
  }

  /** Returns everything written since the last take(). */
  take(): Buffer {
    const out = this.buf.subarray(this.mark, this.pos);
    this.mark = this.pos;
    // A nearly full arena is let go now rather than held by an idle connection.
    if (this.buf.length - this.pos < RELEASE_BELOW || this.buf.length > KEEP_AFTER_TAKE) {
      this.buf = EMPTY;
      this.pos = this.mark = 0;
    }
    return out;
  }

  /**
   * Starts over at the arena's beginning. Only for an owner that knows every Buffer take()
   * handed out is dead (written with a synchronous write(2) and dropped), as the AOF's are.
   * A fresh arena every few batches left freed ones between long-lived allocations, which
   * malloc could not give back: filling 1M entries with the AOF on grew RSS by 44-46 B/entry
   * (53-55 with a rewrite) against 33-34 (37-40) with one reused arena. An arena over
   * `maxKeep` bytes is let go.
   */
  reuse(maxKeep: number): void {
    if (this.pos !== this.mark) throw new Error('Encoder.reuse: bytes written since the last take()');
    if (this.buf.length > maxKeep) this.buf = EMPTY;
    this.pos = this.mark = 0;
  }

  private ensure(n: number): void {
    if (this.buf.length - this.pos >= n) return;
    const pending = this.pos - this.mark;
    const next = Buffer.allocUnsafe(Math.max(MIN_ARENA, 2 * (pending + n)));
    this.buf.copy(next, 0, this.mark, this.pos);
    this.buf = next;
    this.pos = pending;
    this.mark = 0;
  }

  /** Writes a non-negative or negative safe integer in decimal (room already ensured). */
  private digits(n: number): void {
    if (n < 0) {
      this.buf[this.pos++] = 45;
      n = -n;
    }
    this.pos = Encoder.decimal(this.buf, this.pos, n, Encoder.digitCount(n));
  }

  /** Decimal digits of a non-negative safe integer. */
  static digitCount(n: number): number {
    let count = 1;
    for (let t = n; t >= 10; t = Math.floor(t / 10)) count++;
    return count;
  }

  // --- ReplyWriter: what a DirectReply writes through ---------------------------------------------
  // Each writes with one room check and no helper calls for the usual small sizes: these run
  // once per field and value of every entry an XRANGE or XREADGROUP returns.

  arrayHeader(n: number): void {
    if (n < 10 && this.buf.length - this.pos >= 4) {
      const buf = this.buf;
      let p = this.pos;
      buf[p++] = 42;
      buf[p++] = 48 + n;
      buf[p++] = 13;
      buf[p++] = 10;
      this.pos = p;
      return;
    }
    this.header(42, n);
  }

  mapHeader(n: number): void {
    if (this.protocol === 3) this.header(37, n);
    else this.header(42, n * 2);
  }

  bulkBytes(src: Buffer, start: number, end: number): void {
    const len = end - start;
    if (len < 10 && this.buf.length - this.pos >= 16) {
      // "$n\r\n", at most 9 bytes, "\r\n".
      const buf = this.buf;
      let p = this.pos;
      buf[p++] = 36;
      buf[p++] = 48 + len;
      buf[p++] = 13;
      buf[p++] = 10;
      for (let i = start; i < end; i++) buf[p++] = src[i]!;
      buf[p++] = 13;
      buf[p++] = 10;
      this.pos = p;
      return;
    }
    this.header(36, len);
    this.ensure(len + CRLF_BYTES);
    const buf = this.buf;
    if (len <= SHORT_BUFFER) {
      let p = this.pos;
      for (let i = start; i < end; i++) buf[p++] = src[i]!;
      this.pos = p;
    } else {
      src.copy(buf, this.pos, start, end);
      this.pos += len;
    }
    this.crlf();
  }

  bulkLatin1(text: string): void {
    const len = text.length;
    this.header(36, len);
    this.ensure(len + CRLF_BYTES);
    const buf = this.buf;
    if (len <= SHORT_BUFFER) {
      let p = this.pos;
      for (let i = 0; i < len; i++) buf[p++] = text.charCodeAt(i);
      this.pos = p;
    } else {
      this.pos += buf.write(text, this.pos, 'latin1');
    }
    this.crlf();
  }

  bulkDecimal(n: number): void {
    if (this.buf.length - this.pos < 2 * HEADER_ROOM) this.ensure(2 * HEADER_ROOM);
    const length = Encoder.digitCount(n);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 36;
    p = Encoder.smallDecimal(buf, p, length);
    buf[p++] = 13;
    buf[p++] = 10;
    p = Encoder.decimal(buf, p, n, length);
    buf[p++] = 13;
    buf[p++] = 10;
    this.pos = p;
  }

  /** Bytes src[start, end) as they are (a request's own canonical RESP, copied into a log). */
  rawRange(src: Buffer, start: number, end: number): void {
    const len = end - start;
    this.ensure(len);
    if (len <= SHORT_BUFFER) {
      const buf = this.buf;
      let p = this.pos;
      for (let i = start; i < end; i++) buf[p++] = src[i]!;
      this.pos = p;
    } else {
      src.copy(this.buf, this.pos, start, end);
      this.pos += len;
    }
  }

  /** Bytes as they are. */
  raw(bytes: Buffer): void {
    this.ensure(bytes.length);
    bytes.copy(this.buf, this.pos);
    this.pos += bytes.length;
  }

  /** A stream id as the bulk string "ms-seq", its digits written from numbers. */
  streamId(ms: number | bigint, seq: number | bigint): void {
    // Parts above 2^53 are bigints (ids are canonical U64s); those few go through a string.
    if (typeof ms !== 'number' || typeof seq !== 'number') {
      this.bulkText(`${ms}-${seq}`);
      return;
    }
    // Consecutive ids mostly share their ms (a batch of XADDs, an XRANGE): its digits are
    // kept, saving the divisions.
    if (ms !== this.idMs) this.rememberIdMs(ms);
    const msLength = this.idMsLength;
    const seqLength = Encoder.digitCount(seq);
    // "$", at most 2 length digits, 16 + 1 + 16 id bytes, two CRLFs: under 2 * HEADER_ROOM.
    if (this.buf.length - this.pos < 2 * HEADER_ROOM) this.ensure(2 * HEADER_ROOM);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 36;
    p = Encoder.smallDecimal(buf, p, msLength + 1 + seqLength);
    buf[p++] = 13;
    buf[p++] = 10;
    const msDigits = this.idMsDigits;
    for (let i = 0; i < msLength; i++) buf[p++] = msDigits[i]!;
    buf[p++] = 45;
    p = Encoder.decimal(buf, p, seq, seqLength);
    buf[p++] = 13;
    buf[p++] = 10;
    this.pos = p;
  }

  /** Writes n (0..99) at p; returns the position after it. */
  private static smallDecimal(buf: Buffer, p: number, n: number): number {
    if (n >= 10) {
      const tens = (n / 10) | 0;
      buf[p++] = 48 + tens;
      n -= tens * 10;
    }
    buf[p++] = 48 + n;
    return p;
  }

  /** Writes the `length` digits of the non-negative safe integer n at p; returns the end. */
  static decimal(buf: Buffer, p: number, n: number, length: number): number {
    const end = p + length;
    let q = end;
    while (n >= 10) {
      const d = Math.floor(n / 10);
      buf[--q] = 48 + (n - d * 10);
      n = d;
    }
    buf[--q] = 48 + n;
    return end;
  }

  private rememberIdMs(ms: number): void {
    let n = ms;
    let length = Encoder.digitCount(n);
    this.idMsLength = length;
    this.idMs = ms;
    const msDigits = this.idMsDigits;
    while (length > 0) {
      const q = Math.floor(n / 10);
      msDigits[--length] = 48 + (n - q * 10);
      n = q;
    }
  }

  /** Type byte, decimal integer, CRLF: aggregate and bulk headers, integers. */
  private header(type: number, n: number): void {
    this.ensure(HEADER_ROOM);
    this.buf[this.pos++] = type;
    this.digits(n);
    this.buf[this.pos++] = 13;
    this.buf[this.pos++] = 10;
  }

  private crlf(): void {
    this.buf[this.pos++] = 13;
    this.buf[this.pos++] = 10;
  }

  /** Type byte, text (UTF-8), CRLF: simple strings, errors, doubles, big integers. */
  /** A line whose characters are bytes (latin1). */
  private latin1Line(type: number, text: string): void {
    this.ensure(text.length + HEADER_ROOM);
    this.buf[this.pos++] = type;
    this.pos += this.buf.write(text, this.pos, 'latin1');
    this.crlf();
  }

  private line(type: number, text: string): void {
    this.ensure(text.length * 3 + HEADER_ROOM);
    this.buf[this.pos++] = type;
    this.text(text);
    this.crlf();
  }

  /** Writes text as UTF-8 (room for 3 bytes per UTF-16 unit already ensured). */
  private text(s: string): void {
    const buf = this.buf;
    const start = this.pos;
    if (s.length <= SHORT_STRING) {
      let p = start;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          this.pos = start + buf.write(s, start, 'utf8');
          return;
        }
        buf[p++] = c;
      }
      this.pos = p;
      return;
    }
    this.pos = start + buf.write(s, start, 'utf8');
  }

  /** A bulk string from JS text. */
  private bulkText(s: string): void {
    const n = s.length;
    if (n <= SHORT_STRING) {
      // One pass, assuming ASCII (byte length = s.length); rewound on the first other char.
      this.ensure(n + HEADER_ROOM + CRLF_BYTES);
      const start = this.pos;
      this.header(36, n);
      const buf = this.buf;
      let p = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) {
        this.pos = p;
        this.crlf();
        return;
      }
      this.pos = start;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.header(36, len);
    this.ensure(len + CRLF_BYTES);
    this.pos += this.buf.write(s, this.pos, 'utf8');
    this.crlf();
  }

  private bulk(src: Buffer): void {
    const len = src.length;
    this.header(36, len);
    this.ensure(len + CRLF_BYTES);
    const buf = this.buf;
    if (len <= SHORT_BUFFER) {
      let p = this.pos;
      for (let i = 0; i < len; i++) buf[p++] = src[i]!;
      this.pos = p;
    } else {
      src.copy(buf, this.pos);
      this.pos += len;
    }
    this.crlf();
  }

  private integer(n: number | bigint): void {
    if (typeof n === 'number' && Number.isSafeInteger(n)) this.header(58, n);
    else this.line(58, String(n));
  }

  private encode(r: Reply): void {
    if (r === OK) {
      // SET's reply, and most writes': ahead of the type checks.
      this.ensure(5);
      const buf = this.buf;
      let p = this.pos;
      buf[p++] = 43;
      buf[p++] = 79;
      buf[p++] = 75;
      buf[p++] = 13;
      buf[p++] = 10;
      this.pos = p;
    } else if (typeof r === 'string') {
      this.bulkText(r);
    } else if (Buffer.isBuffer(r)) {
      this.bulk(r);
    } else if (r instanceof StreamIdReply) {
      this.streamId(r.ms, r.seq);
    } else if (typeof r === 'number' || typeof r === 'bigint') {
      this.integer(r);
    } else if (r === null) {
      this.line(this.protocol === 3 ? 95 : 36, this.protocol === 3 ? '' : '-1');
    } else if (r === NULL_ARRAY) {
      this.line(this.protocol === 3 ? 95 : 42, this.protocol === 3 ? '' : '-1');
    } else if (Array.isArray(r)) {
      this.header(42, r.length);
      for (const item of r) this.encode(item);
    } else if (r instanceof DirectReply) {
      r.writeTo(this);
    } else if (r instanceof SimpleString) {
      this.line(43, r.value);
    } else if (r instanceof ErrorReply) {
      // Errors must stay on one line or the client loses protocol sync.
      let m = r.message;
      if (m.includes('\r') || m.includes('\n')) m = m.replace(/[\r\n]+/g, ' ');
      if (r.bytes) this.latin1Line(45, m);
      else this.line(45, m);
    } else if (r instanceof MapReply) {
      if (this.protocol === 3) this.header(37, r.entries.length);
      else this.header(42, r.entries.length * 2);
      for (const [k, v] of r.entries) {
        this.encode(k);
        this.encode(v);
      }
    } else if (r instanceof SetReply) {
      this.header(this.protocol === 3 ? 126 : 42, r.items.length);
      for (const item of r.items) this.encode(item);
    } else if (r instanceof PushReply) {
      this.header(this.protocol === 3 ? 62 : 42, r.items.length);
      for (const item of r.items) this.encode(item);
    } else if (r instanceof Replies) {
      for (const item of r.items) this.encode(item);
    } else if (r instanceof DoubleReply) {
      const s = r.text ?? formatDouble(r.value);
      if (this.protocol === 3) this.line(44, s);
      else this.bulkText(s);
    } else if (r instanceof BooleanReply) {
      if (this.protocol === 3) this.line(35, r.value ? 't' : 'f');
      else this.header(58, r.value ? 1 : 0);
    } else if (r instanceof VerbatimReply) {
      if (this.protocol === 3) {
        const body = `${r.format}:${r.text}`;
        this.header(61, Buffer.byteLength(body, 'utf8'));
        this.ensure(body.length * 3 + CRLF_BYTES);
        this.text(body);
        this.crlf();
      } else {
        this.bulkText(r.text);
      }
    } else {
      throw new TypeError(`cannot encode reply ${String(r)}`);
    }
  }
}

export function encodeReply(reply: Reply, protocol: Protocol): Buffer {
  return new Encoder(protocol).write(reply).take();
}

/** Encodes a command (argument vector) as a RESP array of bulk strings, as clients and the AOF do. */
export function encodeCommand(argv: ReadonlyArray<Buffer | string>): Buffer {
  return encodeCommands([argv])[0]!;
}

/** What a command argument may be: strings go as UTF-8, numbers and bigints in decimal. */
export type CommandArg = Buffer | string | number | bigint;

/**
 * Encodes commands as RESP arrays of bulk strings into one allocation; returns each command's
 * bytes as a view of it. A client writes a pipeline's commands as these views: built from
 * string concatenation instead, a batch of thousands of commands is a deep rope of short strings
 * that V8 must flatten before the socket can take it (tens of ns per byte). The `*n` and `$len`
 * headers are written byte by byte (a Buffer.write each was half the encoding); texts go through
 * Buffer.write, which measured faster than a JS copy loop on the broker's strings (keys built by
 * concatenation: a JS loop was 5x slower on them in a live worker, though not in isolation).
 */
export function encodeCommands(commands: ReadonlyArray<ReadonlyArray<CommandArg>>): Buffer[] {
  // Exact size first, then one allocation.
  let size = 0;
  const texts: Array<Buffer | string> = [];
  const lengths: number[] = [];
  for (const argv of commands) {
    size += 3 + Encoder.digitCount(argv.length);
    for (const arg of argv) {
      const value = typeof arg === 'string' || Buffer.isBuffer(arg) ? arg : String(arg);
      const len = typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.length;
      texts.push(value);
      lengths.push(len);
      size += 5 + Encoder.digitCount(len) + len;
    }
  }
  const out = Buffer.allocUnsafe(size);
  const views = new Array<Buffer>(commands.length);
  let pos = 0;
  let at = 0;
  for (let c = 0; c < commands.length; c++) {
    const start = pos;
    const count = commands[c]!.length;
    out[pos++] = 42; // '*'
    pos = Encoder.decimal(out, pos, count, Encoder.digitCount(count));
    out[pos++] = 13;
    out[pos++] = 10;
    for (let i = 0; i < count; i++, at++) {
      const value = texts[at]!;
      const len = lengths[at]!;
      out[pos++] = 36; // '$'
      pos = Encoder.decimal(out, pos, len, Encoder.digitCount(len));
      out[pos++] = 13;
      out[pos++] = 10;
      if (typeof value === 'string') pos += out.write(value, pos, len, 'utf8');
      else pos += value.copy(out, pos);
      out[pos++] = 13;
      out[pos++] = 10;
    }
    views[c] = out.subarray(start, pos);
  }
  return views;
}
