// A bulk string reply of bytes the engine holds as latin1 text (a hash's value), written into
// the encoder's output from the text: no Buffer.from per reply (~100 ns, a sixth of an HGET).
import { Buffer } from 'node:buffer';
import { DirectReply, type Reply, type ReplyWriter } from '../resp/reply.js';

export class Latin1Reply extends DirectReply {
  constructor(readonly text: string) {
    super();
  }

  writeTo(w: ReplyWriter): void {
    w.bulkLatin1(this.text);
  }

  toReply(): Reply {
    return Buffer.from(this.text, 'latin1');
  }
}

/** The text as a bulk string reply, null (a null bulk string) when undefined. */
export function latin1Reply(text: string | undefined): Latin1Reply | null {
  return text === undefined ? null : new Latin1Reply(text);
}
