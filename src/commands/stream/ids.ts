// Stream id arguments with Redis's error replies (streamGenericParseIDOrReply,
// streamParseIntervalIDOrReply) and XADD's id generation errors, over the pure id
// arithmetic of engine/stream-id.ts.
import {
  asText,
  decrementId,
  incrementId,
  nextId,
  type NextIdFailure,
  type ParsedId,
  type ParseIdOptions,
  type StreamId,
  tryParseStreamId,
  UINT64_MAX,
} from '../../engine/stream-id.js';
import { fail } from '../../resp/reply.js';

export const INVALID_ID_ERROR = 'ERR Invalid stream ID specified as stream command argument';
export const INVALID_START_ERROR = 'ERR invalid start ID for the interval';
export const INVALID_END_ERROR = 'ERR invalid end ID for the interval';
export const EXHAUSTED_ERROR = 'ERR The stream has exhausted the last possible ID, unable to add more items';
export const XADD_SMALLER_ERROR = 'ERR The ID specified in XADD is equal or smaller than the target stream top item';
export const XADD_TOO_LARGE_ERROR = 'ERR Elements are too large to be stored';
export const XADD_ZERO_ERROR = 'ERR The ID specified in XADD must be greater than 0-0';

const NEXT_ID_ERRORS: Record<NextIdFailure, string> = {
  exhausted: EXHAUSTED_ERROR,
  // redis-server 7.0 reports the "ms-*" sequence overflow with the "too large" text (its errno
  // is not set on that path); the differential tests pin that.
  'seq-overflow': XADD_TOO_LARGE_ERROR,
  'not-greater': XADD_SMALLER_ERROR,
};

/** Parses an id or fails with Redis's "Invalid stream ID" error. */
export function parseStreamId(arg: Buffer | string, opts: ParseIdOptions = {}): StreamId {
  const parsed = tryParseStreamId(arg, opts);
  if (parsed === undefined) fail(INVALID_ID_ERROR);
  return parsed.id;
}

/** A strict id (no "-" / "+"), as streamParseStrictIDOrReply with missing seq 0. */
export function parseStrictId(arg: Buffer | string): StreamId {
  return parseStreamId(arg, { strict: true });
}

/**
 * One bound of XRANGE/XREVRANGE (streamParseIntervalIDOrReply plus the Incr/Decr of
 * xrangeGenericCommand): "(" makes it exclusive; an exclusive bound must be a strict id.
 * Returns the equivalent inclusive bound; an exclusive bound past either end of the id space
 * fails as Redis does ("invalid start/end ID for the interval").
 */
export function parseRangeBound(arg: Buffer | string, end: boolean): StreamId {
  const s = asText(arg);
  const missingSeq = end ? UINT64_MAX : 0;
  if (s.length > 1 && s[0] === '(') {
    const id = parseStreamId(s.slice(1), { strict: true, missingSeq });
    const moved = end ? decrementId(id) : incrementId(id);
    if (moved === undefined) fail(end ? INVALID_END_ERROR : INVALID_START_ERROR);
    return moved;
  }
  return parseStreamId(s, { missingSeq });
}

/** XADD's id (engine nextId), failing with Redis's error when there is none. */
export function generateId(lastId: StreamId, now: number | bigint, requested?: ParsedId): StreamId {
  const id = nextId(lastId, now, requested);
  if (typeof id === 'string') fail(NEXT_ID_ERRORS[id]);
  return id;
}
