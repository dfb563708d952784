// Reply values produced by command handlers, independent of the wire protocol.
// The encoder turns them into RESP2 or RESP3; the embedded client turns them into JS values.
//
//   string | Buffer   bulk string (string is UTF-8 encoded on the wire)
//   number | bigint   integer (number must be an integer)
//   null              null bulk string  ($-1 in RESP2, _ in RESP3)
//   NULL_ARRAY        null array        (*-1 in RESP2, _ in RESP3)
//   Reply[]           array
//   StreamIdReply     a stream id "ms-seq" as a bulk string, written from its numbers
//   DirectReply       writes its own RESP through the encoder (stream entries from node bytes)
//   SimpleString, ErrorReply, MapReply, SetReply, DoubleReply, BooleanReply, VerbatimReply,
//   PushReply, Replies         see below

export class SimpleString {
  constructor(readonly value: string) {}
}

/**
 * An error reply. `message` carries the code prefix, e.g. "ERR syntax error" or "WRONGTYPE ...".
 * `bytes`: each character of `message` is one byte (latin1), for texts that echo a client's
 * arguments, which Redis sends back raw whatever their encoding.
 */
export class ErrorReply {
  constructor(
    readonly message: string,
    readonly bytes = false,
    /** Already in the error statistics (a script's redis.call error it returns): not counted again. */
    readonly counted = false,
  ) {}
  get code(): string {
    const space = this.message.indexOf(' ');
    return space < 0 ? this.message : this.message.slice(0, space);
  }
}

/** RESP3 map; in RESP2 a flat array of alternating keys and values. */
export class MapReply {
  constructor(readonly entries: Array<[Reply, Reply]>) {}
}

/** RESP3 set; in RESP2 a plain array. */
export class SetReply {
  constructor(readonly items: Reply[]) {}
}

/**
 * RESP3 double; in RESP2 a bulk string, formatted as Redis does (%.17g), or as `text` where
 * Redis prints it otherwise (GEOPOS's coordinates: %.17Lf with trailing zeros removed).
 */
export class DoubleReply {
  constructor(
    readonly value: number,
    readonly text?: string,
  ) {}
}

/** RESP3 boolean; in RESP2 the integer 1 or 0. */
export class BooleanReply {
  constructor(readonly value: boolean) {}
}

/** RESP3 verbatim string (e.g. INFO, CLIENT INFO); in RESP2 a bulk string. */
export class VerbatimReply {
  constructor(readonly format: string, readonly text: string) {}
}

/** RESP3 push; in RESP2 a plain array. */
export class PushReply {
  constructor(readonly items: Reply[]) {}
}

/**
 * A stream id sent as the bulk string "ms-seq". Stream replies are mostly ids: the encoder
 * writes their digits straight into the output instead of first building a string per id
 * (BigInt to string conversion was ~10% of a pipelined XADD's CPU).
 */
export class StreamIdReply {
  /** Each part a safe integer as a number, or a bigint (engine ids: U64 in stream-id.ts). */
  constructor(readonly ms: number | bigint, readonly seq: number | bigint) {}

  toString(): string {
    return `${this.ms}-${this.seq}`;
  }
}

/**
 * The encoder's primitives a DirectReply writes through (the Encoder implements them). The
 * RESP they produce is the same in both protocols, so a DirectReply needs no protocol check.
 */
export interface ReplyWriter {
  /** "*n": an array of n replies follows. */
  arrayHeader(n: number): void;
  /** A map of n pairs follows: "%n" in RESP3, the flat array "*2n" in RESP2 (as MapReply). */
  mapHeader(n: number): void;
  /** src[start, end) as a bulk string. */
  bulkBytes(src: Buffer, start: number, end: number): void;
  /** A string's chars as bytes (latin1: each below 256) as a bulk string. */
  bulkLatin1(text: string): void;
  /** A non-negative safe integer's decimal digits as a bulk string. */
  bulkDecimal(n: number): void;
  /** A stream id as the bulk string "ms-seq" (as StreamIdReply). */
  streamId(ms: number | bigint, seq: number | bigint): void;
  /** Bytes that are already RESP (or are not RESP: a replica's RDB payload), as they are. */
  raw(bytes: Buffer): void;
}

/**
 * A reply that writes its RESP itself (writeTo), for replies made from bytes the engine holds
 * (stream entries written straight from their nodes, commands/stream/entries-reply.ts) where
 * building the Reply tree first would cost more than writing it. toReply() is the same reply
 * as a plain tree, for the embedded client and for tests: both must give the same bytes.
 */
export abstract class DirectReply {
  abstract writeTo(w: ReplyWriter): void;
  abstract toReply(): Reply;
}

/**
 * Several replies in a row, for the commands Redis answers more than once (SUBSCRIBE a b
 * confirms each channel); none at all for a command Redis leaves unanswered (a second MONITOR).
 */
export class Replies {
  constructor(readonly items: Reply[]) {}
}

export const NULL_ARRAY: unique symbol = Symbol('NULL_ARRAY');
export type NullArray = typeof NULL_ARRAY;

export type Reply =
  | string
  | Buffer
  | number
  | bigint
  | null
  | NullArray
  | Reply[]
  | StreamIdReply
  | DirectReply
  | SimpleString
  | ErrorReply
  | MapReply
  | SetReply
  | DoubleReply
  | BooleanReply
  | VerbatimReply
  | PushReply
  | Replies;

export const OK = new SimpleString('OK');
export const QUEUED = new SimpleString('QUEUED');
export const PONG = new SimpleString('PONG');

/** Thrown by handlers and argument parsers to produce an error reply (texts: resp/errors.ts). */
export class CommandError extends Error {
  constructor(readonly reply: string) {
    super(reply);
  }
}

export function fail(message: string): never {
  throw new CommandError(message);
}
