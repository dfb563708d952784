// Stream entries found by a read, held as where they are rather than decoded: each entry's id
// (as numbers) and the node buffer and position of its body. A reply can then be written
// straight from the node's bytes (commands/stream/entries-reply.ts, through a BodyReader)
// instead of first building an id object, a fields array and a Buffer view per field and
// value. fields(i) decodes one entry for the callers that want Buffers.
//
// What is held stays valid whatever happens to the stream afterwards (see
// NodeCursor.bodyRef): later writes, deletions and trims do not change the entries already
// collected, so a reply encoded again later (server/durable-batch.ts) has the same bytes.
import { Buffer } from 'node:buffer';
import type { StreamId, U64 } from './stream-id.js';
import { BodyReader, type NodeCursor } from './stream-node.js';

/** Decodes bodies for fields(); one is enough (single-threaded, not re-entrant). */
const reader = new BodyReader();

export class EntryRefs {
  /** Parallel arrays, one slot per entry: the id's parts, the node buffer, the body's ref. */
  readonly ms: U64[];
  readonly seq: U64[];
  readonly bufs: Buffer[];
  readonly bodies: number[];
  length = 0;

  /** `expected`: the entries the read will most likely find (slots allocated up front). */
  constructor(expected = 0) {
    this.ms = new Array<U64>(expected);
    this.seq = new Array<U64>(expected);
    this.bufs = new Array<Buffer>(expected);
    this.bodies = new Array<number>(expected);
  }

  /** Adds the cursor's current entry (its body not read). */
  add(c: NodeCursor): void {
    const i = this.length++;
    this.ms[i] = c.ms;
    this.seq[i] = c.seq;
    this.bufs[i] = c.node.buf;
    this.bodies[i] = c.bodyRef();
  }

  id(i: number): StreamId {
    return { ms: this.ms[i]!, seq: this.seq[i]! };
  }

  /** Entry i's flat field/value Buffers (views into the node, integers as new Buffers). */
  fields(i: number): Buffer[] {
    const items = reader.open(this.bufs[i]!, this.bodies[i]!);
    const out: Buffer[] = new Array<Buffer>(items);
    const buf = reader.buf;
    for (let k = 0; k < items; k++) {
      out[k] = reader.next() ? buf.subarray(reader.start, reader.end) : Buffer.from(String(reader.int), 'latin1');
    }
    return out;
  }
}
