// Incremental parser for client requests, as Redis 7.0's networking.c reads them
// (processInputBuffer / processMultibulkBuffer / processInlineBuffer).
//
// Redis's quirks are kept on purpose, because clients and the differential tests see them:
// - lines are found with strchr, so a NUL byte before the '\r' (or inline '\n') means "no
//   line yet": the request waits, and fails only once the 64 KiB inline limit is passed;
// - an inline line over 64 KiB whose newline came in time is still accepted (see inline());
// - after a count line's '\r' and after a bulk payload, the next two bytes are skipped
//   without checking they are "\r\n";
// - '*0', '*-N' and blank inline lines are no commands at all and are skipped;
// - the multibulk count may be up to INT_MAX (7.0 no longer caps it at 1024*1024), so the
//   argument array grows with the arguments actually received, never with the declared count.
import { Buffer } from 'node:buffer';
import { InputBuffer } from './input-buffer.js';
import { RequestArgs } from './request-args.js';

/** A protocol violation. The connection must reply with `reply` (unless `silent`) and close. */
export class ProtocolError extends Error {
  /** The exact error reply bytes Redis sends ("-ERR Protocol error: ...\r\n"). */
  readonly reply: Buffer;
  /**
   * True when Redis closes the connection without replying (query buffer limit); a server
   * may still choose to send `reply` first.
   */
  readonly silent: boolean;

  /** `text` is the error text without the "ERR " prefix; non-ASCII bytes are latin1 chars. */
  constructor(text: string, silent = false) {
    super(`ERR ${text}`);
    this.name = 'ProtocolError';
    this.reply = Buffer.from(`-${this.message}\r\n`, 'latin1');
    this.silent = silent;
  }
}

export interface ParserLimits {
  /** proto-max-bulk-len: the largest bulk argument accepted. Default 512 MiB. */
  maxBulkLen?: number;
  /** The largest multibulk count accepted. Default INT_MAX (2147483647), as Redis 7.0. */
  maxMultibulk?: number;
  /** client-query-buffer-limit: unparsed bytes held before the client is closed. Default 1 GiB. */
  maxQueryBuffer?: number;
  /** PROTO_INLINE_MAX_SIZE: the longest inline request or count line. Default 64 KiB. */
  maxInline?: number;
}

const INT_MAX = 2147483647;
/** PROTO_MBULK_BIG_ARG: from this size a bulk argument gets a buffer of exactly its size. */
const BIG_ARG = 32 * 1024;
/**
 * How far past the inline limit a line sent at once may end, newline included, as Redis 7.0
 * reads it: its query buffer holds 81910 bytes after the second read (measured against
 * redis-server 7.0.15: a 81910-byte line is accepted, one of 81911 refused).
 */
const INLINE_LINE_SLACK = 81910 - 64 * 1024;
/** Limits applied while authentication is required (Redis 7.0.15's authRequired checks). */
const UNAUTH_MAX_MULTIBULK = 10;
const UNAUTH_MAX_BULK = 16384;

const CR = 13;
const LF = 10;
const NUL = 0;
const STAR = 42;
const DOLLAR = 36;

const enum ReqType {
  Unknown,
  Inline,
  Multibulk,
}

export class RequestParser {
  /**
   * Set by the server while the client still has to AUTH (requirepass set, not yet
   * authenticated): Redis then refuses counts above 10 and bulks above 16384 bytes.
   */
  authRequired = false;

  private readonly input = new InputBuffer();
  /** proto-max-bulk-len; the server updates it when CONFIG SET changes it. */
  maxBulkLen: number;
  private readonly maxMultibulk: number;
  /** client-query-buffer-limit; the server updates it when CONFIG SET changes it. */
  maxQueryBuffer: number;
  private readonly maxInline: number;

  private reqType = ReqType.Unknown;
  /** Arguments still expected by the multibulk request in progress (0: none in progress). */
  private multibulkLen = 0;
  /** Length of the bulk argument whose header was read, or -1 before its header. */
  private bulkLen = -1;
  /** The request being parsed, then the one returned by nextArgs(). */
  private readonly args = new RequestArgs();

  constructor(limits: ParserLimits = {}) {
    this.maxBulkLen = limits.maxBulkLen ?? 512 * 1024 * 1024;
    this.maxMultibulk = limits.maxMultibulk ?? INT_MAX;
    this.maxQueryBuffer = limits.maxQueryBuffer ?? 1024 * 1024 * 1024;
    this.maxInline = limits.maxInline ?? 64 * 1024;
  }

  /** Bytes received and not yet parsed into a complete command or argument. */
  get bufferedBytes(): number {
    return this.input.length;
  }

  /** Bytes allocated for the query buffer (CLIENT LIST qbuf + qbuf-free). */
  get bufferCapacity(): number {
    return this.input.capacity;
  }

  /** Drops the query buffer (the connection is gone): its memory can be returned at once. */
  release(): void {
    this.input.release();
    this.args.clear();
  }

  /** Appends received bytes. The chunk must not be modified afterwards (arguments may share it). */
  push(chunk: Buffer): void {
    this.checkQueryBuffer(chunk.length);
    this.input.push(chunk);
  }

  /** Appends received bytes that are only valid during the call (they are copied). */
  pushCopy(bytes: Buffer): void {
    this.checkQueryBuffer(bytes.length);
    this.input.pushCopy(bytes);
  }

  /** Gives the query buffer back when nothing is pending (a quiet connection). */
  releaseIfIdle(): void {
    if (this.multibulkLen === 0 && this.reqType === ReqType.Unknown) this.input.releaseIfIdle();
  }

  private checkQueryBuffer(incoming: number): void {
    if (this.input.length + incoming > this.maxQueryBuffer) {
      // Redis logs "Closing client that reached max query buffer length" and closes silently.
      throw new ProtocolError('Protocol error: client reached max query buffer length', true);
    }
  }

  /** The next complete command as Buffers, or null until more bytes arrive. Throws ProtocolError. */
  next(): Buffer[] | null {
    return this.nextArgs()?.toArgv() ?? null;
  }

  /**
   * The next complete command, or null until more bytes arrive. Throws ProtocolError. The
   * object is reused: it holds this command until the next call.
   */
  nextArgs(): RequestArgs | null {
    for (;;) {
      const input = this.input;
      if (input.start >= input.end) {
        // A bulk whose length is known keeps the room reserved for it.
        if (this.multibulkLen === 0) {
          input.releaseIfEmpty();
          if (this.args.length > 0) this.args.clear();
        }
        return null;
      }
      if (this.reqType === ReqType.Unknown) {
        this.reqType = input.buf[input.start] === STAR ? ReqType.Multibulk : ReqType.Inline;
      }
      const complete = this.reqType === ReqType.Multibulk ? this.multibulk() : this.inline();
      if (!complete) return null;
      this.reqType = ReqType.Unknown;
      if (this.args.length > 0) return this.args;
    }
  }

  /** Reads a multibulk request into args; false while it is incomplete. */
  private multibulk(): boolean {
    const input = this.input;
    if (this.multibulkLen === 0) {
      const pos = input.start;
      const cr = findByte(input.buf, pos, input.end, CR);
      if (cr < 0) {
        if (input.end - pos > this.maxInline) throw new ProtocolError('Protocol error: too big mbulk count string');
        return false;
      }
      if (cr > input.end - 2) return false; // the byte after '\r' has not arrived
      const count = parseLongLong(input.buf, pos + 1, cr);
      if (count === undefined || count > INT_MAX || count > this.maxMultibulk) {
        throw new ProtocolError('Protocol error: invalid multibulk length');
      }
      if (count > UNAUTH_MAX_MULTIBULK && this.authRequired) {
        throw new ProtocolError('Protocol error: unauthenticated multibulk length');
      }
      input.consume(cr + 2);
      this.args.reset();
      this.args.fromResp = true;
      if (count <= 0) return true;
      this.multibulkLen = count;
    }

    // Hot loop: locals instead of fields; well-formed "$<digits>\r" headers are read inline,
    // anything else goes through bulkHeader(), which has all of Redis's cases.
    const buf = input.buf;
    const end = input.end;
    const args = this.args;
    const maxBulk = this.authRequired ? Math.min(this.maxBulkLen, UNAUTH_MAX_BULK) : this.maxBulkLen;
    let pos = input.start;
    let remaining = this.multibulkLen;
    let bulkLen = this.bulkLen;
    while (remaining > 0) {
      if (bulkLen === -1) {
        let i = pos + 1;
        let v = 0;
        let c = 0;
        if (buf[pos] === DOLLAR) {
          while (i < end && (c = buf[i]!) >= 48 && c <= 57) {
            v = v * 10 + (c - 48);
            i++;
          }
        }
        const digits = i - pos - 1;
        if (c === CR && i < end - 1 && digits > 0 && digits < 16 && (digits === 1 || buf[pos + 1] !== 48) && v <= maxBulk) {
          bulkLen = v;
          pos = i + 2;
        } else {
          input.consume(pos);
          if (!this.bulkHeader()) {
            this.multibulkLen = remaining;
            this.bulkLen = -1;
            return false;
          }
          bulkLen = this.bulkLen;
          pos = input.start;
        }
      }
      if (end - pos < bulkLen + 2) {
        if (bulkLen >= BIG_ARG && end - pos >= BIG_ARG) {
          // The rest of this argument goes into a buffer of its exact size (see reserve), once
          // it is really being sent: a declared length alone allocates nothing.
          input.consume(pos);
          input.reserve(bulkLen + 2);
          pos = input.start;
        }
        break;
      }
      args.push(buf, pos, pos + bulkLen);
      pos += bulkLen + 2;
      bulkLen = -1;
      remaining--;
    }
    input.consume(pos);
    this.multibulkLen = remaining;
    this.bulkLen = bulkLen;
    return remaining === 0;
  }

  /** Reads a "$<len>\r\n" header into bulkLen; false when it is incomplete. */
  private bulkHeader(): boolean {
    const input = this.input;
    const buf = input.buf;
    const pos = input.start;
    const cr = findByte(buf, pos, input.end, CR);
    if (cr < 0) {
      if (input.end - pos > this.maxInline) throw new ProtocolError('Protocol error: too big bulk count string');
      return false;
    }
    if (cr > input.end - 2) return false;
    const first = buf[pos]!;
    if (first !== DOLLAR) {
      // Redis formats the byte with %c; its error replies turn '\r' and '\n' into spaces.
      const shown = first === CR || first === LF ? ' ' : String.fromCharCode(first);
      throw new ProtocolError(`Protocol error: expected '$', got '${shown}'`);
    }
    const len = parseLongLong(buf, pos + 1, cr);
    if (len === undefined || len < 0 || len > this.maxBulkLen) {
      throw new ProtocolError('Protocol error: invalid bulk length');
    }
    if (len > UNAUTH_MAX_BULK && this.authRequired) {
      throw new ProtocolError('Protocol error: unauthenticated bulk length');
    }
    input.consume(cr + 2);
    // No buffer is sized from the declared length (a client could declare 512 MiB and
    // send nothing); the input buffer doubles as bytes really arrive.
    this.bulkLen = len;
    return true;
  }

  /** Reads an inline request into args; false while its line is incomplete. */
  private inline(): boolean {
    const input = this.input;
    const buf = input.buf;
    const pos = input.start;
    const lf = findByte(buf, pos, input.end, LF);
    // Redis refuses a line only while its newline has not arrived and over 64 KiB are
    // buffered, so what it accepts depends on how much its reads take at once. A line sent
    // whole is read as 16 KiB, then as much as the grown query buffer holds (an 80 KiB
    // allocation less the sds header): up to INLINE_LINE_SLACK bytes past the limit.
    if (lf < 0) {
      if (input.end - pos > this.maxInline) throw new ProtocolError('Protocol error: too big inline request');
      return false;
    }
    if (lf - pos >= this.maxInline + INLINE_LINE_SLACK) throw new ProtocolError('Protocol error: too big inline request');
    const lineEnd = lf > pos && buf[lf - 1] === CR ? lf - 1 : lf;
    const argv = splitArgs(buf, pos, lineEnd);
    input.consume(lf + 1);
    if (argv === null) throw new ProtocolError('Protocol error: unbalanced quotes in request');
    this.args.reset();
    this.args.pushAll(argv);
    return true;
  }
}

/**
 * strchr(buf + from, byte) over buf[from, end): the first `byte`, or -1 when it is absent or a
 * NUL comes first (Redis's query buffer is a C string to strchr).
 */
function findByte(buf: Buffer, from: number, end: number, byte: number): number {
  // Count lines are a few bytes long: a short JS scan beats a native indexOf call.
  const quick = Math.min(end, from + 24);
  for (let i = from; i < quick; i++) {
    const c = buf[i];
    if (c === byte) return i;
    if (c === NUL) return -1;
  }
  if (quick === end) return -1;
  const rest = buf.subarray(quick, end);
  const at = rest.indexOf(byte);
  const nul = (at < 0 ? rest : rest.subarray(0, at)).indexOf(NUL);
  if (nul >= 0 || at < 0) return -1;
  return quick + at;
}

/**
 * Redis's string2ll over buf[from, to): optional '-', no '+', no leading zeros, no spaces,
 * under 21 characters, within int64. Beyond 2^53 the result is approximate, which is enough:
 * callers only compare it with limits far below that.
 */
function parseLongLong(buf: Buffer, from: number, to: number): number | undefined {
  const len = to - from;
  if (len <= 0 || len >= 21) return undefined;
  if (len === 1 && buf[from] === 48) return 0;
  let i = from;
  const negative = buf[i] === 45;
  if (negative && ++i === to) return undefined;
  const first = buf[i]!;
  if (first < 49 || first > 57) return undefined;
  let v = first - 48;
  for (i++; i < to; i++) {
    const c = buf[i]!;
    if (c < 48 || c > 57) return undefined;
    v = v * 10 + (c - 48);
  }
  if (len >= 19) {
    // Exact int64 range check only where a number could overflow it.
    const exact = BigInt(buf.toString('latin1', from, to));
    if (exact > 9223372036854775807n || exact < -9223372036854775808n) return undefined;
  }
  return negative ? -v : v;
}

/** True for the bytes C's isspace() accepts in the C locale. */
/** What may follow a closing quote: the end of the line or a space (sdssplitargs). */
function endsToken(next: number): boolean {
  return next === 0 || isSpace(next);
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * sds.c sdssplitargs over buf[from, to): blank-separated words, "double quotes" with \n \r
 * \t \b \a \xHH and \<any> escapes, 'single quotes' with only \' escaped; a closing quote must
 * be followed by a blank or the end. Returns null for unbalanced quotes. Plain words are
 * returned as subarrays of buf, quoted ones as new Buffers.
 */
export function splitArgs(buf: Buffer, from: number, to: number): Buffer[] | null {
  // The line holds no NUL (see findByte), so 0 can stand for "past the end" as in C.
  const at = (i: number): number => (i < to ? buf[i]! : 0);
  const out: Buffer[] = [];
  let p = from;
  for (;;) {
    while (p < to && isSpace(buf[p]!)) p++;
    if (p >= to) return out;
    const tokenStart = p;
    let tokenEnd = -1;
    let bytes: number[] | null = null; // set once the word needs unescaping
    let inDouble = false;
    let inSingle = false;
    let done = false;
    while (!done) {
      const c = at(p);
      if (inDouble || inSingle) {
        if (inDouble && c === 92 && at(p + 1) === 120 && hexValue(at(p + 2)) >= 0 && hexValue(at(p + 3)) >= 0) {
          bytes!.push(hexValue(at(p + 2)) * 16 + hexValue(at(p + 3)));
          p += 3;
        } else if (inDouble && c === 92 && at(p + 1) !== 0) {
          p++;
          const e = at(p);
          bytes!.push(e === 110 ? 10 : e === 114 ? 13 : e === 116 ? 9 : e === 98 ? 8 : e === 97 ? 7 : e);
        } else if (inSingle && c === 92 && at(p + 1) === 39) {
          p++;
          bytes!.push(39);
        } else if (c === (inDouble ? 34 : 39)) {
          if (!endsToken(at(p + 1))) return null; // a closing quote must end the argument
          done = true;
        } else if (c === 0) {
          return null; // unbalanced quotes
        } else {
          bytes!.push(c);
        }
      } else if (c === 32 || c === 10 || c === 13 || c === 9 || c === 0) {
        tokenEnd = p;
        done = true;
      } else if (c === 34 || c === 39) {
        if (bytes === null) bytes = Array.from(buf.subarray(tokenStart, p));
        if (c === 34) inDouble = true;
        else inSingle = true;
      } else if (bytes !== null) {
        bytes.push(c);
      }
      if (at(p) !== 0) p++;
    }
    out.push(bytes === null ? buf.subarray(tokenStart, tokenEnd) : Buffer.from(bytes));
  }
}
