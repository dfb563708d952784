// The reply of XRANGE, XREVRANGE, XREAD and XREADGROUP ">": a list of entries, each
// [id, [field, value, ...]], written straight from the entries' node bytes (EntryRefs) into
// the encoder's output. The generic path built an id object, a fields array and a Buffer view
// per field and value, then the encoder walked that tree: most of an XRANGE's time.
import { Buffer } from 'node:buffer';
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
      writeItems(w, items);
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

/** The opened body's fields and values as bulk strings. */
function writeItems(w: ReplyWriter, items: number): void {
  const buf = body.buf;
  for (let k = 0; k < items; k++) {
    if (body.next()) w.bulkBytes(buf, body.start, body.end);
    else w.bulkDecimal(body.int);
  }
}

const XADD = Buffer.from('XADD');

/**
 * The entries as the commands that add them again, `XADD key id field value ...` (the AOF
 * rewrite's form), written from the node bytes as the replies are.
 */
export function writeXadds(w: ReplyWriter, key: Buffer, entries: EntryRefs): void {
  const { ms, seq, bufs, bodies, length: n } = entries;
  for (let i = 0; i < n; i++) {
    const items = body.open(bufs[i]!, bodies[i]!);
    w.arrayHeader(3 + items);
    w.bulkBytes(XADD, 0, XADD.length);
    w.bulkBytes(key, 0, key.length);
    w.streamId(ms[i]!, seq[i]!);
    writeItems(w, items);
  }
}
