// Reads one RESP2/RESP3 reply into a tree of frames, keeping each frame's exact bytes and its
// children (for normalisers that reorder an array). Independent of src/resp on purpose, so
// it doubles as a check of the reply parser that splits the stream (see targets.ts).

export interface Frame {
  /** The type byte: + - : $ * % ~ > _ # , ( = ! | */
  type: string;
  /** The exact bytes of the whole frame, header to final CRLF. */
  raw: Buffer;
  /** Aggregate elements (a map's keys and values alternate). */
  children?: Frame[];
}

const CR = 13;

/** Parses one frame at `offset`; undefined when the buffer does not hold a whole frame yet. */
export function parseFrame(buf: Buffer, offset = 0): { frame: Frame; end: number } | undefined {
  if (offset >= buf.length) return undefined;
  const lineEnd = buf.indexOf('\r\n', offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buf[offset]!);
  const line = buf.toString('latin1', offset + 1, lineEnd);
  const afterLine = lineEnd + 2;
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case '#':
    case ',':
    case '(':
      return { frame: { type, raw: buf.subarray(offset, afterLine) }, end: afterLine };
    case '$':
    case '=':
    case '!': {
      const len = Number(line);
      if (len < 0) return { frame: { type, raw: buf.subarray(offset, afterLine) }, end: afterLine };
      const end = afterLine + len + 2;
      if (end > buf.length) return undefined;
      if (buf[end - 2] !== CR) throw new Error(`bad bulk terminator at ${end - 2}`);
      return { frame: { type, raw: buf.subarray(offset, end) }, end };
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const n = Number(line);
      if (n < 0) return { frame: { type, raw: buf.subarray(offset, afterLine) }, end: afterLine };
      const count = type === '%' || type === '|' ? n * 2 : n;
      const children: Frame[] = [];
      let pos = afterLine;
      for (let i = 0; i < count; i++) {
        const child = parseFrame(buf, pos);
        if (child === undefined) return undefined;
        children.push(child.frame);
        pos = child.end;
      }
      if (type === '|') {
        // An attribute precedes the reply it annotates: keep them together as one frame.
        const next = parseFrame(buf, pos);
        if (next === undefined) return undefined;
        return { frame: { type, raw: buf.subarray(offset, next.end), children: [...children, next.frame] }, end: next.end };
      }
      return { frame: { type, raw: buf.subarray(offset, pos), children }, end: pos };
    }
    default:
      throw new Error(`unknown RESP type byte ${JSON.stringify(type)} at ${offset}`);
  }
}

/** A readable rendering of raw RESP for failure messages. */
export function showRaw(raw: Buffer | string): string {
  const s = typeof raw === 'string' ? raw : raw.toString('latin1');
  return JSON.stringify(s.length > 600 ? `${s.slice(0, 600)}...(${s.length} bytes)` : s);
}
