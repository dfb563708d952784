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
import { Errors } from '../../resp/errors.js';

const NEXT_ID_ERRORS: Record<NextIdFailure, string> = {
  exhausted: Errors.exhausted,
  // redis-server 7.0 reports the "ms-*" sequence overflow with the "too large" text (its errno
  // is not set on that path); the differential tests pin that.
  'seq-overflow': Errors.xaddTooLarge,
  'not-greater': Errors.xaddSmaller,
};

/** Parses an id or fails with Redis's "Invalid stream ID" error. */
export function parseStreamId(arg: Buffer | string, opts: ParseIdOptions = {}): StreamId {
  const parsed = tryParseStreamId(arg, opts);
  if (parsed === undefined) fail(Errors.invalidId);
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
    if (moved === undefined) fail(end ? Errors.invalidEnd : Errors.invalidStart);
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
