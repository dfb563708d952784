// The reply of XRANGE, XREVRANGE, XREAD and XREADGROUP ">": a list of entries, each
// [id, [field, value, ...]], written straight from the entries' node bytes (EntryRefs) into
// the encoder's output. The generic path built an id object, a fields array and a Buffer view
// per field and value, then the encoder walked that tree: most of an XRANGE's time.
import { BodyReader } from '../../engine/stream-node.js';
import type { EntryRefs } from '../../engine/entry-refs.js';
import { DirectReply, type Reply, type ReplyWriter } from '../../resp/reply.js';
import { entryReply } from './common.js';

/** Walks the bodies being written; one is enough (encoding is synchronous, not re-entrant). */
const body = new BodyReader();

export class EntriesReply extends DirectReply {
  constructor(readonly entries: EntryRefs) {
    super();
  }

  writeTo(w: ReplyWriter): void {
    const { ms, seq, bufs, bodies, length: n } = this.entries;
    w.arrayHeader(n);
    for (let i = 0; i < n; i++) {
      w.arrayHeader(2);
      w.streamId(ms[i]!, seq[i]!);
      const items = body.open(bufs[i]!, bodies[i]!);
      w.arrayHeader(items);
      const buf = body.buf;
      for (let k = 0; k < items; k++) {
        if (body.next()) w.bulkBytes(buf, body.start, body.end);
        else w.bulkDecimal(body.int);
      }
    }
  }

  /** The same entries as the generic reply tree (entryReply per entry). */
  toReply(): Reply {
    const e = this.entries;
    const out: Reply[] = [];
    for (let i = 0; i < e.length; i++) out.push(entryReply(e.id(i), e.fields(i)));
    return out;
  }
}
