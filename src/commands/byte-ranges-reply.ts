// A reply of byte strings written from ranges of one Buffer (engine/byte-ranges.ts): an array
// of bulk strings, or a map of alternating keys and values (HGETALL), each bulk copied from its
// range into the encoder's output with no Buffer of its own.
import type { ByteRanges } from '../engine/byte-ranges.js';
import { DirectReply, MapReply, type Reply, type ReplyWriter } from '../resp/reply.js';

export class ByteRangesReply extends DirectReply {
  constructor(
    readonly ranges: ByteRanges,
    /** Pairs as a map (RESP3 '%'; RESP2 a flat array, as MapReply). */
    readonly asMap = false,
  ) {
    super();
  }

  writeTo(w: ReplyWriter): void {
    const { bytes, starts, ends } = this.ranges;
    if (this.asMap) w.mapHeader(starts.length / 2);
    else w.arrayHeader(starts.length);
    for (let i = 0; i < starts.length; i++) w.bulkBytes(bytes, starts[i]!, ends[i]!);
  }

  /** The same reply as a tree: a view of the Buffer per string (the Buffer is this reply's own). */
  toReply(): Reply {
    const { bytes, starts, ends } = this.ranges;
    const items = starts.map((start, i) => bytes.subarray(start, ends[i]));
    if (!this.asMap) return items;
    const entries: Array<[Reply, Reply]> = [];
    for (let i = 0; i + 1 < items.length; i += 2) entries.push([items[i]!, items[i + 1]!]);
    return new MapReply(entries);
  }
}
