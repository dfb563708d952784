// Incremental parser for RESP2 and RESP3 replies, the one reply decoder of the tests and benches
// (the differential tests compare its raw bytes, the server tests' RespClient reads its frames);
// the shipped code never parses replies.
//
// next() yields one complete top-level reply at a time as { raw, value } (and `frame` with
// `{ frames: true }`):
// - raw is exactly the bytes of that reply (attributes in front of it included), for
//   byte-for-byte comparison with redis-server;
// - frame is the reply as a tree of its elements' exact bytes (type byte, raw, children), for
//   comparisons that reorder or mask parts of a reply and for clients that need each element's
//   wire type; an attribute map and the reply it annotates are one '|' frame whose children are
//   the map's keys and values, then that reply;
// - value decodes into the same Reply model the server encodes from (src/resp/reply.ts), so
//   `encodeReply(value, 3)` reproduces RESP3 input that our Encoder could have written, and
//   `toValue` from the embedded client turns it into plain JS values:
//
//     +simple            SimpleString          -ERR x / !<len> blob error   ErrorReply
//     :n  (n integer)    number when safe, else bigint;    (n big number  bigint
//     $<len> payload     Buffer                $-1 / _                      null
//     *-1 (RESP2)        NULL_ARRAY            *n  array                    Reply[]
//     %n map             MapReply (entries in wire order; keys may be any reply)
//     ~n set             SetReply              >n push                      PushReply
//     ,d double          DoubleReply           #t / #f                      BooleanReply
//     =<len> fmt:text    VerbatimReply         |n attributes                Attributed
//
//   An attribute map applies to the reply that follows it: that reply is delivered wrapped
//   as Attributed { attributes, value } (at top level or inside an aggregate), and it does
//   not count as an element of the enclosing aggregate. Bulk payloads are subarrays of the
//   received bytes (not copies). Streamed RESP3 strings ($? then ;len chunks, one Buffer)
//   and aggregates (*? %? ~? ended by '.') decode like their fixed-length forms; Redis never
//   sends them, the specification allows them.
import assert from 'node:assert/strict';
import { InputBuffer } from '../../src/resp/input-buffer.js';
import {
  BooleanReply, DoubleReply, ErrorReply, MapReply, NULL_ARRAY, PushReply,
  type Reply, SetReply, SimpleString, VerbatimReply,
} from '../../src/resp/reply.js';

/** The bytes are not valid RESP; the connection cannot be trusted any further. */
export class ReplyParseError extends Error {
  constructor(message: string) {
    super(`Protocol error: ${message}`);
    this.name = 'ReplyParseError';
  }
}

/** A reply preceded by a RESP3 attribute map (`|n`). */
export class Attributed {
  constructor(
    readonly attributes: MapReply,
    readonly value: Reply | Attributed,
  ) {}
}

export type ParsedValue = Reply | Attributed;

export interface ParsedReply {
  /** The exact bytes of this top-level reply. */
  raw: Buffer;
  value: ParsedValue;
  /** With `{ frames: true }`: the reply as a tree of frames. */
  frame?: Frame;
}

/** One element of a reply as sent: its type byte, its exact bytes, and its elements' frames. */
export interface Frame {
  /** The type byte: + - : $ * % ~ > _ # , ( = ! |  ('$' also for a streamed string). */
  type: string;
  /** The exact bytes of the whole element, header to final CRLF. */
  raw: Buffer;
  /** An aggregate's elements (a map's keys and values alternate). */
  children?: Frame[];
}

const CR = 13;
const LF = 10;
/** Frame type of a streamed string ("$?" followed by ";len" chunks); not a RESP type byte. */
const STREAMED_STRING = -1;

interface OpenAggregate {
  /** The aggregate's type byte (* % ~ > |) or STREAMED_STRING. */
  type: number;
  /** Elements still to come (maps and attributes count keys and values); Infinity if streamed. */
  remaining: number;
  items: ParsedValue[];
  /** An attribute map waiting for the next element of this aggregate. */
  attributes: MapReply | null;
  /** Where it starts, relative to input.start. */
  start: number;
  /** With frames: its elements' frames, and the waiting attribute map's. */
  frames: Frame[] | null;
  attributeFrame: PendingAttribute | null;
}

/** An attribute map's frame and where it starts (relative to input.start), until its reply comes. */
interface PendingAttribute {
  frame: Frame;
  start: number;
}

export interface ReplyParserOptions {
  /** Also give each reply as a tree of frames (ParsedReply.frame); off by default, it costs. */
  frames?: boolean;
}

export class ReplyParser {
  private readonly input = new InputBuffer();
  /** Parse position, relative to input.start (the start of the reply in progress). */
  private offset = 0;
  /** Aggregates open in the reply in progress, innermost last. */
  private readonly stack: OpenAggregate[] = [];
  /** An attribute map read at top level, waiting for its reply. */
  private topAttributes: MapReply | null = null;
  private topAttributeFrame: PendingAttribute | null = null;
  private readonly frames: boolean;
  /** The frame of the top-level reply deliver() completed. */
  private doneFrame: Frame | null = null;

  constructor(options: ReplyParserOptions = {}) {
    this.frames = options.frames ?? false;
  }

  /** Bytes received that are not yet part of a delivered reply. */
  get bufferedBytes(): number {
    return this.input.length;
  }

  /** Appends received bytes. The chunk must not be modified afterwards (values may share it). */
  push(chunk: Buffer): void {
    this.input.push(chunk);
  }

  /** The next complete top-level reply, or undefined until more bytes arrive. */
  next(): ParsedReply | undefined {
    const input = this.input;
    for (;;) {
      const buf = input.buf;
      const end = input.end;
      const pos = input.start + this.offset;
      if (pos >= end) {
        input.releaseIfEmpty();
        return undefined;
      }
      const cr = lineEnd(buf, pos, end);
      if (cr < 0) return undefined;
      const type = buf[pos]!;
      let after = cr + 2;
      let value: ParsedValue;
      let isAttribute = false;
      // The frame of what completes here: a scalar by default; the end of a streamed string or
      // aggregate says where it started and what it was.
      let start = pos - input.start;
      let frameType = type;
      let children: Frame[] | null | undefined;
      const open = this.stack[this.stack.length - 1];
      if (open !== undefined && open.type === STREAMED_STRING && type !== 59) {
        throw new ReplyParseError('streamed string chunk expected');
      }
      if (cr === pos + 2 && buf[pos + 1] === 63 && (type === 36 || type === 42 || type === 37 || type === 126)) {
        // "$?", "*?", "%?", "~?": a streamed string or aggregate of unknown length.
        this.stack.push(this.open(type === 36 ? STREAMED_STRING : type, Infinity, pos - input.start));
        this.offset = after - input.start;
        continue;
      }
      switch (type) {
        case 43: // + simple string
          value = new SimpleString(buf.toString('utf8', pos + 1, cr));
          break;
        case 45: // - error
          value = new ErrorReply(buf.toString('utf8', pos + 1, cr));
          break;
        case 58: // : integer
          value = parseInteger(buf, pos + 1, cr, false);
          break;
        case 40: // ( big number
          value = parseInteger(buf, pos + 1, cr, true);
          break;
        case 44: // , double
          value = new DoubleReply(parseDouble(buf.toString('latin1', pos + 1, cr)));
          break;
        case 35: {
          // # boolean
          const t = buf.toString('latin1', pos + 1, cr);
          if (t !== 't' && t !== 'f') throw new ReplyParseError(`invalid boolean '${t}'`);
          value = new BooleanReply(t === 't');
          break;
        }
        case 95: // _ null
          if (cr !== pos + 1) throw new ReplyParseError('invalid null');
          value = null;
          break;
        case 36: // $ bulk string
        case 33: // ! blob error
        case 61: {
          // = verbatim string
          const len = parseLength(buf, pos + 1, cr);
          if (len === -1 && type === 36) {
            value = null;
            break;
          }
          if (len < 0) throw new ReplyParseError('invalid bulk length');
          const from = cr + 2;
          if (end - from < len + 2) return undefined;
          if (buf[from + len] !== CR || buf[from + len + 1] !== LF) {
            throw new ReplyParseError('bulk payload not followed by CRLF');
          }
          after = from + len + 2;
          if (type === 36) value = buf.subarray(from, from + len);
          else if (type === 33) value = new ErrorReply(buf.toString('utf8', from, from + len));
          else {
            if (len < 4 || buf[from + 3] !== 58) throw new ReplyParseError('invalid verbatim string');
            value = new VerbatimReply(buf.toString('latin1', from, from + 3), buf.toString('utf8', from + 4, from + len));
          }
          break;
        }
        case 42: // * array
        case 37: // % map
        case 126: // ~ set
        case 62: // > push
        case 124: {
          // | attributes
          const n = parseLength(buf, pos + 1, cr);
          if (n === -1 && type === 42) {
            value = NULL_ARRAY;
            break;
          }
          if (n < 0) throw new ReplyParseError('invalid aggregate length');
          const count = type === 37 || type === 124 ? 2 * n : n;
          if (count > 0) {
            this.stack.push(this.open(type, count, pos - input.start));
            this.offset = after - input.start;
            continue;
          }
          [value, isAttribute] = build(type, []);
          children = [];
          break;
        }
        case 59: {
          // ; a chunk of a streamed string, ";0" ends it
          if (open === undefined || open.type !== STREAMED_STRING) throw new ReplyParseError('unexpected string chunk');
          const len = parseLength(buf, pos + 1, cr);
          if (len < 0) throw new ReplyParseError('invalid chunk length');
          if (len === 0) {
            this.stack.pop();
            value = Buffer.concat(open.items as Buffer[]);
            start = open.start;
            frameType = 36;
            break;
          }
          const from = cr + 2;
          if (end - from < len + 2) return undefined;
          if (buf[from + len] !== CR || buf[from + len + 1] !== LF) throw new ReplyParseError('chunk not followed by CRLF');
          open.items.push(buf.subarray(from, from + len));
          this.offset = from + len + 2 - input.start;
          continue;
        }
        case 46: {
          // . ends a streamed aggregate
          if (cr !== pos + 1 || open === undefined || open.remaining !== Infinity || open.attributes !== null) {
            throw new ReplyParseError('unexpected end of aggregate');
          }
          if (open.type === 37 && open.items.length % 2 !== 0) throw new ReplyParseError('streamed map with a key and no value');
          this.stack.pop();
          [value, isAttribute] = build(open.type, open.items);
          start = open.start;
          frameType = open.type;
          children = open.frames;
          break;
        }
        default:
          throw new ReplyParseError(`unknown reply type '${String.fromCharCode(type)}'`);
      }
      this.offset = after - input.start;
      const frame = this.frames ? makeFrame(frameType, buf.subarray(input.start + start, after), children ?? undefined) : null;
      const done = this.deliver(value, isAttribute, frame, start, buf, after);
      if (done !== undefined) {
        const raw = buf.subarray(input.start, after);
        input.consume(after);
        this.offset = 0;
        if (!this.frames) return { raw, value: done };
        const reply: ParsedReply = { raw, value: done, frame: this.doneFrame! };
        this.doneFrame = null;
        return reply;
      }
    }
  }

  private open(type: number, remaining: number, start: number): OpenAggregate {
    return { type, remaining, items: [], attributes: null, start, frames: this.frames ? [] : null, attributeFrame: null };
  }

  /**
   * Adds a finished element (its frame, when frames are kept, starting at `start` relative to
   * input.start; every element finished here ends at `after` in `buf`) to the open aggregates;
   * returns the top-level reply if complete (its frame in doneFrame).
   */
  private deliver(value: ParsedValue, isAttribute: boolean, frame: Frame | null, start: number, buf: Buffer, after: number): ParsedValue | undefined {
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (top === undefined) {
        if (isAttribute) {
          this.topAttributes = value as MapReply;
          if (frame !== null) this.topAttributeFrame = { frame, start };
          return undefined;
        }
        if (this.topAttributes !== null) {
          value = new Attributed(this.topAttributes, value);
          this.topAttributes = null;
          frame = this.annotated(this.topAttributeFrame, frame, buf, after);
          this.topAttributeFrame = null;
        }
        this.doneFrame = frame;
        return value;
      }
      if (isAttribute) {
        top.attributes = value as MapReply;
        if (frame !== null) top.attributeFrame = { frame, start };
        return undefined;
      }
      if (top.attributes !== null) {
        value = new Attributed(top.attributes, value);
        top.attributes = null;
        frame = this.annotated(top.attributeFrame, frame, buf, after);
        top.attributeFrame = null;
      }
      top.items.push(value);
      if (frame !== null) top.frames!.push(frame);
      if (--top.remaining > 0) return undefined;
      this.stack.pop();
      [value, isAttribute] = build(top.type, top.items);
      start = top.start;
      frame = top.frames === null ? null : makeFrame(top.type, buf.subarray(this.input.start + start, after), top.frames);
    }
  }

  /** An attribute map and the reply it annotates as one '|' frame. */
  private annotated(attribute: PendingAttribute | null, frame: Frame | null, buf: Buffer, after: number): Frame | null {
    if (attribute === null || frame === null) return frame;
    const raw = buf.subarray(this.input.start + attribute.start, after);
    return { type: '|', raw, children: [...(attribute.frame.children ?? []), frame] };
  }
}

function makeFrame(type: number, raw: Buffer, children: Frame[] | undefined): Frame {
  const t = String.fromCharCode(type === STREAMED_STRING ? 36 : type);
  return children === undefined ? { type: t, raw } : { type: t, raw, children };
}

/** The value of a finished aggregate, and whether it is an attribute map. */
function build(type: number, items: ParsedValue[]): [ParsedValue, boolean] {
  // Attributed values only occur where the server sent attributes; the Reply model has no
  // place for them, hence the casts.
  const replies = items as Reply[];
  switch (type) {
    case 42:
      return [replies, false];
    case 126:
      return [new SetReply(replies), false];
    case 62:
      return [new PushReply(replies), false];
    default: {
      const entries: Array<[Reply, Reply]> = [];
      for (let i = 0; i < replies.length; i += 2) entries.push([replies[i]!, replies[i + 1]!]);
      return [new MapReply(entries), type === 124];
    }
  }
}

/** Index of the '\r' ending the line at pos, or -1 until its "\r\n" has arrived. */
function lineEnd(buf: Buffer, pos: number, end: number): number {
  let cr = -1;
  const quick = Math.min(end, pos + 24);
  for (let i = pos + 1; i < quick; i++) {
    if (buf[i] === CR) {
      cr = i;
      break;
    }
  }
  if (cr < 0 && quick < end) {
    const at = buf.subarray(quick, end).indexOf(CR);
    if (at >= 0) cr = quick + at;
  }
  if (cr < 0 || cr + 1 >= end) return -1;
  if (buf[cr + 1] !== LF) throw new ReplyParseError('line not terminated by CRLF');
  return cr;
}

/** A length field: -1 or a non-negative decimal. */
function parseLength(buf: Buffer, from: number, to: number): number {
  if (to - from === 2 && buf[from] === 45 && buf[from + 1] === 49) return -1;
  if (to <= from || to - from > 15) throw new ReplyParseError('invalid length');
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (c < 48 || c > 57) throw new ReplyParseError('invalid length');
    v = v * 10 + (c - 48);
  }
  return v;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function parseInteger(buf: Buffer, from: number, to: number, big: boolean): number | bigint {
  const text = buf.toString('latin1', from, to);
  if (!/^[-+]?\d+$/.test(text)) throw new ReplyParseError(`invalid integer '${text}'`);
  const v = BigInt(text);
  if (big) return v;
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v;
}

function parseDouble(text: string): number {
  switch (text) {
    case 'inf':
    case '+inf':
      return Infinity;
    case '-inf':
      return -Infinity;
    case 'nan':
    case '-nan':
      return NaN;
  }
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new ReplyParseError(`invalid double '${text}'`);
  return Number(text);
}

/** The frame of the one reply `raw` holds, whole. */
export function frameOf(raw: Buffer): Frame {
  const [reply, ...more] = parseAll([raw], { frames: true });
  assert.ok(reply !== undefined && more.length === 0, `not one reply: ${raw.toString('latin1')}`);
  return reply.frame!;
}

/** Every reply in `chunks` fed one by one; asserts that no bytes are left over. */
export function parseAll(chunks: Buffer[], options: ReplyParserOptions = {}): ParsedReply[] {
  const parser = new ReplyParser(options);
  const out: ParsedReply[] = [];
  for (const chunk of chunks) {
    parser.push(chunk);
    for (let r = parser.next(); r !== undefined; r = parser.next()) out.push(r);
  }
  assert.equal(parser.bufferedBytes, 0, 'bytes left after the last complete reply');
  return out;
}
