// The original string-building encoder (commit bc890e1), kept as an oracle: the optimised
// Encoder must produce the very same bytes.
import {
  BooleanReply, DoubleReply, ErrorReply, MapReply, NULL_ARRAY, PushReply,
  type Reply, SetReply, SimpleString, VerbatimReply,
} from '../../src/resp/reply.js';
import { formatDouble, type Protocol } from '../../src/resp/encoder.js';

export class ReferenceEncoder {
  private chunks: Buffer[] = [];
  private text = '';

  constructor(private readonly protocol: Protocol) {}

  write(reply: Reply): this {
    this.encode(reply);
    return this;
  }

  /** Returns everything written so far and resets the encoder. */
  take(): Buffer {
    this.flushText();
    const out = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    return out;
  }

  private flushText(): void {
    if (this.text.length > 0) {
      this.chunks.push(Buffer.from(this.text, 'utf8'));
      this.text = '';
    }
  }

  private bulk(buf: Buffer): void {
    // Small payloads are cheaper to copy into the text than to keep as a separate chunk,
    // but only when they are valid as latin1 round trip; keep binary data as Buffers.
    this.text += `$${buf.length}\r\n`;
    this.flushText();
    this.chunks.push(buf);
    this.text += '\r\n';
  }

  private encode(r: Reply): void {
    if (typeof r === 'string') {
      this.text += `$${Buffer.byteLength(r, 'utf8')}\r\n${r}\r\n`;
    } else if (typeof r === 'number') {
      this.text += `:${r}\r\n`;
    } else if (typeof r === 'bigint') {
      this.text += `:${r}\r\n`;
    } else if (r === null) {
      this.text += this.protocol === 3 ? '_\r\n' : '$-1\r\n';
    } else if (r === NULL_ARRAY) {
      this.text += this.protocol === 3 ? '_\r\n' : '*-1\r\n';
    } else if (Buffer.isBuffer(r)) {
      this.bulk(r);
    } else if (Array.isArray(r)) {
      this.text += `*${r.length}\r\n`;
      for (const item of r) this.encode(item);
    } else if (r instanceof SimpleString) {
      this.text += `+${r.value}\r\n`;
    } else if (r instanceof ErrorReply) {
      // Errors must stay on one line or the client loses protocol sync.
      this.text += `-${r.message.replace(/[\r\n]+/g, ' ')}\r\n`;
    } else if (r instanceof MapReply) {
      if (this.protocol === 3) {
        this.text += `%${r.entries.length}\r\n`;
      } else {
        this.text += `*${r.entries.length * 2}\r\n`;
      }
      for (const [k, v] of r.entries) {
        this.encode(k);
        this.encode(v);
      }
    } else if (r instanceof SetReply) {
      this.text += `${this.protocol === 3 ? '~' : '*'}${r.items.length}\r\n`;
      for (const item of r.items) this.encode(item);
    } else if (r instanceof PushReply) {
      this.text += `${this.protocol === 3 ? '>' : '*'}${r.items.length}\r\n`;
      for (const item of r.items) this.encode(item);
    } else if (r instanceof DoubleReply) {
      const s = formatDouble(r.value);
      if (this.protocol === 3) this.text += `,${s}\r\n`;
      else this.text += `$${s.length}\r\n${s}\r\n`;
    } else if (r instanceof BooleanReply) {
      if (this.protocol === 3) this.text += r.value ? '#t\r\n' : '#f\r\n';
      else this.text += r.value ? ':1\r\n' : ':0\r\n';
    } else if (r instanceof VerbatimReply) {
      if (this.protocol === 3) {
        const body = `${r.format}:${r.text}`;
        this.text += `=${Buffer.byteLength(body, 'utf8')}\r\n${body}\r\n`;
      } else {
        this.text += `$${Buffer.byteLength(r.text, 'utf8')}\r\n${r.text}\r\n`;
      }
    } else {
      throw new TypeError(`cannot encode reply ${String(r)}`);
    }
  }
}
