// A stream entry's fields and values as byte ranges, the form a stream node appends from:
// item i is sources[i][starts[i], ends[i]). A request read in place hands over offsets into its
// read buffer, and the AOF loader offsets into the file's bytes, so no Buffer view is made per
// field or value (about 85 ns each: a third of an XADD with three pairs); an argv of Buffers is
// wrapped as it is. The node copies what it keeps: the ranges need to stay valid only during
// the append.
import { Buffer } from 'node:buffer';

const EMPTY = Buffer.alloc(0);

export class EntryFields {
  /** Fields and values: an even number, field names at even indexes. */
  count = 0;
  readonly sources: Buffer[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];

  /** Appends the item source[start, end). */
  push(source: Buffer, start: number, end: number): void {
    const i = this.count++;
    this.sources[i] = source;
    this.starts[i] = start;
    this.ends[i] = end;
  }

  /** Sets the items to the whole of each Buffer. */
  setBuffers(items: readonly Buffer[]): this {
    this.count = 0;
    for (const b of items) this.push(b, 0, b.length);
    return this;
  }

  /** Forgets the items, so a reused object pins no read buffer or file window. */
  clear(): void {
    for (let i = 0; i < this.count; i++) this.sources[i] = EMPTY;
    this.count = 0;
  }

  byteLength(i: number): number {
    return this.ends[i]! - this.starts[i]!;
  }

  /** Item i as a Buffer of its own (a master field name the node keeps). */
  copy(i: number): Buffer {
    return Buffer.from(this.sources[i]!.subarray(this.starts[i]!, this.ends[i]!));
  }
}
