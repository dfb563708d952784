// How the differential tests see a reply: as a tree of frames (type byte, exact bytes, elements),
// from the tests' one reply parser (test/support/reply-parser.ts, with `{ frames: true }`).
export type { Frame } from '../support/reply-parser.js';

/** A readable rendering of raw RESP for failure messages. */
export function showRaw(raw: Buffer | string): string {
  const s = typeof raw === 'string' ? raw : raw.toString('latin1');
  return JSON.stringify(s.length > 600 ? `${s.slice(0, 600)}...(${s.length} bytes)` : s);
}
